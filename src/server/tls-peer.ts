// What a TLS connection says of its client: its address and the subject of
// the certificate it presented. Read by the TLS front's process
// (tls-front-process.ts) and, with TLS done in the apiserver, by
// connection-peer.ts. Imports only node:tls, so that the front starts fast.

import type { TLSSocket } from 'node:tls';

export interface TlsPeer {
  remoteAddress: string;
  remotePort: number;
  /** The client certificate's subject; null when the client sent none. */
  certificate: { verified: boolean; commonName: string; organizations: string[]; der?: string } | null;
}

export function tlsPeerOf(socket: TLSSocket): TlsPeer {
  let certificate: TlsPeer['certificate'] = null;
  const cert = socket.getPeerCertificate();
  if (cert !== null && cert !== undefined && Object.keys(cert).length > 0) {
    const subject = (cert.subject ?? {}) as unknown as Record<string, string | string[] | undefined>;
    const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    certificate = { verified: socket.authorized, commonName: list(subject['CN'])[0] ?? '', organizations: list(subject['O']) };
    // The certificate itself, so the apiserver can tell which CA signed it (client CA or request-header CA).
    if (cert.raw !== undefined) certificate.der = cert.raw.toString('base64');
  }
  return { remoteAddress: socket.remoteAddress ?? '', remotePort: socket.remotePort ?? 0, certificate };
}
