// hnc.x-k8s.io/v1alpha2: HNC's API (hierarchical namespaces), served as
// built-in resources with the names, scopes and short names of HNC's CRDs.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { HNC_GROUP, HNC_VERSION } from '../../api/hnc/v1alpha2/types.js';
import { subnamespaceAnchorStrategy } from './subnamespaceanchors.js';
import { hierarchyConfigurationStrategy } from './hierarchyconfigurations.js';
import { hncConfigurationStrategy } from './hncconfigurations.js';
import { hierarchicalResourceQuotaStrategy } from './hierarchicalresourcequotas.js';

export function hncEntries(): CatalogEntry[] {
  const g = { group: HNC_GROUP, version: HNC_VERSION };
  const entries = [
    entry({ ...g, resource: 'hierarchicalresourcequotas', kind: 'HierarchicalResourceQuota', singular: 'hierarchicalresourcequota', short: ['hrq'], strategy: hierarchicalResourceQuotaStrategy }),
    entry({ ...g, resource: 'hierarchyconfigurations', kind: 'HierarchyConfiguration', singular: 'hierarchyconfiguration', strategy: hierarchyConfigurationStrategy }),
    entry({ ...g, resource: 'hncconfigurations', kind: 'HNCConfiguration', singular: 'hncconfiguration', strategy: hncConfigurationStrategy }),
    entry({ ...g, resource: 'subnamespaceanchors', kind: 'SubnamespaceAnchor', singular: 'subnamespaceanchor', short: ['subns'], strategy: subnamespaceAnchorStrategy }),
  ];
  // Custom resources upstream: a POST on an object's path creates it.
  for (const e of entries) e.type.createOnNamedPath = true;
  return entries;
}
