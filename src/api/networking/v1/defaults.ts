// networking.k8s.io/v1 defaults (upstream pkg/apis/networking/v1/defaults.go).
import type { KubeObject } from '../../../machinery/meta.js';
import type { Loose } from '../../loose.js';

function defaultPorts(rules: Loose[] | undefined): void {
  for (const rule of rules ?? []) for (const port of rule.ports ?? []) port.protocol ??= 'TCP';
}

export function defaultNetworkPolicy(obj: KubeObject): void {
  const np = obj as Loose;
  np.spec ??= {};
  defaultPorts(np.spec.ingress);
  defaultPorts(np.spec.egress);
  if ((np.spec.policyTypes ?? []).length === 0) {
    np.spec.policyTypes = ['Ingress'];
    if ((np.spec.egress ?? []).length > 0) np.spec.policyTypes.push('Egress');
  }
}

export function defaultIngressClass(obj: KubeObject): void {
  const ic = obj as Loose;
  const params = ic.spec?.parameters;
  if (params !== undefined && params !== null) params.scope ??= 'Cluster';
}
