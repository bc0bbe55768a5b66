// networking.k8s.io/v1: its catalog entries.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { networkPolicyStrategy } from './networkpolicies.js';
import { ingressStrategy } from './ingresses.js';
import { ingressClassStrategy } from './ingressclasses.js';

const networking = { group: 'networking.k8s.io', version: 'v1' } as const;

export function networkingEntries(): CatalogEntry[] {
  return [
    entry({ ...networking, resource: 'networkpolicies', kind: 'NetworkPolicy', singular: 'networkpolicy', short: ['netpol'], strategy: networkPolicyStrategy }),
    entry({ ...networking, resource: 'ingresses', kind: 'Ingress', singular: 'ingress', short: ['ing'], strategy: ingressStrategy }),
    entry({ ...networking, resource: 'ingressclasses', kind: 'IngressClass', singular: 'ingressclass', strategy: ingressClassStrategy }),
  ];
}
