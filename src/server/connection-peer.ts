// Who is at the other end of a connection: the client's address and its TLS
// certificate. With TLS done in this process they come from the TLS socket;
// with the TLS front (tls-front.ts) the front reads them and sends them ahead
// of the connection's bytes, and the apiserver keeps them here for the socket.

import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { tlsPeerOf, type TlsPeer } from './tls-peer.js';

export type PeerCertificate = NonNullable<TlsPeer['certificate']>;

const PEERS = new WeakMap<Socket, TlsPeer>();

/** Records what the TLS front said of a connection it handed over. */
export function setFrontPeer(socket: Socket, peer: TlsPeer): void {
  PEERS.set(socket, peer);
}

/** The peer of the request's connection: the front's word, or this process's TLS socket (read once). */
function peerOf(req: IncomingMessage): TlsPeer | undefined {
  const socket = req.socket as TLSSocket;
  let peer = PEERS.get(socket);
  if (peer === undefined && socket.encrypted === true) {
    peer = tlsPeerOf(socket);
    PEERS.set(socket, peer);
  }
  return peer;
}

/** The client certificate the request's connection presented, if any. */
export function clientCertificate(req: IncomingMessage): PeerCertificate | undefined {
  return peerOf(req)?.certificate ?? undefined;
}

/** The client's IP address (the audit log's sourceIPs). */
export function clientAddress(req: IncomingMessage): string {
  return PEERS.get(req.socket)?.remoteAddress ?? req.socket.remoteAddress ?? '';
}
