// Service-account tokens: JWTs signed with the cluster's service-account key
// (ES256), as kube-apiserver issues them through the TokenRequest API and
// checks them (k8s.io/kubernetes/pkg/serviceaccount: claims.go, jwt.go).
//
// A token names its service account (and optionally the pod or secret it is
// bound to) by name and uid; it is accepted only while those objects exist
// with the same uid, so deleting the service account revokes its tokens.
// Legacy secret-based tokens are not issued (off by default in 1.32).

import crypto from 'node:crypto';
import { SignJWT, jwtVerify, importPKCS8, importSPKI, exportJWK, type JWK } from 'jose';
import type { UserInfo } from '../../machinery/user.js';

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

export interface BoundObject {
  kind: 'Pod' | 'Secret' | 'Node';
  name: string;
  uid: string;
}

export interface TokenClaimsRequest {
  namespace: string;
  serviceAccount: { name: string; uid: string };
  audiences: string[];
  expirationSeconds: number;
  bound?: BoundObject;
}

/** What the verifier needs to know of live objects: the uid of each, or undefined when gone. */
export interface ServiceAccountLookups {
  serviceAccountUid(namespace: string, name: string): Promise<string | undefined>;
  podUid(namespace: string, name: string): Promise<string | undefined>;
  secretUid(namespace: string, name: string): Promise<string | undefined>;
  /** A Secret's data.token (decoded), undefined when the Secret is gone or being deleted: legacy tokens must match it. */
  secretToken?(namespace: string, name: string): Promise<string | undefined>;
}

/** The issuer of legacy (Secret-held, non-expiring) service account tokens, as upstream's. */
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
const LEGACY = 'kubernetes.io/serviceaccount/';

/** The claims of a legacy token: the account and the Secret holding it. */
export interface LegacyTokenRequest {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  secretName: string;
}

interface KubernetesClaims {
  namespace: string;
  serviceaccount: { name: string; uid: string };
  pod?: { name: string; uid: string };
  secret?: { name: string; uid: string };
  node?: { name: string; uid: string };
}

/** Upstream's key id: the unpadded base64url SHA-256 of the DER public key. */
export function keyId(publicKeyPem: string): string {
  const der = crypto.createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return crypto.createHash('sha256').update(der).digest('base64url');
}

export class ServiceAccountTokens {
  readonly issuer: string;
  /** Audiences this server accepts (--api-audiences, default the issuer). */
  readonly apiAudiences: string[];
  private readonly kid: string;
  private readonly privateKey: Promise<CryptoKey>;
  private readonly publicKey: Promise<CryptoKey>;
  private readonly publicKeyPem: string;

  constructor(options: { privateKeyPem: string; publicKeyPem: string; issuer?: string; apiAudiences?: string[] }) {
    this.issuer = options.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER;
    this.apiAudiences = options.apiAudiences ?? [this.issuer];
    this.publicKeyPem = options.publicKeyPem;
    this.kid = keyId(options.publicKeyPem);
    this.privateKey = importPKCS8(options.privateKeyPem, 'ES256') as Promise<CryptoKey>;
    this.publicKey = importSPKI(options.publicKeyPem, 'ES256', { extractable: true }) as Promise<CryptoKey>;
  }

