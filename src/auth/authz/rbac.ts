// The RBAC authorizer (upstream plugin/pkg/auth/authorizer/rbac/rbac.go and
// pkg/registry/rbac/validation/rule.go): a request is allowed when a rule of a
// role bound to the user allows it — ClusterRoleBindings first, then the
// RoleBindings of the request's namespace. A binding naming a missing role
// grants nothing; the miss becomes the refusal's reason ("RBAC: …") as upstream.
//
// Members of system:masters are allowed everything before RBAC is asked
// (kube-apiserver's privileged-groups authorizer).
//
// Decisions are cached per user and request shape; the cache is dropped
// whenever an RBAC object changes (the source calls invalidate()).
//
// Hierarchical namespaces: the server may hand in `bindingNamespaces`, the
// namespaces whose RoleBindings apply in a namespace (itself, then its
// ancestors), and `isPropagatedCopy`, which marks the copies of ancestors'
// bindings written into descendants: those grant nothing of their own (their
// source already applies), so a binding never counts twice and a removed
// source stops granting at once. An inherited binding reads its Role as the
// namespace shows it: a local Role of that name (never overwritten by the
// ancestor's) wins over the ancestor's. This module knows nothing of the hierarchy
// itself; the server calls invalidate() when the tree changes.

import { SYSTEM_PRIVILEGED_GROUP, type UserInfo } from '../../machinery/user.js';
import type { ClusterRole, PolicyRule, Role, RoleBinding, RoleRef, Subject } from '../../api/rbac/v1/types.js';
import type { Attributes, Decision } from './attributes.js';
import { ruleAllows, subjectMatches } from './rules.js';

/** Where RBAC objects are read from (the server keeps them in memory, fed by watches). */
export interface RbacSource {
  clusterRoleBindings(): Iterable<RoleBinding>;
  roleBindings(namespace: string): Iterable<RoleBinding>;
  role(namespace: string, name: string): Role | undefined;
  clusterRole(name: string): ClusterRole | undefined;
  /** Every RoleBinding of every namespace (the namespaces a user may see). */
  allRoleBindings?(): Iterable<RoleBinding>;
}

export interface Authorizer {
  authorize(a: Attributes): Decision;
}

/** How RoleBindings of other namespaces come to apply in a namespace (hierarchical namespaces). */
export interface BindingScope {
  /** The namespaces whose RoleBindings apply in `namespace`: `namespace` first, then its ancestors, nearest first. */
  bindingNamespaces(namespace: string): readonly string[];
  /** True for a binding (or Role) that is a propagated copy of one that applies through bindingNamespaces (it grants nothing itself). */
  isPropagatedCopy(object: RoleBinding | Role): boolean;
}

/** Each namespace's own RoleBindings only: upstream's RBAC. */
export const FLAT_BINDING_SCOPE: BindingScope = {
  bindingNamespaces: (namespace) => [namespace],
  isPropagatedCopy: () => false,
};

const MAX_CACHED_DECISIONS = 50_000;

export class RbacAuthorizer implements Authorizer {
  private readonly source: RbacSource;
  private cache = new Map<string, Decision>();
  private scope: BindingScope = FLAT_BINDING_SCOPE;
  private generationCount = 0;

  constructor(source: RbacSource) {
    this.source = source;
  }

  private readonly invalidationListeners = new Set<() => void>();

  /** Drops every cached decision (an RBAC object or the namespace tree changed). */
  invalidate(): void {
    this.generationCount++;
    if (this.cache.size > 0) this.cache = new Map();
    for (const listener of this.invalidationListeners) listener();
  }

  /** Calls `listener` after every invalidate() (decisions may have changed); returns the unsubscribe. */
  onInvalidate(listener: () => void): () => void {
    this.invalidationListeners.add(listener);
    return () => this.invalidationListeners.delete(listener);
  }

  /** Counts invalidations: what a caller caching answers of its own compares. */
  get generation(): number {
    return this.generationCount;
  }

  /** Sets how bindings of ancestors apply (the server's hierarchy); drops cached decisions. */
  setBindingScope(scope: BindingScope): void {
    this.scope = scope;
    this.invalidate();
  }

