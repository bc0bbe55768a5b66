// Defaults kube-apiserver 1.32 fills in a pod's volumes and environment
// (pkg/apis/core/v1/defaults.go and the PersistentVolumeClaimSpec defaults of
// an ephemeral volume's template), a few validation rules around them, and
// which kinds a PUT may create. Dry-run creates, compared on the spec.

import type { DiffCase } from '../case.js';

const PODS = '/api/v1/namespaces/{ns}/pods';
const main = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'main', image: 'registry.example/app:1', ...extra });
const pod = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });

export const cases: DiffCase[] = [
  {
    name: 'pod defaults: volumes and field references',
    steps: [
      {
        title: 'volumes given with nothing optional: every default',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        select: 'spec',
        body: pod('volumes', {
          containers: [
            main({
              env: [
                { name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
                { name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
              ],
            }),
          ],
          volumes: [
            { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
            { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
            { name: 'mixed', projected: { sources: [{ downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }] } }, { configMap: { name: 'cm' } }] } },
            { name: 'downward', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
            { name: 'secret', secret: { secretName: 's' } },
            { name: 'config', configMap: { name: 'cm' } },
            { name: 'host', hostPath: { path: '/tmp' } },
            { name: 'empty', emptyDir: {} },
            { name: 'rbd', rbd: { monitors: ['10.0.0.1:6789'], image: 'i' } },
            { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0 } },
            { name: 'azure', azureDisk: { diskName: 'd', diskURI: 'https://example.com/d.vhd' } },
            { name: 'scaleio', scaleIO: { gateway: 'https://gw', system: 'sys', secretRef: { name: 's' }, volumeName: 'v' } },
            { name: 'nfs', nfs: { server: '10.0.0.2', path: '/export' } },
          ],
        }),
      },
      {
        title: 'a memory request above its limit',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        body: pod('memory', { containers: [main({ resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } })] }),
      },
      {
        title: 'a cpu request above its limit',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        body: pod('cpu', { containers: [main({ resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } })] }),
      },
      {
        title: 'a scaleIO volume without its volume name',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        body: pod('scaleio', { containers: [main()], volumes: [{ name: 'scaleio', scaleIO: { gateway: 'https://gw', system: 'sys', secretRef: { name: 's' } } }] }),
      },
      {
        title: 'a PUT of a ReplicationController that does not exist',
        method: 'PUT',
        path: '/api/v1/namespaces/{ns}/replicationcontrollers/absent',
        body: {
          apiVersion: 'v1',
          kind: 'ReplicationController',
          metadata: { name: 'absent' },
          spec: { replicas: 1, selector: { app: 'a' }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [main()] } } },
        },
      },
    ],
  },
];
