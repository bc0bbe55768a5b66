// Escalation prevention on RBAC writes (upstream pkg/registry/rbac/*/policybased
// and pkg/registry/rbac/validation/rule.go): a user may create or change a
// Role or ClusterRole only with rules they already hold (or with the
// `escalate` verb on it), and bind a role only if they hold its rules (or have
// `bind` on it). Members of system:masters may do anything. Refusals are 403s
// with upstream's message; nothing is written.

import { forbidden, notFound } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import { SYSTEM_PRIVILEGED_GROUP, type UserInfo } from '../machinery/user.js';
import type { ClusterRole, PolicyRule, RoleBinding } from '../api/rbac/v1/types.js';
import type { Authorizer, RbacAuthorizer } from '../auth/authz/rbac.js';
import type { RESTStore, WriteOptions } from '../registry/rest.js';
import { deepCopy } from '../machinery/deep-copy.js';

const GROUP = 'rbac.authorization.k8s.io';

/** One verb, group, resource and name per rule (upstream's BreakdownRule). */
function breakdown(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else for (const name of names) out.push({ apiGroups: [group], resources: [resource], resourceNames: [name], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const has = (list: string[] | undefined, v: string): boolean => (list ?? []).includes(v);

function resourceCovers(owner: string[], resource: string): boolean {
  if (has(owner, '*') || has(owner, resource)) return true;
  const slash = resource.indexOf('/');
  return slash >= 0 && has(owner, `*/${resource.slice(slash + 1)}`);
}

function urlCovers(owner: string[], url: string): boolean {
  return owner.some((o) => o === '*' || o === url || (o.endsWith('*') && url.startsWith(o.slice(0, -1))));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verb = sub.verbs[0]!;
  if (!has(owner.verbs, '*') && !has(owner.verbs, verb)) return false;
  if ((sub.nonResourceURLs ?? []).length > 0) return urlCovers(owner.nonResourceURLs ?? [], sub.nonResourceURLs![0]!);
  const group = sub.apiGroups![0]!;
  if (!has(owner.apiGroups, '*') && !has(owner.apiGroups, group)) return false;
  if (!resourceCovers(owner.resources ?? [], sub.resources![0]!)) return false;
  const ownerNames = owner.resourceNames ?? [];
  if (ownerNames.length === 0) return true;
  const subNames = sub.resourceNames ?? [];
  return subNames.length > 0 && subNames.every((n) => ownerNames.includes(n));
}

/** The broken-down rules of `servant` that no rule of `owner` covers (upstream's validation.Covers). */
export function uncoveredRules(owner: readonly PolicyRule[], servant: readonly PolicyRule[]): PolicyRule[] {
  return servant.flatMap(breakdown).filter((sub) => !owner.some((o) => ruleCovers(o, sub)));
}

/** Go's %q of a []string: ["a" "b"]. */
function goQuoteList(list: string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

/** Upstream's CompactString of a rule. */
function compact(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoteList(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuoteList(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoteList(rule.nonResourceURLs!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoteList(rule.resourceNames!)}`);
  if ((rule.verbs ?? []).length > 0) parts.push(`Verbs:${goQuoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Upstream's CompactRules: single group/resource rules without names that differ only by verb become one. */
function compactRules(rules: PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const byResource = new Map<string, PolicyRule>();
  for (const r of rules) {
    const simple = (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1 && (r.resourceNames ?? []).length === 0 && (r.nonResourceURLs ?? []).length === 0;
    if (!simple) {
      out.push(r);
      continue;
    }
    const k = `${r.apiGroups![0]}\u0000${r.resources![0]}`;
    const existing = byResource.get(k);
    if (existing === undefined) {
      const copy = { apiGroups: [...r.apiGroups!], resources: [...r.resources!], verbs: [...r.verbs] };
      byResource.set(k, copy);
      out.push(copy);
    } else {
      for (const v of r.verbs) if (!existing.verbs.includes(v)) existing.verbs.push(v);
    }
  }
  return out;
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export class EscalationChecker {
  constructor(
    private readonly authorizer: Authorizer,
    private readonly rbac: RbacAuthorizer,
  ) {}

  /** The error text when `rules` are not all held by the user in the namespace, else undefined. */
  missingRules(user: UserInfo, namespace: string, rules: PolicyRule[]): string | undefined {
    const owned = this.rbac.rulesFor(user, namespace);
    const missing: PolicyRule[] = [];
    for (const rule of rules) for (const sub of breakdown(rule)) if (!owned.rules.some((o) => ruleCovers(o, sub))) missing.push(sub);
    if (missing.length === 0) return undefined;
    const descriptions = [...new Set(compactRules(missing).map(compact))].sort();
    let msg = `user ${JSON.stringify(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${descriptions.join('\n')}`;
    if (owned.errors.length > 0) msg += `; resolution errors: [${owned.errors.join(' ')}]`;
    return msg;
  }

  private allowed(user: UserInfo, verb: string, resource: string, namespace: string, name: string): boolean {
    return this.authorizer.authorize({
      user,
      verb,
      isResourceRequest: true,
      path: '',
      namespace,
      apiGroup: GROUP,
      apiVersion: 'v1',
      resource,
      subresource: '',
      name,
    }).allowed;
  }

  /** Throws Forbidden when writing this role would escalate. */
  checkRole(resource: 'roles' | 'clusterroles', namespace: string, obj: KubeObject, user: UserInfo | undefined): void {
    if (user === undefined || user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return;
    if (this.allowed(user, 'escalate', resource, namespace, '')) return;
    const role = obj as ClusterRole;
    const missing = this.missingRules(user, namespace, role.rules ?? []);
    const gr = { group: GROUP, resource };
    if (missing !== undefined) throw forbidden(gr, role.metadata.name ?? '', missing);
    if (resource === 'clusterroles' && role.aggregationRule != null && this.missingRules(user, '', FULL_AUTHORITY) !== undefined) {
      throw forbidden(gr, role.metadata.name ?? '', 'must have cluster-admin privileges to use the aggregationRule');
    }
  }

  /** Throws Forbidden when this binding would grant what the user does not hold. */
  checkBinding(resource: 'rolebindings' | 'clusterrolebindings', namespace: string, obj: KubeObject, user: UserInfo | undefined): void {
    if (user === undefined || user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return;
    const binding = obj as RoleBinding;
    const ref = binding.roleRef ?? { apiGroup: GROUP, kind: '', name: '' };
    const roleResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
    if (this.allowed(user, 'bind', roleResource, namespace, ref.name)) return;
    const gr = { group: GROUP, resource };
    const rules = this.rbac.roleRefRules(ref, namespace);
    // Upstream answers a binding to a missing role with a NotFound naming the role under the binding's resource.
    if ('error' in rules) throw notFound(gr, ref.name);
    const missing = this.missingRules(user, namespace, rules.rules);
    if (missing !== undefined) throw forbidden(gr, binding.metadata.name ?? '', missing);
  }
}

/** The RBAC stores with escalation checks in front of their writes. */
export function guardRbacStores(stores: RESTStore[], checker: EscalationChecker): RESTStore[] {
  return stores.map((store) => {
    const { group, resource } = store.type;
    if (group !== GROUP) return store;
    const check = (namespace: string, obj: KubeObject, options: WriteOptions): void => {
      if (resource === 'roles' || resource === 'clusterroles') checker.checkRole(resource, namespace, obj, options.user);
      else if (resource === 'rolebindings' || resource === 'clusterrolebindings') checker.checkBinding(resource, namespace, obj, options.user);
    };
    const guarded: RESTStore = {
      type: store.type,
      get: (namespace, name, options) => store.get(namespace, name, options),
      getCached: (namespace, name) => store.getCached(namespace, name),
      list: (namespace, options) => store.list(namespace, options),
      delete: (namespace, name, options) => store.delete(namespace, name, options),
      deleteCollection: (namespace, list, options) => store.deleteCollection(namespace, list, options),
      watch: (namespace, options, sink) => store.watch(namespace, options, sink),
      create: (namespace, obj, options) => {
        check(namespace, obj, options);
        return store.create(namespace, obj, options);
      },
      update: (namespace, name, obj, options) => {
        check(namespace, obj, options);
        return store.update(namespace, name, obj, options);
      },
      patch: () => Promise.reject(new Error('unreachable')),
    };
    if (store.apply !== undefined) {
      const apply = store.apply.bind(store);
      // Server-side apply: the configuration is checked before the merge (what it sets is what it grants;
      // rules other managers own were checked when they were written; roleRef cannot change).
      guarded.apply = async (namespace, name, config, options) => {
        const probe = deepCopy(config) as unknown as KubeObject;
        probe.metadata = { ...((config['metadata'] as KubeObject['metadata'] | undefined) ?? {}), name };
        if ((resource === 'rolebindings' || resource === 'clusterrolebindings') && probe['roleRef'] === undefined) {
          try {
            probe['roleRef'] = (await store.get(namespace, name, {}))['roleRef'];
          } catch {
            // A new binding without roleRef fails validation anyway.
          }
        }
        if (resource === 'roles' || resource === 'clusterroles' || probe['roleRef'] !== undefined) check(namespace, probe, options);
        return apply(namespace, name, config, options);
      };
    }
    guarded.patch = (namespace, name, patch, options) =>
      store.patch(
        namespace,
        name,
        async (current) => {
          const next = await patch(current);
          check(namespace, next, options);
          return next;
        },
        options,
      );
    return guarded;
  });
}
