// Whether a webhook is called for a request (upstream's webhook/generic
// ShouldCallHook with predicates/rules, predicates/namespace,
// predicates/object and matchconditions): namespaceSelector, objectSelector,
// then the rules (matchPolicy Exact; Equivalent adds nothing for kinds served
// in one version), then the matchConditions.

import type { RuleWithOperations } from '../../api/admissionregistration/v1/types.js';
import { compileMatchCondition } from '../../api/admissionregistration/v1/match-conditions.js';
import { CelEvaluationError, jsonToCel } from '../../machinery/cel/index.js';
import { StatusError, forbidden, internalError } from '../../machinery/errors.js';
import type { AdmissionAttributes } from '../../registry/admission.js';
import type { ConfiguredWebhook } from './configuration.js';

/** Resources webhooks never see: their own configurations and the policies (upstream's IsExemptAdmissionConfigurationResource). */
export function isExemptResource(a: AdmissionAttributes): boolean {
  if (a.kind.group !== 'admissionregistration.k8s.io') return false;
  return /^(Validating|Mutating)(WebhookConfiguration|AdmissionPolicy|AdmissionPolicyBinding)$/.test(a.kind.kind);
}

function exactOrWildcard(items: readonly string[] | undefined, value: string): boolean {
  for (const i of items ?? []) if (i === '*' || i === value) return true;
  return false;
}

export function ruleMatches(rule: RuleWithOperations, a: AdmissionAttributes): boolean {
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  const scope = rule.scope ?? '*';
  if (scope === 'Namespaced' && (isNamespace || a.namespace === '')) return false;
  if (scope === 'Cluster' && !(isNamespace || a.namespace === '')) return false;
  if (!exactOrWildcard(rule.operations, a.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, a.resource.group)) return false;
  if (!exactOrWildcard(rule.apiVersions, a.resource.version)) return false;
  for (const entry of rule.resources ?? []) {
    const slash = entry.indexOf('/');
    const res = slash < 0 ? entry : entry.slice(0, slash);
    const sub = slash < 0 ? '' : entry.slice(slash + 1);
    if ((res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource)) return true;
  }
  return false;
}

/** The labels the namespaceSelector is matched against: the namespace's (a namespace's own, for namespaces). */
export type NamespaceLabels = (name: string) => Promise<Record<string, string> | undefined>;

async function namespaceMatches(w: ConfiguredWebhook, a: AdmissionAttributes, labelsOf: NamespaceLabels): Promise<boolean> {
  const sel = w.namespaceSelector;
  if (sel instanceof Error) throw internalError(sel);
  if (sel.empty()) return true;
  const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
  if (isNamespace) return sel.matches((a.object ?? a.oldObject)?.metadata?.labels ?? {});
  // Cluster-scoped resources are not in a namespace: the selector does not apply.
  if (a.namespace === '') return true;
  return sel.matches((await labelsOf(a.namespace)) ?? {});
}

function objectMatches(w: ConfiguredWebhook, a: AdmissionAttributes): boolean {
  const sel = w.objectSelector;
  if (sel instanceof Error) throw internalError(sel);
  if (sel.empty()) return true;
  const matchesObj = (o: AdmissionAttributes['object']): boolean => o !== undefined && sel.matches(o.metadata?.labels ?? {});
  return matchesObj(a.object) || matchesObj(a.oldObject);
}

/** Evaluates matchConditions; false when one is false; errors decided by the failure policy. */
function conditionsMatch(w: ConfiguredWebhook, a: AdmissionAttributes, request: unknown): boolean {
  const conditions = w.hook.matchConditions ?? [];
  if (conditions.length === 0) return true;
  const activation = {
    object: a.object === undefined ? null : jsonToCel(a.object),
    oldObject: a.oldObject === undefined ? null : jsonToCel(a.oldObject),
    request: jsonToCel(request),
    authorizer: null,
  };
  const errors: string[] = [];
  for (const c of conditions) {
    const compiled = compileMatchCondition(c.expression);
    if (typeof compiled === 'string') {
      errors.push(compiled);
      continue;
    }
    try {
      if (compiled.evaluate(activation) === false) return false;
    } catch (err) {
      const text = err instanceof CelEvaluationError || err instanceof Error ? err.message : String(err);
      errors.push(`expression '${c.expression}' resulted in error: ${text}`);
    }
  }
  if (errors.length === 0) return true;
  if ((w.hook.failurePolicy ?? 'Fail') === 'Ignore') return false;
  const text = errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]`;
  throw forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, text);
}

/**
 * Whether to call `w` for `a`. `request` is the AdmissionRequest the
 * matchConditions see (built only when a webhook has conditions).
 */
export async function shouldCall(
  w: ConfiguredWebhook,
  a: AdmissionAttributes,
  labelsOf: NamespaceLabels,
  request: () => unknown,
): Promise<boolean> {
  let nsError: unknown;
  let nsMatches = true;
  try {
    nsMatches = await namespaceMatches(w, a, labelsOf);
  } catch (err) {
    nsError = err;
  }
  if (!nsMatches) return false;
  let objError: unknown;
  let objMatches = true;
  try {
    objMatches = objectMatches(w, a);
  } catch (err) {
    objError = err;
  }
  if (!objMatches) return false;
  if (!(w.hook.rules ?? []).some((r) => ruleMatches(r, a))) return false;
  if (nsError !== undefined) throw nsError instanceof StatusError ? nsError : internalError(nsError);
  if (objError !== undefined) throw objError;
  return conditionsMatch(w, a, request());
}
