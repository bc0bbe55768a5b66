// Resolves a webhook's clientConfig.service to an address this machine can
// dial: the Service's port → the matching port of its Endpoints, and one of
// the ready addresses (upstream's EndpointServiceResolver; kube-apiserver's
// default dials the cluster IP, which nothing routes here).

import type { RESTStore } from '../../registry/rest.js';
import type { ResolvedService, ServiceResolver } from './client.js';

interface ServicePort { name?: string; port?: number; targetPort?: number | string }
interface EndpointPort { name?: string; port?: number }
interface Subset { addresses?: { ip?: string; hostname?: string }[]; ports?: EndpointPort[] }

export function endpointsServiceResolver(storeFor: (resource: string) => RESTStore | undefined): ServiceResolver {
  return async (namespace, name, port): Promise<ResolvedService> => {
    const services = storeFor('services');
    const endpoints = storeFor('endpoints');
    if (services === undefined || endpoints === undefined) throw new Error('no service resolution');
    let svc: { spec?: { ports?: ServicePort[]; type?: string; externalName?: string } };
    try {
      svc = (await services.get(namespace, name, {})) as typeof svc;
    } catch {
      throw new Error(`service "${name}" not found`);
    }
    if (svc.spec?.type === 'ExternalName') return { host: svc.spec.externalName ?? '', port };
    const svcPort = (svc.spec?.ports ?? []).find((p) => p.port === port);
    if (svcPort === undefined) throw new Error(`no service port ${port} found for service "${name}"`);
    let eps: { subsets?: Subset[] };
    try {
      eps = (await endpoints.get(namespace, name, {})) as typeof eps;
    } catch {
      throw new Error(`no endpoints available for service "${name}"`);
    }
    for (const subset of eps.subsets ?? []) {
      const epPort = (subset.ports ?? []).find((p) => (p.name ?? '') === (svcPort.name ?? ''));
      const addresses = (subset.addresses ?? []).filter((a) => a.ip !== undefined && a.ip !== '');
      if (epPort === undefined || epPort.port === undefined || addresses.length === 0) continue;
      const pick = addresses[Math.floor(Math.random() * addresses.length)]!;
      return { host: pick.ip!, port: epPort.port };
    }
    throw new Error(`no endpoints available for service "${name}"`);
  };
}