  authorize(a: Attributes): Decision {
    if (a.user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) return { allowed: true, reason: '' };
    const key = cacheKey(a);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    const decision = this.evaluate(a);
    if (this.cache.size >= MAX_CACHED_DECISIONS) this.cache = new Map();
    this.cache.set(key, decision);
    return decision;
  }

  private evaluate(a: Attributes): Decision {
    const errors: string[] = [];
    let allowed = false;
    let source = '';
    this.visitRules(a.user, a.namespace, (rules, err, describe) => {
      if (err !== undefined) {
        errors.push(err);
        return true;
      }
      for (const rule of rules) {
        if (ruleAllows(a, rule)) {
          allowed = true;
          source = describe?.() ?? '';
          return false;
        }
      }
      return true;
    });
    if (allowed) return { allowed: true, reason: `RBAC: allowed by ${source}` };
    return { allowed: false, reason: errors.length === 0 ? '' : `RBAC: ${errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`}` };
  }

  /** The rules of a role reference, or the NotFound text when the role is missing. */
  roleRefRules(ref: RoleRef, bindingNamespace: string): { rules: PolicyRule[] } | { error: string } {
    if (ref.kind === 'Role') {
      const role = this.source.role(bindingNamespace, ref.name);
      if (role === undefined) return { error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
      return { rules: role.rules ?? [] };
    }
    if (ref.kind === 'ClusterRole') {
      const role = this.source.clusterRole(ref.name);
      if (role === undefined) return { error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name)} not found` };
      return { rules: role.rules ?? [] };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind)}` };
  }

  /**
   * Where an inherited binding's Role is read: as its copy in the namespace
   * would read it, the Role of that name the namespace shows. A Role of the
   * namespace itself or of a nearer ancestor that is not a propagated copy
   * (a local object the ancestor's Role does not overwrite) wins; else the
   * binding's own namespace, whose Role the copies mirror (read there, a new
   * Role applies before its copies are written).
   */
  private inheritedRoleNamespace(ref: RoleRef, bindingNamespaces: readonly string[], bindingIndex: number): string {
    if (ref.kind !== 'Role') return bindingNamespaces[bindingIndex]!;
    for (let j = 0; j < bindingIndex; j++) {
      const role = this.source.role(bindingNamespaces[j]!, ref.name);
      if (role !== undefined && !this.scope.isPropagatedCopy(role)) return bindingNamespaces[j]!;
    }
    return bindingNamespaces[bindingIndex]!;
  }

  /** Calls visit with each bound role's rules (or an error) until it returns false (upstream's VisitRulesFor). */
  visitRules(user: UserInfo, namespace: string, visit: (rules: PolicyRule[], err?: string, describe?: () => string) => boolean): void {
    for (const binding of this.source.clusterRoleBindings()) {
      const subject = (binding.subjects ?? []).find((s) => subjectMatches(s, user, ''));
      if (subject === undefined) continue;
      const r = this.roleRefRules(binding.roleRef, '');
      const describe = (): string =>
        `ClusterRoleBinding ${JSON.stringify(binding.metadata.name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(subject, '')}`;
      if (!('rules' in r ? visit(r.rules, undefined, describe) : visit([], r.error))) return;
    }
    if (namespace === '') return;
    const scope = this.scope;
    const bindingNamespaces = scope.bindingNamespaces(namespace);
    for (let i = 0; i < bindingNamespaces.length; i++) {
      const bindingNamespace = bindingNamespaces[i]!;
      for (const binding of this.source.roleBindings(bindingNamespace)) {
        if (scope.isPropagatedCopy(binding)) continue;
        // A ServiceAccount subject without a namespace names the account of the namespace the binding applies
        // in (as in the copy HNC would write there), so `namespace`, not the binding's own.
        const subject = (binding.subjects ?? []).find((s) => subjectMatches(s, user, namespace));
        if (subject === undefined) continue;
        const r = this.roleRefRules(binding.roleRef, i === 0 ? bindingNamespace : this.inheritedRoleNamespace(binding.roleRef, bindingNamespaces, i));
        const describe = (): string =>
          `RoleBinding ${JSON.stringify(`${binding.metadata.name}/${bindingNamespace}`)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${describeSubject(subject, namespace)}`;
        if (!('rules' in r ? visit(r.rules, undefined, describe) : visit([], r.error))) return;
      }
    }
  }

  /**
   * Where the user may do something by RoleBindings (not propagated copies)
   * that bind it to a role with at least one rule: `inherited` holds the
   * namespaces of bindings that also grant in their descendants (subjects
   * naming the user, its groups, or a service account with its namespace);
   * `local` the namespaces a binding grants in alone (a ServiceAccount
   * subject without a namespace names the account of the namespace the
   * binding applies in, so it grants this service account in its own
   * namespace only).
   */
  namespacesWithGrants(user: UserInfo): { inherited: Set<string>; local: Set<string> } {
    const inherited = new Set<string>();
    const local = new Set<string>();
    const ownNamespace = serviceAccountNamespace(user);
    for (const binding of this.source.allRoleBindings?.() ?? []) {
      const namespace = binding.metadata.namespace ?? '';
      if (inherited.has(namespace) || this.scope.isPropagatedCopy(binding)) continue;
      const subjects = binding.subjects ?? [];
      const everywhere = subjects.some((s) => (s.kind !== 'ServiceAccount' || !!s.namespace) && subjectMatches(s, user, namespace));
      const here =
        !everywhere &&
        ownNamespace !== undefined &&
        this.scope.bindingNamespaces(ownNamespace).includes(namespace) &&
        subjects.some((s) => s.kind === 'ServiceAccount' && !s.namespace && subjectMatches(s, user, ownNamespace));
      if (!everywhere && !here) continue;
      const r = this.roleRefRules(binding.roleRef, namespace);
      if (!('rules' in r && r.rules.some((rule) => (rule.verbs ?? []).length > 0 && (rule.resources ?? []).length > 0))) continue;
      if (everywhere) inherited.add(namespace);
      else local.add(ownNamespace!);
    }
    return { inherited, local };
  }

  /** The namespaces whose RoleBindings apply in `namespace` (the binding scope's answer). */
  bindingNamespaces(namespace: string): readonly string[] {
    return this.scope.bindingNamespaces(namespace);
  }

  /** Every rule that applies to the user in a namespace, and the evaluation errors (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    if (user.groups.includes(SYSTEM_PRIVILEGED_GROUP)) {
      rules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] });
    }
    this.visitRules(user, namespace, (r, err) => {
      if (err !== undefined) errors.push(err);
      else rules.push(...r);
      return true;
    });
    return { rules, errors };
  }
}

/** The namespace of a service account user (system:serviceaccount:<ns>:<name>), else undefined. */
function serviceAccountNamespace(user: UserInfo): string | undefined {
  const m = /^system:serviceaccount:([^:]+):[^:]+$/.exec(user.name);
  return m === null ? undefined : m[1];
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') return `${s.kind} ${JSON.stringify(`${s.name}/${s.namespace || bindingNamespace}`)}`;
  return `${s.kind} ${JSON.stringify(s.name)}`;
}

/** The user's part of a decision's cache key, made once per UserInfo object (authentication hands the same one to every request of a credential). */
const USER_KEYS = new WeakMap<UserInfo, string>();

function cacheKey(a: Attributes): string {
  let user = USER_KEYS.get(a.user);
  if (user === undefined) {
    user = `${a.user.name}\u0000${a.user.groups.join('\u0001')}`;
    USER_KEYS.set(a.user, user);
  }
  // \u0000 cannot occur in any of these (names, groups and paths are validated or come from URLs).
  const path = a.isResourceRequest ? '' : a.path;
  return `${user}\u0000${a.verb}\u0000${path}\u0000${a.namespace}\u0000${a.apiGroup}\u0000${a.resource}\u0000${a.subresource}\u0000${a.name}`;
}

/** Allows everything (--authorization-mode=AlwaysAllow). */
export const alwaysAllow: Authorizer = { authorize: () => ({ allowed: true, reason: '' }) };
