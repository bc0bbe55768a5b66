// Shared set-up for registry tests: a registry over a real MemoryBackend with a
// controllable clock and predictable uids, and a valid sample object per resource.
import { MemoryBackend } from '../../src/storage/memory.js';
import type { Backend } from '../../src/storage/interface.js';
import { createRegistry, type Registry } from '../../src/registry/index.js';
import type { AdmissionPlugin } from '../../src/admission/interface.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { RESTStore } from '../../src/registry/rest.js';
import { StatusError } from '../../src/machinery/errors.js';

export interface TestRegistry {
  registry: Registry;
  backend: Backend;
  clock: { now: Date; advance(seconds: number): void };
  store(group: string, resource: string): RESTStore;
  close(): Promise<void>;
}

export function newTestRegistry(options: { backend?: Backend; admission?: AdmissionPlugin[] } = {}): TestRegistry {
  const backend = options.backend ?? new MemoryBackend();
  const clock = {
    now: new Date('2026-01-02T03:04:05Z'),
    advance(seconds: number) {
      this.now = new Date(this.now.getTime() + seconds * 1000);
    },
  };
  let n = 0;
  const registryOptions: Parameters<typeof createRegistry>[0] = {
    backend,
    clock: () => clock.now,
    uid: () => `uid-${++n}`,
  };
  if (options.admission !== undefined) registryOptions.admission = options.admission;
  const registry = createRegistry(registryOptions);
  return {
    registry,
    backend,
    clock,
    store(group, resource) {
      const s = registry.storeFor(group, resource);
      if (s === undefined) throw new Error(`no store for ${group}/${resource}`);
      return s;
    },
    async close() {
      await registry.close();
      await backend.close();
    },
  };
}

/** The Status of a rejected promise (fails the test when it resolves). */
export async function statusOf(p: Promise<unknown>): Promise<StatusError['status']> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err.status;
    throw err;
  }
  throw new Error('expected a StatusError, the call succeeded');
}

/** An ECDSA P-256 certificate request (CN=apis-diff), PEM then base64. */
const SAMPLE_CSR =
  'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlITk1IWUNBUUF3RkRFU01CQUdBMVVFQXd3SllYQnBjeTFrYVdabU1Ga3dFd1lIS29aSXpqMENBUVlJS29aSQp6ajBEQVFjRFFnQUVLcEJVS3ZydUhXdStVMU9oSTRRL2VxOXVyVnB4R2ZvcENkWit1aExiSExIZzFXaE0xSUVYCkZxdDFJQjkzcnoyUzJXVU9BUDRUUEx1cWcwNVQwRzEwTTZBQU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCYmYKNjRPOFFtNEYxV3NibWJJb2xlUFlqVmliQzJ0SnRWME9LdHlsUzBvVUFpQndRZ2FhdG96NEdoWEY1bmR3cVpmYwp1T0FsZzc3NDJrSjQ5UmpUQmJ1Wk13PT0KLS0tLS1FTkQgQ0VSVElGSUNBVEUgUkVRVUVTVC0tLS0tCg==';

const podSpec = { containers: [{ name: 'app', image: 'nginx:1.25' }] };

