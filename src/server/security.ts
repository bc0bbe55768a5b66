// The security filters, in kube-apiserver's order: authentication (401 with
// upstream's Status on a bad credential), impersonation (Impersonate-User,
// -Group, -Uid, -Extra-*, each authorized with the `impersonate` verb), then
// authorization of the request as RequestInfo describes it (403 with
// upstream's Forbidden message). The user a request ends up as is kept for the
// handlers that need it (reviews, TokenRequest, RBAC escalation checks).
// (k8s.io/apiserver/pkg/endpoints/filters: authentication.go, impersonation.go,
// authorization.go.)

import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, forbidden } from '../machinery/errors.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '../machinery/user.js';
import { bearerToken, type AuthenticationResult, type Authenticator, type Credentials } from '../auth/authn/authenticator.js';
import { forbiddenMessage, type Attributes } from '../auth/authz/attributes.js';
import type { Authorizer } from '../auth/authz/rbac.js';
import type { RequestInfo } from './request-info.js';
import { writeError, writeText } from './responses.js';
import type { AuditLog } from './audit.js';
import { isLoopbackRequest } from './loopback.js';
import { clientCertificate } from './connection-peer.js';
import { filterNamespacesOf, type NamespaceVisibility } from './namespace-visibility.js';

export interface SecurityFilters {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** --audit-log-path: writes are recorded there. */
  audit?: AuditLog;
  /** Whether the request-header authenticator is on (it reads every header of requests with a client certificate). */
  requestHeaders?: boolean;
  /** The in-process clients' tokens (loopback.ts): the only credentials the loopback listener takes. */
  loopback?: { userFor(token: string): UserInfo | undefined };
  /** --namespace-list-filtering: a refused list or watch of namespaces is served narrowed instead (namespace-visibility.ts). */
  namespaceVisibility?: NamespaceVisibility;
}

const USERS = new WeakMap<IncomingMessage, UserInfo>();

/** The user a request was authenticated (and possibly impersonated) as. */
export function requestUser(req: IncomingMessage): UserInfo | undefined {
  return USERS.get(req);
}

export function unauthorized(): StatusError {
  return new StatusError(401, 'Unauthorized', 'Unauthorized');
}

/** The Forbidden Status for a refused request (upstream's responsewriters.Forbidden). */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  const message = reason === '' ? forbiddenMessage(a) : `${forbiddenMessage(a)}: ${reason}`;
  if (a.resource === '') return forbidden(null, '', message, {});
  return forbidden({ group: a.apiGroup, resource: a.resource }, a.name, message);
}

export function attributesFor(user: UserInfo, info: RequestInfo): Attributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

class ImpersonationError extends Error {}

/** Applies the Impersonate-* headers: the user to act as, or undefined when there are none. */
function impersonate(filters: SecurityFilters, req: IncomingMessage, actor: UserInfo): UserInfo | undefined {
  const headers = req.headers;
  const userHeader = headers['impersonate-user'];
  const groupHeader = headers['impersonate-group'];
  const uidHeader = headers['impersonate-uid'];
  const extraNames = Object.keys(headers).filter((h) => h.startsWith('impersonate-extra-'));
  if (userHeader === undefined && groupHeader === undefined && uidHeader === undefined && extraNames.length === 0) return undefined;
  const groups = groupHeader === undefined ? [] : Array.isArray(groupHeader) ? groupHeader : [groupHeader];
  const username = Array.isArray(userHeader) ? userHeader[0] : userHeader;
  if (username === undefined || username === '') {
    const refs = groups.map((g) => `{Group  ${g}    }`);
    if (uidHeader !== undefined) refs.push(`{UID  ${uidHeader}    }`);
    throw new ImpersonationError(`requested [${refs.join(' ')}] without impersonating a user`);
  }
  const check = (a: Omit<Attributes, 'user' | 'verb' | 'isResourceRequest' | 'path' | 'apiVersion' | 'subresource'> & { subresource?: string }): void => {
    const attributes: Attributes = { user: actor, verb: 'impersonate', isResourceRequest: true, path: '', apiVersion: '', subresource: '', ...a };
    const decision = filters.authorizer.authorize(attributes);
    if (!decision.allowed) throw forbiddenError(attributes, decision.reason);
  };
  const user: UserInfo = { name: username, groups: [] };
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  if (sa !== null) {
    check({ namespace: sa[1]!, apiGroup: '', resource: 'serviceaccounts', name: sa[2]! });
    user.groups.push('system:serviceaccounts', `system:serviceaccounts:${sa[1]}`);
  } else {
    check({ namespace: '', apiGroup: '', resource: 'users', name: username });
  }
  for (const g of groups) {
    check({ namespace: '', apiGroup: '', resource: 'groups', name: g });
    user.groups.push(g);
  }
  if (uidHeader !== undefined) {
    const uid = Array.isArray(uidHeader) ? uidHeader[0]! : uidHeader;
    check({ namespace: '', apiGroup: 'authentication.k8s.io', resource: 'uids', name: uid });
    user.uid = uid;
  }
  for (const header of extraNames) {
    const key = decodeURIComponent(header.slice('impersonate-extra-'.length)).toLowerCase();
    const raw = headers[header];
    const values = raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(',').map((v) => v.trim());
    for (const v of values) check({ namespace: '', apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: key, name: v });
    (user.extra ??= {})[key] = values;
  }
  if (username !== ANONYMOUS_USER && !user.groups.includes(ALL_AUTHENTICATED) && !user.groups.includes(ALL_UNAUTHENTICATED)) {
    user.groups.push(ALL_AUTHENTICATED);
  }
  return user;
}

