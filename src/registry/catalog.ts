// The built-in resources apiary serves: every group's entries
// (registry/<group>/index.ts), groups in the order discovery lists them
// (kube-apiserver 1.32 registration order). Adding a resource = its type
// folder under api/, its strategy file and one entry in its group's index
// (see README.md here); a new group = its folder and one line below.

import type { CatalogEntry, RegistryContext } from './catalog-entry.js';
import type { RESTStore } from './rest.js';
import type { StrategyContext } from './strategy.js';
import { coreEntries, coreUnstoredStores } from './core/index.js';
import { appsEntries } from './apps/index.js';
import { batchEntries } from './batch/index.js';
import { autoscalingEntries } from './autoscaling/index.js';
import { policyEntries } from './policy/index.js';
import { coordinationEntries } from './coordination/index.js';
import { eventsEntries } from './events/index.js';
import { rbacEntries } from './rbac/index.js';
import { admissionregistrationEntries } from './admissionregistration/index.js';
import { networkingEntries } from './networking/index.js';
import { discoveryEntries } from './discovery/index.js';
import { storageEntries } from './storage/index.js';
import { schedulingEntries } from './scheduling/index.js';
import { nodeEntries } from './node/index.js';
import { certificatesEntries } from './certificates/index.js';
import { flowcontrolEntries } from './flowcontrol/index.js';
import { hncEntries } from './hnc/index.js';

export type { CatalogEntry } from './catalog-entry.js';

const GROUPS: ((ctx: StrategyContext) => CatalogEntry[])[] = [
  coreEntries,
  appsEntries,
  batchEntries,
  autoscalingEntries,
  policyEntries,
  coordinationEntries,
  eventsEntries,
  rbacEntries,
  admissionregistrationEntries,
  networkingEntries,
  discoveryEntries,
  storageEntries,
  schedulingEntries,
  nodeEntries,
  certificatesEntries,
  flowcontrolEntries,
  // Beyond kube-apiserver: HNC's hierarchical namespaces (src/tenancy/).
  hncEntries,
];

/** Every built-in entry, built for one registry (its clock and uid source reach the strategies that need them). */
export function builtInCatalog(ctx: StrategyContext): CatalogEntry[] {
  const entries = GROUPS.flatMap((group) => group(ctx));
  // An entry stored as another one's objects is stored in that one's group, version and kind.
  for (const e of entries) {
    if (e.storedAs === undefined) continue;
    const { group, resource } = e.storedAs;
    const stored = entries.find((s) => s.type.group === group && s.type.resource === resource);
    if (stored === undefined) throw new Error(`catalog: ${e.type.resource}.${e.type.group} is stored as unknown ${resource}.${group}`);
    e.type.storageVersion = { group, version: stored.type.version, kind: stored.type.kind };
  }
  return entries;
}

/** The built-in resources served without storage of their own (served after the catalog's stores, once they exist). */
export function builtInUnstoredStores(ctx: RegistryContext): RESTStore[] {
  return coreUnstoredStores(ctx);
}
