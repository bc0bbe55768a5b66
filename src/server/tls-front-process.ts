// The TLS front's process (see tls-front.ts): it owns the secure port, does
// every TLS handshake, decryption and encryption, and hands each connection's
// plaintext to the apiserver over its Unix socket, led by one header line:
//
//   <secret> <JSON: the client's address, port and certificate>\n
//
// The secret proves the line comes from this process: the apiserver accepts
// nothing else on that socket. After the line, bytes flow both ways untouched
// (requests, responses, watch streams, upgrades).
//
// This module imports only tls-peer.ts of the project's, so that it starts fast; it
// exits with its parent: when the IPC channel closes (the apiserver stopped or
// was killed) it drops every connection and ends.

import net from 'node:net';
import tls from 'node:tls';
import { tlsPeerOf } from './tls-peer.js';

/** What the apiserver sends to start the front. */
export interface FrontStart {
  type: 'start';
  host: string;
  port: number;
  key: string;
  cert: string;
  /** CA bundle client certificates are verified against. */
  ca: string;
  /** The apiserver's Unix socket (an abstract name on Linux). */
  socketPath: string;
  secret: string;
}

/** What the front tells the apiserver. */
export type FrontReport = { type: 'listening'; port: number } | { type: 'failed'; code: string; message: string };

function report(message: FrontReport): void {
  process.send?.(message);
}

function start(config: FrontStart): void {
  const connections = new Set<net.Socket>();
  const server = tls.createServer(
    {
      key: config.key,
      cert: config.cert,
      ca: config.ca,
      // Asked for, not required: a request without a certificate is authenticated otherwise (or anonymous).
      requestCert: true,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
      // The apiserver's HTTP server decides when a half-closed connection ends.
      allowHalfOpen: true,
    },
    (client) => {
      client.setNoDelay(true);
      client.setKeepAlive(true);
      const upstream = net.connect({ path: config.socketPath, allowHalfOpen: true });
      connections.add(client);
      connections.add(upstream);
      upstream.write(`${config.secret} ${JSON.stringify(tlsPeerOf(client))}\n`);
      client.pipe(upstream);
      upstream.pipe(client);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', drop);
      upstream.on('error', drop);
      client.on('close', () => {
        connections.delete(client);
        upstream.destroy();
      });
      upstream.on('close', () => {
        connections.delete(upstream);
        // Whatever the apiserver wrote is flushed before the TLS side closes.
        if (!client.destroyed) client.end();
      });
    },
  );
  // A failed handshake concerns only that client.
  server.on('tlsClientError', () => {});
  server.once('error', (err: NodeJS.ErrnoException) => {
    report({ type: 'failed', code: err.code ?? 'ERROR', message: err.message });
    process.exit(1);
  });
  server.listen(config.port, config.host, () => {
    report({ type: 'listening', port: (server.address() as net.AddressInfo).port });
  });
  process.on('message', (message: { type?: string }) => {
    // The apiserver stops: no new connections; the open ones end with its side of them.
    if (message.type === 'close') server.close();
  });
  process.once('disconnect', () => {
    server.close();
    for (const socket of connections) socket.destroy();
    process.exit(0);
  });
}

process.title = 'apiary tls-front';
// A terminal's Ctrl-C reaches the whole process group: the apiserver stops
// gracefully and ends the front itself, after the requests in flight.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.once('message', (message: FrontStart) => {
  if (message.type === 'start') start(message);
});
// Started without a parent (by hand): nothing to serve.
if (process.send === undefined) process.exit(2);
