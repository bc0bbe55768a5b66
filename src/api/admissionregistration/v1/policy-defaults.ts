// Defaults of ValidatingAdmissionPolicy and its binding (upstream
// pkg/apis/admissionregistration/v1/defaults.go and the +default markers):
// failurePolicy Fail; in every MatchResources matchPolicy Equivalent and empty
// namespace/object selectors; in every rule scope "*".
import type { KubeObject } from '../../../machinery/meta.js';
import type { MatchResources, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from './policy-types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function defaultMatchResources(m: MatchResources): void {
  if (m.matchPolicy === undefined) m.matchPolicy = 'Equivalent';
  if (m.namespaceSelector === undefined || m.namespaceSelector === null) m.namespaceSelector = {};
  if (m.objectSelector === undefined || m.objectSelector === null) m.objectSelector = {};
  for (const rules of [m.resourceRules, m.excludeResourceRules]) {
    for (const r of Array.isArray(rules) ? rules : []) if (isObject(r) && (r.scope === undefined || r.scope === null)) r.scope = '*';
  }
}

export function defaultValidatingAdmissionPolicy(obj: KubeObject): void {
  const p = obj as ValidatingAdmissionPolicy;
  if (!isObject(p.spec)) return;
  if (p.spec.failurePolicy === undefined || p.spec.failurePolicy === null) p.spec.failurePolicy = 'Fail';
  if (isObject(p.spec.matchConstraints)) defaultMatchResources(p.spec.matchConstraints);
}

export function defaultValidatingAdmissionPolicyBinding(obj: KubeObject): void {
  const b = obj as ValidatingAdmissionPolicyBinding;
  if (!isObject(b.spec)) return;
  if (isObject(b.spec.matchResources)) defaultMatchResources(b.spec.matchResources);
}
