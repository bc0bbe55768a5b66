// Authentication: who is asking. The union of kube-apiserver's request
// authenticators in its order — x509 client certificates (CN = user,
// O = groups), bearer tokens (the --token-auth-file, then service-account
// JWTs) — with anonymous as the fallback only when no credential was offered
// (a bad credential is a 401, never anonymous), and `system:authenticated`
// added to every authenticated user (k8s.io/apiserver/pkg/authentication:
// request/union, request/x509, request/bearertoken, group/authenticated_group_adder).

import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '../../machinery/user.js';
import type { ServiceAccountLookups, ServiceAccountTokens } from './serviceaccount.js';
import type { HeaderValues, RequestHeaderAuthenticator } from './request-header.js';

/** What a request carries, read off the connection and headers by the HTTP layer. */
export interface Credentials {
  /** The token of an `Authorization: Bearer` header ('' when the header has no token). */
  bearerToken?: string;
  /** The client certificate presented in the TLS handshake, if any. */
  clientCertificate?: { verified: boolean; commonName: string; organizations: string[]; der?: string };
  /** The request's headers, each with all its values (the request-header authenticator reads them). */
  headers?: HeaderValues;
}

export type AuthenticationResult = { ok: true; user: UserInfo; anonymous: boolean } | { ok: false };

export interface AuthenticatorOptions {
  /** --token-auth-file's tokens. */
  tokens?: Map<string, UserInfo>;
  serviceAccounts?: { tokens: ServiceAccountTokens; lookups: ServiceAccountLookups };
  /** --anonymous-auth (default true). */
  anonymous?: boolean;
  /** --requestheader-*: front proxies that name the user in headers (request-header.ts). */
  requestHeader?: RequestHeaderAuthenticator;
  now?: () => number;
}

/** Upstream's AuthenticatedGroupAdder. */
function withAuthenticatedGroup(user: UserInfo): UserInfo {
  if (user.name === ANONYMOUS_USER || user.groups.includes(ALL_AUTHENTICATED) || user.groups.includes(ALL_UNAUTHENTICATED)) return user;
  return { ...user, groups: [...user.groups, ALL_AUTHENTICATED] };
}

/**
 * The authenticated user of a token-file entry or of a connection's client
 * certificate, made once: every request of that credential then carries the
 * same UserInfo object, which the authorizer's decision cache keys on.
 */
const AUTHENTICATED = new WeakMap<object, UserInfo>();
function authenticatedOnce(source: object, make: () => UserInfo): UserInfo {
  let user = AUTHENTICATED.get(source);
  if (user === undefined) {
    user = withAuthenticatedGroup(make());
    AUTHENTICATED.set(source, user);
  }
  return user;
}

export const ANONYMOUS: UserInfo = Object.freeze({ name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] }) as UserInfo;

/** Reads a bearer token from an Authorization header value (undefined: no bearer credential). */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const space = header.indexOf(' ');
  if (space < 0 || header.slice(0, space).toLowerCase() !== 'bearer') return undefined;
  return header.slice(space + 1).trim();
}

export class Authenticator {
  private readonly options: AuthenticatorOptions;

  constructor(options: AuthenticatorOptions) {
    this.options = options;
  }

  /** Synchronous unless a service-account token has to be checked (every request goes through here). */
  authenticate(credentials: Credentials): AuthenticationResult | Promise<AuthenticationResult> {
    const cert = credentials.clientCertificate;
    const requestHeader = this.options.requestHeader;
    // Upstream's order: the request-header authenticator first, then x509 (which never takes the request-header CA's certificates).
    const role = cert !== undefined && cert.verified && requestHeader !== undefined ? requestHeader.roleOf(cert.der, cert.commonName) : 'other';
    if (role === 'front-proxy') {
      const user = requestHeader!.userFrom(credentials.headers ?? {});
      if (user !== undefined) return { ok: true, user: withAuthenticatedGroup(user), anonymous: false };
    }
    if (cert !== undefined && cert.verified && cert.commonName !== '' && role === 'other') {
      return { ok: true, user: authenticatedOnce(cert, () => ({ name: cert.commonName, groups: [...cert.organizations] })), anonymous: false };
    }
    const token = credentials.bearerToken;
    if (token !== undefined && token !== '') {
      const fromFile = this.options.tokens?.get(token);
      if (fromFile !== undefined) return { ok: true, user: authenticatedOnce(fromFile, () => fromFile), anonymous: false };
      if (this.options.serviceAccounts?.tokens.claimsIssuer(token) === true) return this.authenticateServiceAccount(token);
    }
    if (cert === undefined && token === undefined && this.options.anonymous !== false) return { ok: true, user: ANONYMOUS, anonymous: true };
    return { ok: false };
  }

  private async authenticateServiceAccount(token: string): Promise<AuthenticationResult> {
    const user = await this.authenticateToken(token);
    return user === undefined ? { ok: false } : { ok: true, user: withAuthenticatedGroup(user), anonymous: false };
  }

  /** A bearer token's user (TokenReview uses this too), without system:authenticated. */
  async authenticateToken(token: string, audiences?: string[]): Promise<UserInfo | undefined> {
    if (token === '') return undefined;
    const fromFile = this.options.tokens?.get(token);
    if (fromFile !== undefined) return fromFile;
    const sa = this.options.serviceAccounts;
    if (sa !== undefined && sa.tokens.claimsIssuer(token)) {
      const result = await sa.tokens.authenticate(token, sa.lookups, this.options.now?.() ?? Date.now(), audiences);
      return result?.user;
    }
    return undefined;
  }
}
