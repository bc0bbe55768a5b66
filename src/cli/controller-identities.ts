// The identities apiary's in-process controllers use when security is on, as
// kube-controller-manager with --use-service-account-credentials: the
// controller manager itself (system:kube-controller-manager: its shared
// informers list and watch everything) and one service-account user per
// controller (system:serviceaccount:kube-system:<name>, in the groups a
// service account has), each bound by the bootstrap policy to its
// system:controller:<name> role and nothing more. What upstream runs inside
// kube-apiserver (system namespaces, CRD cleanup) or leaves to kubeadm
// (cluster-info) and apiary's leader-election Lease keep the loopback admin
// identity, as upstream's loopback client (system:masters).
// Credentials are in-memory tokens on the server's loopback listener
// (src/server/loopback.ts; upstream's loopback client for system:apiserver),
// or, where the server has no such listener, client certificates from the
// cluster CA; both made at each start, nothing written to disk.

import { RestClient } from '../client/index.js';
import type { ControllerManagerOptions } from '../controllers/manager.js';
import { controllerUser } from '../auth/authz/bootstrap-policy.js';
import { PROPAGATION_CONTROLLER_USER } from '../tenancy/propagation-protection.js';
import type { AdminCredentials } from '../server/server.js';

export interface ControllerIdentities {
  client: RestClient;
  clients: NonNullable<ControllerManagerOptions['clients']>;
  close(): Promise<void>;
}

const SERVICE_ACCOUNT_GROUPS = ['system:serviceaccounts', 'system:serviceaccounts:kube-system'];

export async function controllerIdentities(
  admin: AdminCredentials,
  issue: (user: string, groups: string[]) => Promise<AdminCredentials>,
  userAgent: string,
): Promise<ControllerIdentities> {
  const made: RestClient[] = [];
  const client = async (credentials: AdminCredentials, agent: string): Promise<RestClient> => {
    const c = new RestClient({ ...credentials, userAgent: agent });
    made.push(c);
    return c;
  };
  const as = async (name: string): Promise<RestClient> => client(await issue(controllerUser(name), SERVICE_ACCOUNT_GROUPS), `${userAgent}/${name}`);
  return {
    client: await client(await issue('system:kube-controller-manager', []), userAgent),
    clients: {
      namespace: await as('namespace-controller'),
      resourceQuota: await as('resourcequota-controller'),
      // apiary's own role (bootstrap-policy.json): HRQ status, as the ResourceQuota controller's is written.
      hierarchicalQuota: await as('hierarchicalresourcequota-controller'),
      pvcProtection: await as('pvc-protection-controller'),
      garbageCollector: await as('generic-garbage-collector'),
      serviceAccount: await as('service-account-controller'),
      rootCaPublisher: await as('root-ca-cert-publisher'),
      apiserver: await client(admin, `${userAgent}/loopback`),
      // Copies of RoleBindings and Roles bind what their sources bind: the controller may write any (system:masters).
      hncPropagation: await client(await issue(PROPAGATION_CONTROLLER_USER, ['system:masters']), `${userAgent}/hnc-propagation-controller`),
    },
    close: async () => {
      await Promise.all(made.map((c) => c.close()));
    },
  };
}
