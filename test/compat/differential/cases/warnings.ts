// The Warning headers kube-apiserver 1.32 sends on pod and workload writes
// (pkg/api/pod/warnings.go and the kinds' WarningsOnCreate/WarningsOnUpdate):
// deprecated node labels and annotations, null label selectors, deprecated
// volume plugins, duplicates, fractional byte quantities, negative grace
// periods; the same template in each workload kind; updates that keep a
// warned field (warned again only when the generation moves).
// Each map in a body holds at most one warned key: Go ranges over maps in a
// random order, so two would come back in either order.

import type { DiffCase, DiffRequest } from '../case.js';

const PODS = '/api/v1/namespaces/{ns}/pods';
const APPS = '/apis/apps/v1/namespaces/{ns}';
const BATCH = '/apis/batch/v1/namespaces/{ns}';
const CORE = '/api/v1/namespaces/{ns}';
const MERGE = { 'content-type': 'application/merge-patch+json' };

const main = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name: 'main', image: 'registry.example/app:1', ...extra });

/** A pod spec with one of every warned thing. */
const warnedSpec = (): Record<string, unknown> => ({
  nodeSelector: { 'beta.kubernetes.io/os': 'linux' },
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'In', values: ['a'] }] }],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 1, preference: { matchExpressions: [{ key: 'beta.kubernetes.io/arch', operator: 'In', values: ['amd64'] }] } },
      ],
    },
    podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname' }] },
    podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname' } }] },
  },
  topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'failure-domain.beta.kubernetes.io/region', whenUnsatisfiable: 'ScheduleAnyway' }],
  volumes: [
    { name: 'repo', gitRepo: { repository: 'https://example.com/repo.git' } },
    { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], volumeMode: 'Filesystem', resources: { requests: { storage: '1500m' } } } } } },
  ],
  hostAliases: [
    { ip: '10.0.0.1', hostnames: ['a'] },
    { ip: '10.0.0.1', hostnames: ['b'] },
  ],
  imagePullSecrets: [{ name: 'pull' }, { name: 'pull' }, { name: 'other' }],
  terminationGracePeriodSeconds: -5,
  containers: [
    main({
      env: [
        { name: 'A', value: '1' },
        { name: 'A', value: '2' },
        { name: 'B', value: 'x' },
        { name: 'B', value: '$(B)-y' },
      ],
      ports: [{ containerPort: 80 }, { containerPort: 80 }, { containerPort: 81, hostPort: 8081 }, { containerPort: 81, hostIP: '127.0.0.1', hostPort: 8081 }],
      resources: { requests: { memory: '100m' }, limits: { memory: '1500m' } },
    }),
    { name: 'side', image: 'registry.example/side:1', ports: [{ containerPort: 80, hostPort: 8080 }, { containerPort: 90, hostIP: '127.0.0.2' }] },
  ],
  initContainers: [{ name: 'init', image: 'registry.example/init:1', resources: { limits: { 'ephemeral-storage': '2500m' } } }],
});

const warnedMeta = (name: string): Record<string, unknown> => ({
  name,
  labels: { app: 'warned' },
  annotations: {
    'scheduler.alpha.kubernetes.io/critical-pod': '',
    'container.seccomp.security.alpha.kubernetes.io/main': 'runtime/default',
  },
});

const template = (): Record<string, unknown> => ({
  metadata: { labels: { app: 'warned' }, annotations: { 'scheduler.alpha.kubernetes.io/critical-pod': '', 'seccomp.security.alpha.kubernetes.io/pod': 'runtime/default', 'container.apparmor.security.beta.kubernetes.io/main': 'runtime/default' } },
  spec: warnedSpec(),
});

const quiet = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({ metadata: { labels: { app: 'warned' } }, spec: { containers: [main()], ...extra } });

const selector = { matchLabels: { app: 'warned' } };

/**
 * Objects carrying duplicate list keys (env, ports, hostAliases) are compared
 * on their spec (or template) only: upstream's managedFields leave the
 * duplicated keys out, apiary's record them (server-side apply's divergence,
 * not the warnings'; the Warning headers are compared in full).
 */
const SPEC = 'spec';
const UID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

