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

const vol = (volumes: Record<string, unknown>[]): Record<string, unknown> => ({ containers: [main()], volumes });

cases.push({
  name: 'pod volumes: required fields, one source each',
  steps: [
    { title: 'a volume naming no source becomes an emptyDir', method: 'POST', path: `${PODS}?dryRun=All`, select: 'spec.volumes', body: pod('bare', vol([{ name: 'bare' }])) },
    {
      title: 'every plugin without its required fields',
      method: 'POST',
      path: `${PODS}?dryRun=All`,
      body: pod(
        'required',
        vol([
          { name: 'a', hostPath: { path: '' } },
          { name: 'b', gitRepo: { repository: '' } },
          { name: 'c', gcePersistentDisk: { pdName: '' } },
          { name: 'd', awsElasticBlockStore: { volumeID: '' } },
          { name: 'e', secret: {} },
          { name: 'f', nfs: { server: '', path: '' } },
          { name: 'g', iscsi: { targetPortal: '', iqn: '', lun: 0 } },
          { name: 'h', glusterfs: { endpoints: '', path: '' } },
          { name: 'i', persistentVolumeClaim: { claimName: '' } },
          { name: 'j', rbd: { monitors: [], image: '' } },
          { name: 'k', cinder: { volumeID: '' } },
          { name: 'l', cephfs: { monitors: [] } },
          { name: 'm', flexVolume: { driver: '' } },
          { name: 'n', configMap: {} },
          { name: 'o', azureFile: { secretName: '', shareName: '' } },
          { name: 'p', vsphereVolume: { volumePath: '' } },
          { name: 'q', photonPersistentDisk: { pdID: '' } },
          { name: 'r', portworxVolume: { volumeID: '' } },
          { name: 's', azureDisk: { diskName: '', diskURI: '' } },
          { name: 't', storageos: {} },
          { name: 'u', scaleIO: { gateway: '', system: '', secretRef: { name: 's' } } },
          { name: 'v', csi: { driver: '' } },
          { name: 'w', fc: {} },
          { name: 'x', flocker: {} },
          { name: 'y', quobyte: { registry: '', volume: '' } },
        ]),
      ),
    },
    {
      title: 'two sources in one volume; downward API items without a source; paths leaving the volume; unknown hostPath type and azure modes',
      method: 'POST',
      path: `${PODS}?dryRun=All`,
      body: pod(
        'shapes',
        vol([
          { name: 'two', emptyDir: {}, hostPath: { path: '/tmp' }, cephfs: { monitors: ['m'] }, downwardAPI: {} },
          { name: 'down', downwardAPI: { items: [{ path: 'x' }, { path: '/abs', fieldRef: { fieldPath: 'metadata.name' } }] } },
          { name: 'items', secret: { secretName: 's', items: [{ key: 'k', path: '../up' }, { key: '', path: '..x' }] } },
          { name: 'cm', configMap: { name: 'c', items: [{ key: 'k', path: 'a/../b' }] } },
          { name: 'host', hostPath: { path: '/var/../etc', type: 'Pipe' } },
          { name: 'git', gitRepo: { repository: 'r', directory: '/abs' } },
          { name: 'nfs', nfs: { server: 's', path: 'relative' } },
          { name: 'iscsi', iscsi: { targetPortal: 't', iqn: 'bad', lun: 300 } },
          { name: 'azure', azureDisk: { diskName: 'd', diskURI: 'ftp://x', cachingMode: 'Always', kind: 'Odd' } },
          { name: 'managed', azureDisk: { diskName: 'd', diskURI: 'https://x', kind: 'Managed' } },
          { name: 'storage', storageos: { volumeName: 'Not_A_Label' } },
        ]),
      ),
    },
  ],
});
