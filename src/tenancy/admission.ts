// The tenancy admission plugin: HNC's webhooks as one in-process plugin, on
// namespaces, subnamespace anchors and hierarchy configurations (rules in
// anchors.ts, hierarchy-config.ts and namespace-rules.ts). It runs in the
// mutating phase (before validation and quota), so a refused write charges
// nothing and stores nothing.
import type { AdmissionAttributes, AdmissionPlugin } from '../registry/admission.js';
import { HNC_GROUP } from '../api/hnc/v1alpha2/types.js';
import { admitAnchor } from './anchors.js';
import { admitHierarchyConfiguration } from './hierarchy-config.js';
import { admitNamespace } from './namespace-rules.js';
import type { TenancyView } from './rules.js';

export const TENANCY_ADMISSION_PLUGIN = 'HierarchicalNamespaces';

export class TenancyAdmission implements AdmissionPlugin {
  readonly name = TENANCY_ADMISSION_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/namespaces', `${HNC_GROUP}/subnamespaceanchors`, `${HNC_GROUP}/hierarchyconfigurations`]);

  constructor(private readonly view: TenancyView) {}

  async admit(a: AdmissionAttributes): Promise<void> {
    const key = `${a.resource.group}/${a.resource.resource}`;
    if (key === '/namespaces') admitNamespace(a, this.view);
    else if (key === `${HNC_GROUP}/subnamespaceanchors`) await admitAnchor(a, this.view);
    else if (key === `${HNC_GROUP}/hierarchyconfigurations`) await admitHierarchyConfiguration(a, this.view);
  }
}