function createAndUpdate(kind: string, path: string, body: Record<string, unknown>, scaleBody: Record<string, unknown> | undefined, touch: Record<string, unknown>): DiffRequest[] {
  const name = (body['metadata'] as { name: string }).name;
  const select = kind === 'PodTemplate' ? 'template' : SPEC;
  // A Job's generated selector holds its uid, which the masking knows only under metadata.
  const mask = kind === 'Job' ? [UID] : undefined;
  const steps: DiffRequest[] = [
    { title: `create a ${kind} with a warned template`, method: 'POST', path, body, select, mask },
    { title: `a ${kind} label change keeps the generation: no template warnings`, method: 'PATCH', path: `${path}/${name}`, headers: MERGE, body: { metadata: { labels: { touched: 'yes' } } }, select, mask },
    { title: `a ${kind} spec change moves the generation: the kept warned fields warn again`, method: 'PATCH', path: `${path}/${name}`, headers: MERGE, body: touch, select, mask },
  ];
  if (scaleBody !== undefined) steps.push({ title: `a ${kind} scale write`, method: 'PATCH', path: `${path}/${name}/scale`, headers: MERGE, body: scaleBody });
  return steps;
}

export const cases: DiffCase[] = [
  {
    name: 'warnings: pods',
    steps: [
      { title: 'a pod with every warned field', method: 'POST', path: PODS, body: { apiVersion: 'v1', kind: 'Pod', metadata: warnedMeta('warned'), spec: warnedSpec() }, select: SPEC },
      { title: 'the pod as stored (a negative grace period taken as 1)', method: 'GET', path: `${PODS}/warned`, select: SPEC },
      { title: 'a pod update warns nothing', method: 'PATCH', path: `${PODS}/warned`, headers: MERGE, body: { metadata: { labels: { touched: 'yes' } } }, select: SPEC },
      {
        title: 'a dotted pod name',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a.b' }, spec: { containers: [main()] } },
      },
      {
        title: 'deprecated annotations, projected paths a service account token takes, an empty pull secret, overhead-free quiet pod',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'annotated', annotations: { 'security.alpha.kubernetes.io/sysctls': 'a=b', 'security.alpha.kubernetes.io/unsafe-sysctls': 'c=d' } },
          spec: {
            containers: [main()],
            imagePullSecrets: [{ name: '' }],
            nodeSelector: { 'node-role.kubernetes.io/master': '' },
            volumes: [
              { name: 'overlap', configMap: { name: 'cm', items: [{ key: 'a', path: 'a' }, { key: 'b', path: 'a/b' }] } },
              { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }] } },
              { name: 'cm', projected: { sources: [{ configMap: { name: 'cm', items: [{ key: 'k', path: 'token' }] } }] } },
              { name: 'secret', projected: { sources: [{ secret: { name: 's', items: [{ key: 'k', path: 'other' }, { key: 'k2', path: 'token' }] } }] } },
              { name: 'downward', projected: { sources: [{ downwardAPI: { items: [{ path: 'token', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }] } }] } },
              { name: 'cephfs', cephfs: { monitors: ['10.0.0.1:6789'] } },
              { name: 'rbd', rbd: { monitors: ['10.0.0.1:6789'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' } },
              { name: 'gluster', glusterfs: { endpoints: 'e', path: 'p' } },
            ],
          },
        },
      },
      {
        title: 'overlapping paths within a volume (a projected source of no items keeps the previous source in view, as upstream)',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'overlaps' },
          spec: {
            containers: [main()],
            volumes: [
              { name: 'sec', secret: { secretName: 's', items: [{ key: 'k', path: 'x' }, { key: 'k2', path: 'x/y' }] } },
              { name: 'three', configMap: { name: 'c', items: [{ key: 'a', path: 'a' }, { key: 'b', path: 'a/b' }, { key: 'c', path: 'a/b/c' }] } },
              {
                name: 'many',
                projected: {
                  sources: [
                    { downwardAPI: { items: [{ path: 'test/test', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }] } },
                    { secret: { name: 's', items: [{ key: 'k', path: 'test' }] } },
                    { serviceAccountToken: { path: 'test', expirationSeconds: 3600 } },
                  ],
                },
              },
              { name: 'down', downwardAPI: { items: [{ path: 'd/e', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }, { path: 'd', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.uid' } }] } },
              {
                name: 'proj',
                projected: {
                  sources: [
                    { configMap: { name: 'c', items: [{ key: 'k', path: 'p' }] } },
                    { secret: { name: 's', items: [{ key: 'k', path: 'p/q' }] } },
                    { serviceAccountToken: { path: 'tok', expirationSeconds: 3600 } },
                    { configMap: { name: 'c2' } },
                  ],
                },
              },
            ],
          },
        },
      },
      {
        title: 'the other deprecated and removed volume plugins (the warnings compared; their defaults are not this case\'s)',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        select: 'kind',
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'plugins' },
          spec: {
            containers: [main()],
            volumes: [
              { name: 'photon', photonPersistentDisk: { pdID: 'p' } },
              { name: 'scaleio', scaleIO: { gateway: 'g', system: 's', volumeName: 'v', secretRef: { name: 's' } } },
              { name: 'flocker', flocker: { datasetName: 'd' } },
              { name: 'storageos', storageos: { volumeName: 'v' } },
              { name: 'quobyte', quobyte: { registry: 'r:7861', volume: 'v' } },
            ],
          },
        },
      },
      {
        title: 'a quiet pod warns nothing',
        method: 'POST',
        path: `${PODS}?dryRun=All`,
        body: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'quiet' }, spec: { containers: [main({ resources: { limits: { memory: '2Gi' }, requests: { memory: '1Gi' } } })] } },
      },
    ],
  },
  {
    name: 'warnings: workloads',
    steps: [
      ...createAndUpdate(
        'Deployment',
        `${APPS}/deployments`,
        { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'warned.web' }, spec: { replicas: 1, selector, template: template() } },
        { spec: { replicas: 2 } },
        { spec: { minReadySeconds: 3 } },
      ),
      ...createAndUpdate(
        'ReplicaSet',
        `${APPS}/replicasets`,
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'warned' }, spec: { replicas: 1, selector, template: template() } },
        { spec: { replicas: 2 } },
        { spec: { minReadySeconds: 3 } },
      ),
      ...createAndUpdate(
        'StatefulSet',
        `${APPS}/statefulsets`,
        {
          apiVersion: 'apps/v1',
          kind: 'StatefulSet',
          metadata: { name: 'warned' },
          spec: {
            selector,
            serviceName: 'warned',
            revisionHistoryLimit: -1,
            template: template(),
            volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2500m' } } } }],
          },
        },
        { spec: { replicas: 2 } },
        { spec: { minReadySeconds: 3 } },
      ),
      ...createAndUpdate(
        'DaemonSet',
        `${APPS}/daemonsets`,
        { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'warned.ds' }, spec: { selector, template: template() } },
        undefined,
        { spec: { minReadySeconds: 3 } },
      ),
      ...createAndUpdate(
        'ReplicationController',
        `${CORE}/replicationcontrollers`,
        { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'warned' }, spec: { replicas: 1, selector: { app: 'warned' }, template: template() } },
        { spec: { replicas: 2 } },
        { spec: { minReadySeconds: 3 } },
      ),
      {
        title: 'a DaemonSet template change warns',
        method: 'PATCH',
        path: `${APPS}/daemonsets/warned.ds`,
        headers: MERGE,
        body: { spec: { template: { metadata: { annotations: { touched: 'yes' } } } } },
        select: SPEC,
      },
      {
        title: 'a ReplicationController update that clears the warned template warns with the old one',
        method: 'PUT',
        path: `${CORE}/replicationcontrollers/warned`,
        body: { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'warned' }, spec: { replicas: 1, selector: { app: 'warned' }, template: quiet() } },
        select: SPEC,
      },
      ...createAndUpdate(
        'PodTemplate',
        `${CORE}/podtemplates`,
        { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'warned' }, template: template() },
        undefined,
        { template: { spec: { activeDeadlineSeconds: 30 } } },
      ),
    ],
  },
  {
    name: 'warnings: jobs and cronjobs',
    steps: [
      ...createAndUpdate(
        'Job',
        `${BATCH}/jobs`,
        { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'warned' }, spec: { suspend: true, template: { ...template(), spec: { ...warnedSpec(), restartPolicy: 'Never' } } } },
        undefined,
        { spec: { suspend: false } },
      ),
      {
        title: 'an Indexed Job over the soft limits',
        method: 'POST',
        path: `${BATCH}/jobs?dryRun=All`,
        body: {
          apiVersion: 'batch/v1',
          kind: 'Job',
          metadata: { name: 'big' },
          spec: { completionMode: 'Indexed', completions: 100001, parallelism: 10001, template: { spec: { restartPolicy: 'Never', containers: [main()] } } },
        },
      },
      ...createAndUpdate(
        'CronJob',
        `${BATCH}/cronjobs`,
        {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'warned' },
          spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { ...template(), spec: { ...warnedSpec(), restartPolicy: 'OnFailure' } } } } },
        },
        undefined,
        { spec: { suspend: true } },
      ),
    ],
  },
];
