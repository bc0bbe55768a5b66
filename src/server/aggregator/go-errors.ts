// The text Go's net/http and crypto/tls give for a failed connection, from
// Node's error: what kube-aggregator writes into an APIService's Available
// condition ("failing or missing response from URL: Get \"URL\": …") and into
// the body of a 503 when a proxied request cannot reach its extension server.
// Errors without a counterpart keep Node's message.

interface NodeNetError {
  code?: string;
  message: string;
  address?: string;
  port?: number;
  hostname?: string;
  host?: string;
  cert?: { subjectaltname?: string };
}

const UNKNOWN_AUTHORITY = new Set(['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT']);

function hostPort(address: string, port: number | undefined): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return port === undefined ? host : `${host}:${port}`;
}

/** Go's error text for a connection error (dial, TLS verification), else the error's own message. */
export function goNetErrorText(err: unknown): string {
  const e = err as NodeNetError;
  if (typeof e !== 'object' || e === null) return String(err);
  switch (e.code) {
    case 'ECONNREFUSED':
      return e.address !== undefined ? `dial tcp ${hostPort(e.address, e.port)}: connect: connection refused` : e.message;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${e.hostname ?? ''}: no such host`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    case 'CERT_HAS_EXPIRED':
    case 'CERT_NOT_YET_VALID':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      const names = (e.cert?.subjectaltname ?? '').split(', ').map((n) => n.replace(/^(DNS|IP Address):/, '')).filter((n) => n !== '');
      return `tls: failed to verify certificate: x509: certificate is valid for ${names.join(', ')}, not ${e.host ?? ''}`;
    }
    default:
      if (e.code !== undefined && UNKNOWN_AUTHORITY.has(e.code)) return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
      return e.message;
  }
}
