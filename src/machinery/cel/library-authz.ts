// The Kubernetes authorizer library of CEL (upstream k8s.io/apiserver/pkg/cel/library/authz.go),
// as ValidatingAdmissionPolicy declares it in the variable `authorizer`:
//   authorizer.group('apps').resource('deployments').namespace('ns').name('x').check('delete').allowed()
//   authorizer.path('/healthz').check('get').allowed()
//   authorizer.serviceAccount('ns', 'sa').group('').resource('pods').check('list').reason()
//   authorizer.requestResource.check('custom-verb').allowed()
// The checks call an authorization function the caller provides (synchronous), for the
// request's user or the named service account.

import type { Environment } from '@marcbachmann/cel-js';
import type { UserInfo } from '../user.js';

/** What is asked of the authorizer (the shape of upstream's authorizer.Attributes). */
export interface AuthorizationAttributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
}

export type AuthorizeFunction = (a: AuthorizationAttributes) => { allowed: boolean; reason: string };

export class CelAuthorizer {
  constructor(
    readonly user: UserInfo,
    readonly authorize: AuthorizeFunction,
    /** The request's resource (authorizer.requestResource). */
    readonly requestResource: CelResourceCheck | null = null,
  ) {}
}

export class CelPathCheck {
  constructor(readonly authz: CelAuthorizer, readonly path: string) {}
}

export class CelGroupCheck {
  constructor(readonly authz: CelAuthorizer, readonly group: string) {}
}

export class CelResourceCheck {
  constructor(
    readonly authz: CelAuthorizer,
    readonly group: string,
    readonly resource: string,
    readonly subresource = '',
    readonly namespace = '',
    readonly name = '',
    readonly apiVersion = '*',
  ) {}

  with(change: Partial<Pick<CelResourceCheck, 'subresource' | 'namespace' | 'name'>>): CelResourceCheck {
    return new CelResourceCheck(this.authz, this.group, this.resource, change.subresource ?? this.subresource, change.namespace ?? this.namespace, change.name ?? this.name, this.apiVersion);
  }
}

export class CelDecision {
  constructor(readonly allowed: boolean, readonly reason: string) {}
}

export const AUTHORIZER_TYPE = 'kubernetes.authorization.Authorizer';
const PATH = 'kubernetes.authorization.PathCheck';
const GROUP = 'kubernetes.authorization.GroupCheck';
const RESOURCE = 'kubernetes.authorization.ResourceCheck';
const DECISION = 'kubernetes.authorization.Decision';

function decide(authz: CelAuthorizer, a: Omit<AuthorizationAttributes, 'user'>): CelDecision {
  const d = authz.authorize({ user: authz.user, ...a });
  return new CelDecision(d.allowed, d.reason);
}

export function registerAuthorizerLibrary(env: Environment): void {
  env.registerType(AUTHORIZER_TYPE, { ctor: CelAuthorizer, fields: { requestResource: RESOURCE } });
  env.registerType(PATH, { ctor: CelPathCheck, fields: {} });
  env.registerType(GROUP, { ctor: CelGroupCheck, fields: {} });
  env.registerType(RESOURCE, { ctor: CelResourceCheck, fields: {} });
  env.registerType(DECISION, { ctor: CelDecision, fields: {} });
  const fn = (signature: string, handler: (...args: never[]) => unknown): void => {
    env.registerFunction(signature, handler as (...args: unknown[]) => unknown);
  };
  fn(`${AUTHORIZER_TYPE}.path(string): ${PATH}`, (a: CelAuthorizer, p: string) => new CelPathCheck(a, p));
  fn(`${AUTHORIZER_TYPE}.group(string): ${GROUP}`, (a: CelAuthorizer, g: string) => new CelGroupCheck(a, g));
  fn(`${AUTHORIZER_TYPE}.serviceAccount(string, string): ${AUTHORIZER_TYPE}`, (a: CelAuthorizer, ns: string, name: string) =>
    new CelAuthorizer({ name: `system:serviceaccount:${ns}:${name}`, groups: ['system:serviceaccounts', `system:serviceaccounts:${ns}`] }, a.authorize),
  );
  fn(`${GROUP}.resource(string): ${RESOURCE}`, (g: CelGroupCheck, r: string) => new CelResourceCheck(g.authz, g.group, r));
  fn(`${RESOURCE}.subresource(string): ${RESOURCE}`, (r: CelResourceCheck, s: string) => r.with({ subresource: s }));
  fn(`${RESOURCE}.namespace(string): ${RESOURCE}`, (r: CelResourceCheck, s: string) => r.with({ namespace: s }));
  fn(`${RESOURCE}.name(string): ${RESOURCE}`, (r: CelResourceCheck, s: string) => r.with({ name: s }));
  fn(`${RESOURCE}.check(string): ${DECISION}`, (r: CelResourceCheck, verb: string) =>
    decide(r.authz, { verb, isResourceRequest: true, path: '', namespace: r.namespace, apiGroup: r.group, apiVersion: r.apiVersion, resource: r.resource, subresource: r.subresource, name: r.name }),
  );
  fn(`${PATH}.check(string): ${DECISION}`, (p: CelPathCheck, verb: string) =>
    decide(p.authz, { verb, isResourceRequest: false, path: p.path, namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' }),
  );
  fn(`${DECISION}.allowed(): bool`, (d: CelDecision) => d.allowed);
  fn(`${DECISION}.reason(): string`, (d: CelDecision) => d.reason);
  fn(`${DECISION}.errored(): bool`, () => false);
  fn(`${DECISION}.error(): string`, () => '');
}
