// hnc.x-k8s.io/v1alpha2 validation: what HNC's CRD schemas and webhooks refuse
// on the objects themselves (the rules that need the tree, such as cycles and
// rights, are admission's, in src/tenancy/).
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, GoValue, fieldErrors } from '../../../machinery/field-errors.js';
import { validateResourceQuota } from '../../core/v1/quota-validation.js';
import {
  ANCHOR_STATES,
  ENFORCED_TYPES,
  HIERARCHY_SINGLETON,
  HNC_CONFIG_SINGLETON,
  SYNCHRONIZATION_MODES,
  type HierarchyConfiguration,
  type HNCConfiguration,
  type MetaKVP,
  type SubnamespaceAnchor,
} from './types.js';

function validateKVPs(list: MetaKVP[] | undefined, path: string): FieldError[] {
  const errs: FieldError[] = [];
  (list ?? []).forEach((kvp, i) => {
    if (typeof kvp?.key !== 'string') errs.push(fieldErrors.required(`${path}[${i}].key`));
    if (typeof kvp?.value !== 'string') errs.push(fieldErrors.required(`${path}[${i}].value`));
  });
  return errs;
}

export function validateHierarchyConfiguration(obj: KubeObject): FieldError[] {
  const hc = obj as HierarchyConfiguration;
  const errs: FieldError[] = [];
  // HNC's webhook: the singleton is the only HierarchyConfiguration a namespace may hold.
  if (obj.metadata.name !== HIERARCHY_SINGLETON) {
    errs.push(fieldErrors.invalid('metadata.name', obj.metadata.name, `wrong name; only '${HIERARCHY_SINGLETON}' is allowed`));
  }
  errs.push(...validateKVPs(hc.spec?.labels, 'spec.labels'), ...validateKVPs(hc.spec?.annotations, 'spec.annotations'));
  return errs;
}

export function validateSubnamespaceAnchor(obj: KubeObject): FieldError[] {
  const anchor = obj as SubnamespaceAnchor;
  const errs = [...validateKVPs(anchor.spec?.labels, 'spec.labels'), ...validateKVPs(anchor.spec?.annotations, 'spec.annotations')];
  const state = anchor.status?.status;
  if (state !== undefined && !ANCHOR_STATES.includes(state)) errs.push(fieldErrors.notSupported('status.status', state, [...ANCHOR_STATES]));
  return errs;
}

export function validateHNCConfiguration(obj: KubeObject): FieldError[] {
  const config = obj as HNCConfiguration;
  const errs: FieldError[] = [];
  if (obj.metadata.name !== HNC_CONFIG_SINGLETON) {
    errs.push(fieldErrors.invalid('metadata.name', obj.metadata.name, `wrong name; only '${HNC_CONFIG_SINGLETON}' is allowed`));
  }
  const seen = new Set<string>();
  (config.spec?.resources ?? []).forEach((r, i) => {
    const path = `spec.resources[${i}]`;
    if (typeof r?.resource !== 'string' || r.resource === '') errs.push(fieldErrors.required(`${path}.resource`));
    else {
      // HNC's webhook: RBAC kinds always propagate; one entry per kind (the group/resource printed as Go's GroupResource).
      const group = r.group ?? '';
      const gr = new GoValue(group === '' ? r.resource : `${r.resource}.${group}`);
      if (ENFORCED_TYPES.some((t) => t.group === group && t.resource === r.resource)) {
        errs.push(fieldErrors.invalid(path, gr, "always uses the 'Propagate' mode and cannot be configured"));
      }
      if (seen.has(`${group}/${r.resource}`)) errs.push(fieldErrors.duplicate(path, gr));
      seen.add(`${group}/${r.resource}`);
    }
    // The CRD's enum: Propagate, Ignore, Remove, AllowPropagate (empty means Propagate).
    if (r?.mode !== undefined && (r.mode as string) !== '' && !SYNCHRONIZATION_MODES.includes(r.mode)) {
      errs.push(fieldErrors.notSupported(`${path}.mode`, r.mode, [...SYNCHRONIZATION_MODES]));
    }
  });
  (config.status?.resources ?? []).forEach((r, i) => {
    for (const field of ['numPropagatedObjects', 'numSourceObjects'] as const) {
      const v = r?.[field];
      if (v !== undefined && v !== null && v < 0) errs.push(fieldErrors.invalid(`status.resources[${i}].${field}`, v, 'should be greater than or equal to 0'));
    }
  });
  return errs;
}

/** spec.hard, status.hard and status.used hold ResourceQuota's resource names and quantities. */
export function validateHierarchicalResourceQuota(obj: KubeObject): FieldError[] {
  return validateResourceQuota(obj);
}