  /** Signs a bound token; `now` in ms. */
  async issue(request: TokenClaimsRequest, now: number): Promise<{ token: string; expiresAt: Date }> {
    const iat = Math.floor(now / 1000);
    const exp = iat + request.expirationSeconds;
    const k8s: KubernetesClaims = { namespace: request.namespace, serviceaccount: request.serviceAccount };
    if (request.bound !== undefined) {
      const ref = { name: request.bound.name, uid: request.bound.uid };
      if (request.bound.kind === 'Pod') k8s.pod = ref;
      else if (request.bound.kind === 'Secret') k8s.secret = ref;
      else k8s.node = ref;
    }
    const token = await new SignJWT({ 'kubernetes.io': k8s as unknown as Record<string, unknown> })
      .setProtectedHeader({ alg: 'ES256', kid: this.kid })
      .setIssuer(this.issuer)
      .setSubject(`system:serviceaccount:${request.namespace}:${request.serviceAccount.name}`)
      .setAudience(request.audiences)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(crypto.randomUUID())
      .sign(await this.privateKey);
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** Signs a legacy token for a kubernetes.io/service-account-token Secret: no expiry, no audience, upstream's legacy claims. */
  async issueLegacy(request: LegacyTokenRequest): Promise<string> {
    return new SignJWT({
      [`${LEGACY}namespace`]: request.namespace,
      [`${LEGACY}secret.name`]: request.secretName,
      [`${LEGACY}service-account.name`]: request.serviceAccountName,
      [`${LEGACY}service-account.uid`]: request.serviceAccountUid,
    })
      .setProtectedHeader({ alg: 'ES256', kid: this.kid })
      .setIssuer(LEGACY_ISSUER)
      .setSubject(`system:serviceaccount:${request.namespace}:${request.serviceAccountName}`)
      .sign(await this.privateKey);
  }

  private issuerOf(token: string): unknown {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    try {
      return (JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { iss?: unknown }).iss;
    } catch {
      return undefined;
    }
  }

  /** Whether a token looks like one of ours (a JWT naming our issuer or the legacy one); cheap, no signature check. */
  claimsIssuer(token: string): boolean {
    const iss = this.issuerOf(token);
    return iss === this.issuer || iss === LEGACY_ISSUER;
  }

  /**
   * A legacy token: signed by our key, its account there with the uid it names,
   * and its Secret there holding this very token (a deleted or rewritten Secret revokes it).
   */
  private async authenticateLegacy(token: string, lookups: ServiceAccountLookups, audiences: string[]): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, await this.publicKey, { issuer: LEGACY_ISSUER, algorithms: ['ES256'], requiredClaims: ['sub'] }));
    } catch {
      return undefined;
    }
    const claim = (name: string): string | undefined => (typeof payload[`${LEGACY}${name}`] === 'string' ? (payload[`${LEGACY}${name}`] as string) : undefined);
    const namespace = claim('namespace');
    const saName = claim('service-account.name');
    const saUid = claim('service-account.uid');
    const secretName = claim('secret.name');
    if (namespace === undefined || saName === undefined || secretName === undefined) return undefined;
    if (payload.sub !== `system:serviceaccount:${namespace}:${saName}`) return undefined;
    const liveUid = await lookups.serviceAccountUid(namespace, saName);
    if (liveUid === undefined || (saUid !== undefined && saUid !== liveUid)) return undefined;
    if (lookups.secretToken === undefined || (await lookups.secretToken(namespace, secretName)) !== token) return undefined;
    return {
      user: { name: `system:serviceaccount:${namespace}:${saName}`, uid: liveUid, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`], extra: {} },
      // Legacy tokens carry no audience: they are good for the API server's own.
      audiences,
    };
  }

  /**
   * The user a token authenticates, or undefined when it is not valid now
   * (signature, issuer, audience, expiry, and the bound objects still there).
   * `audiences` narrows the accepted audiences (TokenReview's spec.audiences).
   */
  async authenticate(token: string, lookups: ServiceAccountLookups, now: number, audiences = this.apiAudiences): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    if (this.issuerOf(token) === LEGACY_ISSUER) return this.authenticateLegacy(token, lookups, audiences);
    let payload;
    try {
      ({ payload } = await jwtVerify(token, await this.publicKey, {
        issuer: this.issuer,
        audience: audiences,
        currentDate: new Date(now),
        algorithms: ['ES256'],
        requiredClaims: ['exp', 'sub'],
      }));
    } catch {
      return undefined;
    }
    const k8s = payload['kubernetes.io'] as KubernetesClaims | undefined;
    if (k8s === undefined || typeof k8s.namespace !== 'string' || typeof k8s.serviceaccount?.name !== 'string') return undefined;
    if (payload.sub !== `system:serviceaccount:${k8s.namespace}:${k8s.serviceaccount.name}`) return undefined;
    const saUid = await lookups.serviceAccountUid(k8s.namespace, k8s.serviceaccount.name);
    if (saUid === undefined || saUid !== k8s.serviceaccount.uid) return undefined;
    const extra: Record<string, string[]> = {};
    if (k8s.pod !== undefined) {
      if ((await lookups.podUid(k8s.namespace, k8s.pod.name)) !== k8s.pod.uid) return undefined;
      extra['authentication.kubernetes.io/pod-name'] = [k8s.pod.name];
      extra['authentication.kubernetes.io/pod-uid'] = [k8s.pod.uid];
    }
    if (k8s.secret !== undefined && (await lookups.secretUid(k8s.namespace, k8s.secret.name)) !== k8s.secret.uid) return undefined;
    if (typeof payload.jti === 'string') extra['authentication.kubernetes.io/credential-id'] = [`JTI=${payload.jti}`];
    const tokenAudiences = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
    return {
      user: {
        name: `system:serviceaccount:${k8s.namespace}:${k8s.serviceaccount.name}`,
        uid: k8s.serviceaccount.uid,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${k8s.namespace}`],
        extra,
      },
      audiences: audiences.filter((a) => tokenAudiences.includes(a)),
    };
  }

  /** The OIDC discovery document (/.well-known/openid-configuration). */
  openIdConfiguration(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      jwks_uri: `${this.issuer}/openid/v1/jwks`,
      response_types_supported: ['id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
    };
  }

  /** The key set (/openid/v1/jwks). */
  async jwks(): Promise<{ keys: JWK[] }> {
    const jwk = await exportJWK(await this.publicKey);
    return { keys: [{ use: 'sig', kty: jwk.kty!, kid: this.kid, crv: jwk.crv!, alg: 'ES256', x: jwk.x!, y: jwk.y! }] };
  }
}
