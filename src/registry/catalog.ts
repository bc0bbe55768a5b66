// The built-in resources apiary serves: one line each, with the facts
// discovery shows (kube-apiserver 1.32) and the strategy that drives the
// generic store. Adding a resource = a type, a strategy and a line here.

import type { ResourceType, Verb } from './rest.js';
import type { Strategy } from './strategy.js';
import { configMapStrategy } from './strategies/configmaps.js';
import { namespaceStrategy } from './strategies/namespaces.js';
import { secretStrategy } from './strategies/secrets.js';
import { serviceAccountStrategy } from './strategies/serviceaccounts.js';

export interface CatalogEntry {
  type: ResourceType;
  strategy: Strategy;
}

const ALL: Verb[] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const NO_COLLECTION_DELETE: Verb[] = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

interface Line {
  group: string;
  version: string;
  resource: string;
  kind: string;
  singular: string;
  short?: string[];
  categories?: string[];
  verbs?: Verb[];
  strategy: Strategy;
}

function entry(l: Line): CatalogEntry {
  const sub = Object.keys(l.strategy.subresources ?? {});
  return {
    type: {
      group: l.group,
      version: l.version,
      resource: l.resource,
      kind: l.kind,
      listKind: `${l.kind}List`,
      singularName: l.singular,
      namespaced: l.strategy.namespaced,
      verbs: l.verbs ?? ALL,
      shortNames: l.short ?? [],
      categories: l.categories ?? [],
      subresources: sub,
    },
    strategy: l.strategy,
  };
}

export const catalog: CatalogEntry[] = [
  entry({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', singular: 'namespace', short: ['ns'], verbs: NO_COLLECTION_DELETE, strategy: namespaceStrategy }),
  entry({ group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', singular: 'configmap', short: ['cm'], strategy: configMapStrategy }),
  entry({ group: '', version: 'v1', resource: 'secrets', kind: 'Secret', singular: 'secret', strategy: secretStrategy }),
  entry({ group: '', version: 'v1', resource: 'serviceaccounts', kind: 'ServiceAccount', singular: 'serviceaccount', short: ['sa'], strategy: serviceAccountStrategy }),
];
