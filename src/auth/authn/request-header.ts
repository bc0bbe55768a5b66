// The request-header authenticator (k8s.io/apiserver's
// authentication/request/headerrequest): a front proxy (the aggregator of
// another API server, kubectl-style auth proxies) that presents a client
// certificate signed by the request-header CA (--requestheader-client-ca-file),
// with a common name among --requestheader-allowed-names (any name when that
// list is empty), says who the user is in headers:
//   username: the first non-empty of --requestheader-username-headers
//   groups:   every value of every --requestheader-group-headers
//   extra:    each header starting with one of --requestheader-extra-headers-prefix,
//             the rest of its name unescaped and lowercased as the key.
// Any other client's such headers are ignored (and never passed on).

import { X509Certificate } from 'node:crypto';
import type { UserInfo } from '../../machinery/user.js';

export interface RequestHeaderConfig {
  /** The request-header CA bundle (PEM). */
  caPem: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeaderPrefixes: string[];
}

/** kubeadm's header names, apiary's defaults when the flags are not given. */
export const DEFAULT_REQUEST_HEADERS = { usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'] };

export type CertificateRole = 'front-proxy' | 'request-header-ca' | 'other';

export type HeaderValues = Record<string, string | string[] | undefined>;

function splitPem(bundle: string): X509Certificate[] {
  const blocks = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((b) => new X509Certificate(b));
}

export class RequestHeaderAuthenticator {
  private readonly cas: X509Certificate[];
  /** Per certificate (DER, base64): what the request-header CA makes of it. */
  private readonly seen = new Map<string, CertificateRole>();

  constructor(private readonly config: RequestHeaderConfig) {
    this.cas = splitPem(config.caPem);
  }

  /**
   * A TLS-verified client certificate: the front proxy's (signed by the
   * request-header CA, an allowed name), another one that CA signed (trusted
   * for nothing: it is no client-CA user either), or none of its business.
   */
  roleOf(der: string | undefined, commonName: string): CertificateRole {
    if (der === undefined) return 'other';
    let role = this.seen.get(der);
    if (role === undefined) {
      const cert = new X509Certificate(Buffer.from(der, 'base64'));
      const signed = this.cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
      role = !signed ? 'other' : this.config.allowedNames.length === 0 || this.config.allowedNames.includes(commonName) ? 'front-proxy' : 'request-header-ca';
      if (this.seen.size > 1000) this.seen.clear();
      this.seen.set(der, role);
    }
    return role;
  }

  /** The user the headers name, or undefined when they name none. */
  userFrom(headers: HeaderValues): UserInfo | undefined {
    const values = (name: string): string[] => {
      const v = headers[name.toLowerCase()];
      return v === undefined ? [] : Array.isArray(v) ? v : [v];
    };
    let name = '';
    for (const h of this.config.usernameHeaders) {
      const first = values(h).find((v) => v !== '');
      if (first !== undefined) {
        name = first;
        break;
      }
    }
    if (name === '') return undefined;
    const groups: string[] = [];
    for (const h of this.config.groupHeaders) groups.push(...values(h));
    const user: UserInfo = { name, groups };
    for (const prefix of this.config.extraHeaderPrefixes) {
      const p = prefix.toLowerCase();
      for (const [header, raw] of Object.entries(headers)) {
        if (!header.startsWith(p) || raw === undefined) continue;
        const key = decodeURIComponent(header.slice(p.length)).toLowerCase();
        ((user.extra ??= {})[key] ??= []).push(...(Array.isArray(raw) ? raw : [raw]));
      }
    }
    return user;
  }
}
