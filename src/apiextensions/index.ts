// apiextensions: CustomResourceDefinitions and the custom resources they
// define. The server registers `crdCatalogEntry()` beside the built-in
// catalog and runs a CustomResourceServing over the registry it builds.

import type { CatalogEntry } from '../registry/catalog-entry.js';
import type { Clock } from '../machinery/names.js';
import type { ValidationRuleCompiler } from './cel.js';
import { customResourceDefinitionStrategy } from './crd-strategy.js';
import { CRD_KIND, CRD_RESOURCE, GROUP, VERSION } from './types.js';

export { CustomResourceServing, type CustomResourceServingOptions } from './serving.js';
export type { ValidationRuleCompiler, CompiledValidationRules } from './cel.js';
export * from './types.js';

/** The customresourcedefinitions resource, as kube-apiserver 1.32's discovery shows it. */
export function crdCatalogEntry(options: { compiler?: ValidationRuleCompiler | undefined; clock?: Clock } = {}): CatalogEntry {
  const strategy = customResourceDefinitionStrategy(options);
  return {
    type: {
      group: GROUP,
      version: VERSION,
      resource: CRD_RESOURCE,
      kind: CRD_KIND,
      listKind: `${CRD_KIND}List`,
      singularName: 'customresourcedefinition',
      namespaced: false,
      verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      subresources: ['status'],
    },
    strategy,
    // Unknown fields are pruned from the schema registry (src/api/schema), as for every built-in.
  };
}
