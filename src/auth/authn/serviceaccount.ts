// Service-account tokens: JWTs signed with the cluster's service-account key
// (ES256), as kube-apiserver issues them through the TokenRequest API and
// checks them (k8s.io/kubernetes/pkg/serviceaccount: claims.go, jwt.go).
//
// A token names its service account (and optionally the pod or secret it is
// bound to) by name and uid; it is accepted only while those objects exist
// with the same uid, so deleting the service account revokes its tokens.
// Legacy secret-based tokens are not issued (off by default in 1.32).
//
// Keys as upstream's --service-account-signing-key-file and
// --service-account-key-file: the signing key is RSA (RS256) or ECDSA
// (ES256/384/512 by curve); a token verifies against any of the public keys,
// which may be given as certificates, public keys or private keys (envtest
// passes its sa-signer.crt), so tokens minted elsewhere with the same key
// authenticate.

import crypto from 'node:crypto';
import { SignJWT, jwtVerify, exportJWK, decodeProtectedHeader, type JWK, type JWTPayload, type JWTVerifyOptions } from 'jose';
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

/** The JWS algorithm upstream uses for a key: RS256 for RSA, ES256/384/512 by the ECDSA curve. */
export function jwsAlgorithm(key: crypto.KeyObject): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
    throw new Error(`unsupported ECDSA curve ${curve ?? '(unknown)'}: want P-256, P-384 or P-521`);
  }
  throw new Error(`unsupported key type ${key.asymmetricKeyType ?? '(unknown)'}: want RSA or ECDSA`);
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/**
 * The RSA and ECDSA public keys in PEM data (certificates, public keys,
 * private keys; other blocks such as EC PARAMETERS are skipped), as upstream's
 * keyutil.ParsePublicKeysPEM. Throws when there is none.
 */
export function parsePublicKeysPem(pem: string): crypto.KeyObject[] {
  const keys: crypto.KeyObject[] = [];
  for (const m of pem.matchAll(PEM_BLOCK)) {
    const [block, type] = m as unknown as [string, string];
    let key: crypto.KeyObject;
    if (type === 'CERTIFICATE') key = new crypto.X509Certificate(block).publicKey;
    else if (type === 'PUBLIC KEY' || type === 'RSA PUBLIC KEY') key = crypto.createPublicKey(block);
    else if (type === 'PRIVATE KEY' || type === 'RSA PRIVATE KEY' || type === 'EC PRIVATE KEY') key = crypto.createPublicKey(crypto.createPrivateKey(block));
    else continue;
    if (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'ec') keys.push(key);
  }
  if (keys.length === 0) throw new Error('data does not contain any valid RSA or ECDSA public keys');
  return keys;
}

interface VerificationKey {
  key: crypto.KeyObject;
  kid: string;
  alg: string;
}

export interface ServiceAccountTokensOptions {
  /** The signing key, PEM (PKCS#8, SEC1 or PKCS#1; RSA or ECDSA). */
  privateKeyPem: string;
  /** PEM data with the public keys tokens are verified against (its own included or not: the signing key's is always added). */
  publicKeyPem: string;
  issuer?: string;
  /** More issuers whose tokens are accepted (upstream's repeated --service-account-issuer); tokens are issued as `issuer`. */
  acceptedIssuers?: string[];
  apiAudiences?: string[];
}

export class ServiceAccountTokens {
  readonly issuer: string;
  /** Audiences this server accepts (--api-audiences, default the issuers). */
  readonly apiAudiences: string[];
  private readonly issuers: string[];
  private readonly kid: string;
  private readonly alg: string;
  private readonly privateKey: crypto.KeyObject;
  private readonly verificationKeys: VerificationKey[];

  constructor(options: ServiceAccountTokensOptions) {
    this.issuer = options.issuer ?? DEFAULT_SERVICE_ACCOUNT_ISSUER;
    this.issuers = [this.issuer, ...(options.acceptedIssuers ?? []).filter((i) => i !== this.issuer)];
    this.apiAudiences = options.apiAudiences ?? this.issuers;
    this.privateKey = crypto.createPrivateKey(options.privateKeyPem);
    this.alg = jwsAlgorithm(this.privateKey);
    const own = crypto.createPublicKey(this.privateKey);
    this.kid = keyId(own.export({ type: 'spki', format: 'pem' }) as string);
    this.verificationKeys = [];
    for (const key of [own, ...parsePublicKeysPem(options.publicKeyPem)]) {
      const kid = keyId(key.export({ type: 'spki', format: 'pem' }) as string);
      if (!this.verificationKeys.some((k) => k.kid === kid)) this.verificationKeys.push({ key, kid, alg: jwsAlgorithm(key) });
    }
  }

  /**
   * Verifies a token's signature against the keys (the one its kid names
   * first), then the claims `options` asks for; undefined when none verifies.
   */
  private async verify(token: string, options: Omit<JWTVerifyOptions, 'algorithms'>): Promise<JWTPayload | undefined> {
    let header;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return undefined;
    }
    // The header's alg must be the key's own: an RSA key never checks an ES256 token.
    const candidates = this.verificationKeys.filter((k) => k.alg === header.alg).sort((a, b) => Number(b.kid === header.kid) - Number(a.kid === header.kid));
    for (const candidate of candidates) {
      try {
        return (await jwtVerify(token, candidate.key, { ...options, algorithms: [candidate.alg] })).payload;
      } catch {
        // the next key, if any
      }
    }
    return undefined;
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
      .setProtectedHeader({ alg: this.alg, kid: this.kid })
      .setIssuer(this.issuer)
      .setSubject(`system:serviceaccount:${request.namespace}:${request.serviceAccount.name}`)
      .setAudience(request.audiences)
      .setIssuedAt(iat)
      .setNotBefore(iat)
      .setExpirationTime(exp)
      .setJti(crypto.randomUUID())
      .sign(this.privateKey);
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
      .setProtectedHeader({ alg: this.alg, kid: this.kid })
      .setIssuer(LEGACY_ISSUER)
      .setSubject(`system:serviceaccount:${request.namespace}:${request.serviceAccountName}`)
      .sign(this.privateKey);
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
    return (typeof iss === 'string' && this.issuers.includes(iss)) || iss === LEGACY_ISSUER;
  }

  /**
   * A legacy token: signed by our key, its account there with the uid it names,
   * and its Secret there holding this very token (a deleted or rewritten Secret revokes it).
   */
  private async authenticateLegacy(token: string, lookups: ServiceAccountLookups, audiences: string[]): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    const payload = await this.verify(token, { issuer: LEGACY_ISSUER, requiredClaims: ['sub'] });
    if (payload === undefined) return undefined;
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
    const payload = await this.verify(token, { issuer: this.issuers, audience: audiences, currentDate: new Date(now), requiredClaims: ['exp', 'sub'] });
    if (payload === undefined) return undefined;
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
      id_token_signing_alg_values_supported: [...new Set(this.verificationKeys.map((k) => k.alg))].sort(),
    };
  }

  /** The key set (/openid/v1/jwks): every verification key. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const keys: JWK[] = [];
    for (const k of this.verificationKeys) {
      const jwk = await exportJWK(k.key);
      keys.push({ use: 'sig', kty: jwk.kty!, kid: k.kid, alg: k.alg, ...(jwk.kty === 'RSA' ? { n: jwk.n!, e: jwk.e! } : { crv: jwk.crv!, x: jwk.x!, y: jwk.y! }) });
    }
    return { keys };
  }
}
