// The cluster-info publisher: what kubeadm's bootstrap publishes in
// kube-public so that anyone, authenticated or not, can find the cluster and
// its CA (kubeadm's `bootstrap-token` phase, clusterinfo.go):
//   - ConfigMap kube-public/cluster-info with `data.kubeconfig`, a kubeconfig
//     holding one unnamed cluster (the server URL and the CA data), written as
//     client-go's clientcmd writes it;
//   - Role kube-public/kubeadm:bootstrap-signer-clusterinfo granting `get` on
//     that ConfigMap only, bound to the user system:anonymous by the RoleBinding
//     of the same name.
// Ensured whenever kube-public is added or updated (the system namespaces
// controller makes it): missing objects are created, a ConfigMap whose
// kubeconfig differs from this server's (another CA, another URL after a
// restart on another port) is rewritten. Clients of the API only.

import type { KubeObject } from '../machinery/meta.js';
import { type ClientLogger, type RestClient, type SharedInformerFactory, isAlreadyExists, isNotFound, silentLogger } from '../client/index.js';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_CONFIGMAP = 'cluster-info';
export const CLUSTER_INFO_ROLE = 'kubeadm:bootstrap-signer-clusterinfo';

export interface ClusterInfoOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  /** The URL clients should use, and the CA bundle that verifies it. */
  server: string;
  caData: string;
  logger?: ClientLogger;
}

/** The kubeconfig kubeadm publishes: one cluster named "", no users or contexts (clientcmd's YAML layout). */
export function clusterInfoKubeconfig(server: string, caData: string): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caData).toString('base64')}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

const RBAC = { group: 'rbac.authorization.k8s.io', version: 'v1' } as const;

export class ClusterInfoPublisher {
  private running: Promise<void> | undefined;

  constructor(private readonly options: ClusterInfoOptions) {
    const onNamespace = (ns: KubeObject): void => {
      if (ns.metadata.name === CLUSTER_INFO_NAMESPACE && ns.metadata.deletionTimestamp === undefined) this.enqueue();
    };
    options.informers.forBuiltin('namespaces').addEventHandler({ onAdd: onNamespace, onUpdate: (_old, ns) => onNamespace(ns) });
  }

  private enqueue(): void {
    if (this.running !== undefined) return;
    this.running = this.ensure()
      .catch((err: unknown) => (this.options.logger ?? silentLogger).warn({ err: err instanceof Error ? err.message : String(err) }, 'cluster-info not published'))
      .finally(() => (this.running = undefined));
  }

  /** Creates or fixes the ConfigMap, the Role and the RoleBinding. */
  async ensure(): Promise<void> {
    const { client } = this.options;
    const ns = CLUSTER_INFO_NAMESPACE;
    const kubeconfig = clusterInfoKubeconfig(this.options.server, this.options.caData);
    const configMaps = client.configMaps(ns);
    let current: KubeObject | undefined;
    try {
      current = await configMaps.get(CLUSTER_INFO_CONFIGMAP);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    if (current === undefined) {
      await createIfMissing(() => configMaps.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: CLUSTER_INFO_CONFIGMAP, namespace: ns }, data: { kubeconfig } }));
    } else if ((current['data'] as Record<string, string> | undefined)?.['kubeconfig'] !== kubeconfig) {
      // Other keys (a bootstrap signer's jws-kubeconfig-*) are kept.
      await configMaps.update({ ...current, data: { ...(current['data'] as Record<string, string> | undefined), kubeconfig } });
    }
    await createIfMissing(() =>
      client.resource({ ...RBAC, resource: 'roles' }).namespace(ns).create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: CLUSTER_INFO_ROLE, namespace: ns },
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO_CONFIGMAP] }],
      } as KubeObject),
    );
    await createIfMissing(() =>
      client.resource({ ...RBAC, resource: 'rolebindings' }).namespace(ns).create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: CLUSTER_INFO_ROLE, namespace: ns },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: CLUSTER_INFO_ROLE },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:anonymous' }],
      } as KubeObject),
    );
  }
}

async function createIfMissing(make: () => Promise<unknown>): Promise<void> {
  try {
    await make();
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}
