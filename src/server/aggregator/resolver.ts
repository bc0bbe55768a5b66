// Where an APIService's Service is dialled (kube-aggregator's service
// resolvers): by default the Service's cluster IP and port, or for an
// ExternalName Service its external name and the APIService's port
// (ResolveCluster); with --enable-aggregator-routing one ready address of the
// Service's endpoints and the matching target port (ResolveEndpoint).
// Upstream refuses loopback addresses in Endpoints, so an extension server on
// this machine is registered through an ExternalName Service to `localhost`.

import type { RESTStore } from '../../registry/rest.js';
import { endpointsServiceResolver } from '../../admission/webhook/service-resolver.js';

export interface ResolvedTarget {
  host: string;
  port: number;
}

export type ApiServiceResolver = (namespace: string, name: string, port: number) => Promise<ResolvedTarget>;

interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  externalName?: string;
  ports?: { port?: number }[];
}

/** ResolveCluster: the cluster IP (or external name) of the Service. */
export function clusterServiceResolver(storeFor: (resource: string) => RESTStore | undefined): ApiServiceResolver {
  return async (namespace, name, port) => {
    const services = storeFor('services');
    if (services === undefined) throw new Error('no service resolution');
    let spec: ServiceSpec;
    try {
      spec = ((await services.get(namespace, name, {}))['spec'] ?? {}) as ServiceSpec;
    } catch {
      throw new Error(`service "${name}" not found`);
    }
    if (spec.type === 'ExternalName') return { host: spec.externalName ?? '', port };
    if ((spec.type ?? 'ClusterIP') === 'ClusterIP' && (spec.clusterIP === undefined || spec.clusterIP === '' || spec.clusterIP === 'None')) {
      throw new Error(`invalid service: no cluster IP for service "${name}"`);
    }
    if (!(spec.ports ?? []).some((p) => p.port === port)) throw new Error(`no service port ${port} found for service "${name}"`);
    return { host: spec.clusterIP ?? '', port };
  };
}

/** The resolver --enable-aggregator-routing picks. */
export function apiServiceResolver(storeFor: (resource: string) => RESTStore | undefined, endpointRouting: boolean): ApiServiceResolver {
  return endpointRouting ? endpointsServiceResolver(storeFor) : clusterServiceResolver(storeFor);
}
