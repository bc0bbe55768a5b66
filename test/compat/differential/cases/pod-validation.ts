// Pod spec validation beyond volumes, as kube-apiserver 1.32 words it:
// environment names, probes without a handler, volume mounts, tolerations,
// DNS settings, security contexts. Dry-run creates.

import type { DiffCase } from '../case.js';

const PODS = '/api/v1/namespaces/{ns}/pods?dryRun=All';
const main = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'main', image: 'registry.example/app:1', ...extra });
const pod = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec });
const step = (title: string, name: string, spec: Record<string, unknown>) => ({ title, method: 'POST' as const, path: PODS, body: pod(name, spec) });

export const cases: DiffCase[] = [
  {
    name: 'pod validation: containers and spec fields',
    steps: [
      step('environment variables: bad names, both value and valueFrom, an empty valueFrom', 'env', {
        containers: [main({ env: [{ name: '1=bad' }, { name: 'A', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }, { name: 'B', valueFrom: {} }, { name: 'C', valueFrom: { fieldRef: { fieldPath: 'spec.bogus' } } }] })],
      }),
      step('probes without a handler, with two, with bad thresholds', 'probes', {
        containers: [main({ livenessProbe: {}, readinessProbe: { exec: { command: ['true'] }, httpGet: { port: 80 }, successThreshold: 2 }, startupProbe: { tcpSocket: { port: 0 }, failureThreshold: -1 } })],
      }),
      step('volume mounts: a relative path, two at one path, a subPath leaving the volume', 'mounts', {
        containers: [main({ volumeMounts: [{ name: 'v', mountPath: 'relative' }, { name: 'v', mountPath: '/data' }, { name: 'v', mountPath: '/data' }, { name: 'v', mountPath: '/x', subPath: '../up' }] })],
        volumes: [{ name: 'v', emptyDir: {} }],
      }),
      step('container ports: out of range, duplicate names, a bad protocol', 'ports', {
        containers: [main({ ports: [{ containerPort: 0 }, { containerPort: 70000, name: 'web' }, { containerPort: 80, name: 'web', protocol: 'ICMP' }, { containerPort: 81, name: 'Not_Valid' }] })],
      }),
      step('tolerations: an unknown operator, Exists with a value, an unknown effect, tolerationSeconds without NoExecute', 'tolerations', {
        containers: [main()],
        tolerations: [{ key: 'a', operator: 'Maybe' }, { key: 'b', operator: 'Exists', value: 'v' }, { key: 'c', effect: 'Sometimes' }, { key: 'd', value: 'v', effect: 'NoSchedule', tolerationSeconds: 5 }, { operator: 'Equal', value: 'x' }],
      }),
      step('dnsPolicy None without dnsConfig; too many search domains', 'dns', {
        containers: [main()],
        dnsPolicy: 'None',
      }),
      step('dnsConfig with bad nameservers and options', 'dnsconfig', {
        containers: [main()],
        dnsConfig: { nameservers: ['not-an-ip', '1.1.1.1', '2.2.2.2', '3.3.3.3'], searches: ['Bad_Domain'], options: [{ value: 'x' }] },
      }),
      step('security contexts: negative users, bad seccomp and capabilities', 'security', {
        containers: [main({ securityContext: { runAsUser: -1, runAsGroup: -2, seccompProfile: { type: 'Localhost' }, allowPrivilegeEscalation: false, capabilities: { add: ['SYS_ADMIN'] }, procMount: 'Odd' } })],
        securityContext: { runAsUser: -5, fsGroup: -1, supplementalGroups: [-1], seccompProfile: { type: 'Bogus' }, sysctls: [{ name: 'bad name', value: '1' }] },
      }),
      step('hostNetwork with a container port whose hostPort differs', 'hostnet', {
        hostNetwork: true,
        containers: [main({ ports: [{ containerPort: 80, hostPort: 81 }] })],
      }),
      step('init container with a lifecycle and probes; restartPolicy Always sidecar with a startup probe', 'init', {
        initContainers: [{ name: 'init', image: 'i', readinessProbe: { exec: { command: ['true'] } }, lifecycle: { postStart: { exec: { command: ['x'] } } } }, { name: 'side', image: 's', restartPolicy: 'Always', startupProbe: { exec: { command: ['true'] } } }],
        containers: [main()],
      }),
      step('a container restartPolicy; an init container restartPolicy OnFailure', 'restart', {
        initContainers: [{ name: 'init', image: 'i', restartPolicy: 'OnFailure' }],
        containers: [main({ restartPolicy: 'Always' })],
      }),
      step('resources: a negative cpu limit (its request defaulted from it)', 'negative', { containers: [main({ resources: { limits: { cpu: '-1' } } })] }),
      step('resources: an unknown resource name', 'unknown', { containers: [main({ resources: { requests: { bogus: '1' } } })] }),
      step('resources: an extended resource name that does not follow the standard', 'extended', { containers: [main({ resources: { limits: { 'requests.example.com/gpu': '1' } } })] }),
      step('an image with surrounding whitespace (pods only)', 'spaces', { containers: [main({ image: ' registry.example/app:1 ' })] }),
      step('imagePullSecrets without a name; an affinity with an empty term; priority without class', 'misc', {
        containers: [main()],
        imagePullSecrets: [{}],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
        hostname: 'Not_Valid',
        subdomain: '-bad',
      }),
    ],
  },
];
