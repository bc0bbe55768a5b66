// flowcontrol.apiserver.k8s.io/v1: the group's catalog entries.

import type { CatalogEntry } from '../catalog.js';
import { flowSchemaStrategy } from './flowschemas.js';
import { priorityLevelConfigurationStrategy } from './prioritylevelconfigurations.js';

const VERBS: CatalogEntry['type']['verbs'] = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function entry(resource: string, kind: string, singular: string, strategy: CatalogEntry['strategy']): CatalogEntry {
  return {
    type: {
      group: 'flowcontrol.apiserver.k8s.io',
      version: 'v1',
      resource,
      kind,
      listKind: `${kind}List`,
      singularName: singular,
      namespaced: false,
      verbs: VERBS,
      shortNames: [],
      categories: [],
      subresources: ['status'],
    },
    strategy,
  };
}

export const flowcontrolEntries: CatalogEntry[] = [
  entry('flowschemas', 'FlowSchema', 'flowschema', flowSchemaStrategy),
  entry('prioritylevelconfigurations', 'PriorityLevelConfiguration', 'prioritylevelconfiguration', priorityLevelConfigurationStrategy),
];