/** A minimal valid object per resource ("group/resource"), named `name`. */
export function sample(group: string, resource: string, name: string, namespace = 'default'): KubeObject {
  const meta = { name, labels: { app: name } };
  switch (`${group}/${resource}`) {
    case '/namespaces':
      return { metadata: { name } };
    case '/configmaps':
      return { metadata: meta, data: { key: 'value' } };
    case '/secrets':
      return { metadata: meta, data: { key: Buffer.from('value').toString('base64') } };
    case '/serviceaccounts':
      return { metadata: meta };
    case '/services':
      return { metadata: meta, spec: { selector: { app: name }, ports: [{ port: 80 }] } };
    case '/pods':
      return { metadata: meta, spec: structuredClone(podSpec) };
    case '/events':
      return {
        metadata: meta,
        involvedObject: { kind: 'Pod', namespace, name: 'p' },
        reason: 'Started',
        message: 'started',
        type: 'Normal',
        source: { component: 'kubelet' },
      };
    case '/endpoints':
      return { metadata: meta, subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] };
    case '/nodes':
      return { metadata: { name, labels: { app: name } }, spec: {} };
    case '/limitranges':
      return { metadata: meta, spec: { limits: [{ type: 'Container', max: { cpu: '2' } }] } };
    case '/resourcequotas':
      return { metadata: meta, spec: { hard: { pods: '10' } } };
    case '/persistentvolumeclaims':
      return { metadata: meta, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    case '/replicationcontrollers':
      return { metadata: meta, spec: { selector: { app: name }, template: { metadata: { labels: { app: name } }, spec: structuredClone(podSpec) } } };
    case 'apps/deployments':
      return {
        metadata: meta,
        spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: structuredClone(podSpec) } },
      };
    case 'apps/replicasets':
    case 'apps/statefulsets':
    case 'apps/daemonsets':
      return {
        metadata: meta,
        spec: { selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: structuredClone(podSpec) } },
      };
    case 'apps/controllerrevisions':
      return { metadata: meta, revision: 1, data: { spec: {} } };
    case 'batch/jobs':
      return { metadata: meta, spec: { template: { spec: { ...structuredClone(podSpec), restartPolicy: 'Never' } } } };
    case 'batch/cronjobs':
      return { metadata: meta, spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...structuredClone(podSpec), restartPolicy: 'Never' } } } } } };
    case 'policy/poddisruptionbudgets':
      return { metadata: meta, spec: { minAvailable: 1, selector: { matchLabels: { app: name } } } };
    case 'autoscaling/horizontalpodautoscalers':
      return { metadata: meta, spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name }, maxReplicas: 3 } };
    case 'coordination.k8s.io/leases':
      return { metadata: meta, spec: { holderIdentity: 'me', leaseDurationSeconds: 15 } };
    case 'rbac.authorization.k8s.io/roles':
    case 'rbac.authorization.k8s.io/clusterroles':
      return { metadata: meta, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] };
    case 'rbac.authorization.k8s.io/rolebindings':
    case 'rbac.authorization.k8s.io/clusterrolebindings':
      return {
        metadata: meta,
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [{ kind: 'ServiceAccount', name: 'sa', namespace }],
      };
    case 'events.k8s.io/events':
      return {
        metadata: meta,
        eventTime: '2026-01-02T03:04:05.000000Z',
        reportingController: 'example.com/ctl',
        reportingInstance: 'ctl-1',
        action: 'Reconcile',
        reason: 'Done',
        type: 'Normal',
        regarding: { kind: 'Pod', namespace, name: 'p' },
      };
    case '/persistentvolumes':
      return { metadata: meta, spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } } };
    case '/podtemplates':
      return { metadata: meta, template: { metadata: { labels: { app: name } }, spec: structuredClone(podSpec) } };
    case 'networking.k8s.io/networkpolicies':
      return { metadata: meta, spec: { podSelector: { matchLabels: { app: name } } } };
    case 'networking.k8s.io/ingresses':
      return { metadata: meta, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } } } };
    case 'networking.k8s.io/ingressclasses':
      return { metadata: meta, spec: { controller: 'example.com/ingress' } };
    case 'discovery.k8s.io/endpointslices':
      return { metadata: meta, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.1'] }], ports: [{ port: 80 }] };
    case 'storage.k8s.io/storageclasses':
      return { metadata: meta, provisioner: 'example.com/disk' };
    case 'storage.k8s.io/csidrivers':
      return { metadata: meta, spec: {} };
    case 'storage.k8s.io/csinodes':
      return { metadata: meta, spec: { drivers: [{ name: 'disk.example.com', nodeID: 'n1' }] } };
    case 'storage.k8s.io/volumeattachments':
      return { metadata: meta, spec: { attacher: 'disk.example.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv' } } };
    case 'storage.k8s.io/csistoragecapacities':
      return { metadata: meta, storageClassName: 'fast', capacity: '1Gi' };
    case 'scheduling.k8s.io/priorityclasses':
      return { metadata: meta, value: 100 };
    case 'node.k8s.io/runtimeclasses':
      return { metadata: meta, handler: 'runc' };
    case 'certificates.k8s.io/certificatesigningrequests':
      return { metadata: meta, spec: { request: SAMPLE_CSR, signerName: 'example.com/signer', usages: ['client auth'] } };
    case 'admissionregistration.k8s.io/mutatingwebhookconfigurations':
    case 'admissionregistration.k8s.io/validatingwebhookconfigurations':
      // Scoped to a namespace label nothing carries, so the sample changes no other request.
      return {
        metadata: meta,
        webhooks: [
          {
            name: 'sample.example.com',
            clientConfig: { url: 'https://127.0.0.1:1/sample' },
            sideEffects: 'None',
            admissionReviewVersions: ['v1'],
            namespaceSelector: { matchLabels: { 'sample.example.com/never': 'true' } },
          },
        ],
      };
    case 'admissionregistration.k8s.io/validatingadmissionpolicies':
      return {
        metadata: meta,
        spec: {
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          validations: [{ expression: 'true' }],
        },
      };
    case 'admissionregistration.k8s.io/validatingadmissionpolicybindings':
      return { metadata: meta, spec: { policyName: 'p', validationActions: ['Deny'] } };
    case 'flowcontrol.apiserver.k8s.io/flowschemas':
      return { metadata: meta, spec: { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: 5000, rules: [{ subjects: [{ kind: 'User', user: { name: 'sample' } }], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/sample'] }] }] } };
    case 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations':
      return { metadata: meta, spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } } };
    case 'hnc.x-k8s.io/subnamespaceanchors':
      return { metadata: meta };
    case 'hnc.x-k8s.io/hierarchicalresourcequotas':
      return { metadata: meta, spec: { hard: { pods: '2' } } };
    default:
      throw new Error(`no sample for ${group}/${resource}`);
  }
}