/**
 * Runs the filters; false when the request was answered here (401, 403, or
 * impersonation errors) and must go no further.
 */
export function runSecurityFilters(filters: SecurityFilters, req: IncomingMessage, res: ServerResponse, info: RequestInfo): boolean | Promise<boolean> {
  const identified = identifyRequest(filters, req, res, info);
  if (identified instanceof Promise) return identified.then((ok) => ok && authorizeIdentified(filters, req, res, info));
  return identified && authorizeIdentified(filters, req, res, info);
}

/**
 * Authentication, impersonation and audit: the filters upstream runs before
 * priority and fairness. False when the request was answered here (401,
 * impersonation errors). authorizeIdentified() follows.
 */
export function identifyRequest(filters: SecurityFilters, req: IncomingMessage, res: ServerResponse, info: RequestInfo): boolean | Promise<boolean> {
  const credentials: Credentials = {};
  const cert = clientCertificate(req);
  if (cert !== undefined) credentials.clientCertificate = cert;
  const token = bearerToken(req.headers.authorization);
  if (token !== undefined) credentials.bearerToken = token;
  if (cert !== undefined && filters.requestHeaders === true) credentials.headers = req.headersDistinct;
  if (isLoopbackRequest(req)) {
    const loopbackUser = token === undefined ? undefined : filters.loopback?.userFor(token);
    return identified(filters, req, res, info, loopbackUser === undefined ? { ok: false } : { ok: true, user: loopbackUser, anonymous: false });
  }
  // Synchronous but for service-account tokens: no promise on most requests.
  const result = filters.authenticator.authenticate(credentials);
  if (result instanceof Promise) return result.then((r) => identified(filters, req, res, info, r));
  return identified(filters, req, res, info, result);
}

/** What follows authentication: impersonation and audit. */
function identified(filters: SecurityFilters, req: IncomingMessage, res: ServerResponse, info: RequestInfo, result: AuthenticationResult): boolean {
  if (!result.ok) {
    writeError(req, res, unauthorized());
    return false;
  }
  let user = result.user;
  try {
    const impersonated = impersonate(filters, req, user);
    if (impersonated !== undefined) user = impersonated;
    filters.audit?.track(req, res, info, result.user, impersonated);
  } catch (err) {
    if (err instanceof ImpersonationError) {
      writeText(req, res, 500, `Internal Server Error: ${JSON.stringify(req.url ?? '')}: ${err.message}\n`);
      return false;
    }
    throw err;
  }
  USERS.set(req, user);
  return true;
}

/** Authorization of a request identifyRequest() let through (403 with upstream's message; false when refused). */
export function authorizeIdentified(filters: SecurityFilters, req: IncomingMessage, res: ServerResponse, info: RequestInfo): boolean {
  const user = USERS.get(req);
  if (user === undefined) throw new Error('authorizeIdentified: the request was not identified');
  const attributes = attributesFor(user, info);
  const decision = filters.authorizer.authorize(attributes);
  if (!decision.allowed) {
    const visibility = filters.namespaceVisibility;
    if (visibility !== undefined && visibility.applies(attributes)) {
      filterNamespacesOf(req, visibility.visibleTo(user));
      return true;
    }
    writeError(req, res, forbiddenError(attributes, decision.reason));
    return false;
  }
  return true;
}
