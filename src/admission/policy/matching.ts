// Which requests a policy's matchConstraints (or a binding's matchResources)
// select, as upstream's policy/matching and webhook/rules: rules by operation,
// API group, version, resource/subresource, scope and resource names; exclude
// rules; the namespace and object label selectors; matchPolicy Equivalent
// (another served version of the same group/resource matches too).

import { labelSelectorFromMeta } from '../../machinery/labels.js';
import type { AdmissionAttributes } from '../../registry/admission.js';
import type { LabelSelector, MatchResources, NamedRuleWithOperations } from '../../api/admissionregistration/v1/policy-types.js';
import type { KubeObject } from '../../machinery/meta.js';

export interface MatchEnvironment {
  /** The labels of the request's namespace (undefined: not found). Cached per request by the caller. */
  namespaceLabels(): Promise<Record<string, string> | undefined>;
  /** The versions the server serves of group/resource (for matchPolicy Equivalent). */
  servedVersions(group: string, resource: string): readonly string[];
}

const selectorCache = new WeakMap<object, ReturnType<typeof labelSelectorFromMeta>>();
function selectorOf(sel: LabelSelector): ReturnType<typeof labelSelectorFromMeta> {
  let s = selectorCache.get(sel);
  if (s === undefined) {
    s = labelSelectorFromMeta(sel);
    selectorCache.set(sel, s);
  }
  return s;
}

function isEmptySelector(sel: LabelSelector | undefined): boolean {
  return sel === undefined || sel === null || (Object.keys(sel.matchLabels ?? {}).length === 0 && (sel.matchExpressions ?? []).length === 0);
}

function ruleMatches(r: NamedRuleWithOperations, a: AdmissionAttributes, version: string): boolean {
  const ops = r.operations ?? [];
  if (!ops.includes('*') && !ops.includes(a.operation)) return false;
  const groups = r.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(a.resource.group)) return false;
  const versions = r.apiVersions ?? [];
  if (!versions.includes('*') && !versions.includes(version)) return false;
  let resourceMatch = false;
  for (const rs of r.resources ?? []) {
    const slash = rs.indexOf('/');
    const res = slash < 0 ? rs : rs.slice(0, slash);
    const sub = slash < 0 ? '' : rs.slice(slash + 1);
    if ((res === '*' || res === a.resource.resource) && (sub === '*' || sub === a.subresource)) {
      resourceMatch = true;
      break;
    }
  }
  if (!resourceMatch) return false;
  const scope = r.scope ?? '*';
  if (scope === 'Cluster' && a.namespace !== '') return false;
  if (scope === 'Namespaced' && a.namespace === '') return false;
  const names = r.resourceNames ?? [];
  if (names.length > 0 && !names.includes(a.name)) return false;
  return true;
}

function rulesMatch(rules: NamedRuleWithOperations[] | undefined, matchPolicy: string | undefined, a: AdmissionAttributes, env: MatchEnvironment): boolean {
  for (const r of rules ?? []) {
    if (ruleMatches(r, a, a.resource.version)) return true;
  }
  if (matchPolicy !== 'Exact') {
    // Equivalent: the same resource under another served version.
    for (const v of env.servedVersions(a.resource.group, a.resource.resource)) {
      if (v === a.resource.version) continue;
      for (const r of rules ?? []) if (ruleMatches(r, a, v)) return true;
    }
  }
  return false;
}

function objectLabels(o: KubeObject | undefined): Record<string, string> | undefined {
  return o?.metadata?.labels;
}

/** Upstream's Matcher.Matches: namespace selector, object selector, exclude rules, then rules (none: everything). */
export async function matchResources(m: MatchResources, a: AdmissionAttributes, env: MatchEnvironment): Promise<boolean> {
  if (!isEmptySelector(m.namespaceSelector)) {
    const isNamespace = a.resource.group === '' && a.resource.resource === 'namespaces';
    if (isNamespace) {
      if (!selectorOf(m.namespaceSelector!).matches(objectLabels(a.object ?? a.oldObject) ?? {})) return false;
    } else if (a.namespace !== '') {
      const labels = await env.namespaceLabels();
      if (!selectorOf(m.namespaceSelector!).matches(labels ?? {})) return false;
    }
  }
  if (!isEmptySelector(m.objectSelector)) {
    const sel = selectorOf(m.objectSelector!);
    const hit = (a.object !== undefined && sel.matches(objectLabels(a.object) ?? {})) || (a.oldObject !== undefined && sel.matches(objectLabels(a.oldObject) ?? {}));
    if (!hit) return false;
  }
  if ((m.excludeResourceRules ?? []).length > 0 && rulesMatch(m.excludeResourceRules, m.matchPolicy, a, env)) return false;
  if ((m.resourceRules ?? []).length === 0) return true;
  return rulesMatch(m.resourceRules, m.matchPolicy, a, env);
}
