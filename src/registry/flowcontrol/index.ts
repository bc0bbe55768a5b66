// flowcontrol.apiserver.k8s.io/v1: its catalog entries (API Priority and Fairness's configuration).
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { flowSchemaStrategy } from './flowschemas.js';
import { priorityLevelConfigurationStrategy } from './prioritylevelconfigurations.js';

const flowcontrol = { group: 'flowcontrol.apiserver.k8s.io', version: 'v1' } as const;

export function flowcontrolEntries(): CatalogEntry[] {
  return [
    entry({ ...flowcontrol, resource: 'flowschemas', kind: 'FlowSchema', singular: 'flowschema', strategy: flowSchemaStrategy }),
    entry({ ...flowcontrol, resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', singular: 'prioritylevelconfiguration', strategy: priorityLevelConfigurationStrategy }),
  ];
}
