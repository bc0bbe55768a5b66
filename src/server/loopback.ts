// The loopback listener: how the clients `apiary serve` runs in its own
// process (the controllers) reach the server when security is on.
//
// kube-apiserver gives its in-process clients a random bearer token that only
// its memory holds (system:apiserver); apiary does the same for each
// controller identity, and serves those clients on a second listener: plain
// HTTP on an abstract Unix socket (Linux), not on the TLS port. Both ends of
// these connections live in this process, so over TLS every watch event an
// informer receives is encrypted and decrypted here; for the garbage
// collector's watch of every resource that was the largest part of what
// security cost a write (bench/security.ts). The socket is reachable only
// from this machine, and it accepts nothing but these tokens: no anonymous
// requests, no certificates. The secure port does not know the tokens.
// Elsewhere than Linux there is no listener and the controllers keep using
// client certificates over TLS.

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { IncomingMessage, RequestListener } from 'node:http';
import { ALL_AUTHENTICATED, type UserInfo } from '../machinery/user.js';

const LOOPBACK_REQUESTS = new WeakSet<IncomingMessage>();

/** Whether a request came in on the loopback listener. */
export function isLoopbackRequest(req: IncomingMessage): boolean {
  return LOOPBACK_REQUESTS.has(req);
}

/** How an in-process client connects: plain HTTP through the socket, with its token. */
export interface LoopbackCredentials {
  server: string;
  socketPath: string;
  bearerToken: string;
}

export class LoopbackListener {
  private readonly tokens = new Map<string, UserInfo>();
  private server: http.Server | undefined;
  private socketPath: string | undefined;

  /** The user a loopback token stands for (undefined: not one of ours). */
  userFor(token: string): UserInfo | undefined {
    return this.tokens.get(token);
  }

  /** Listens on a fresh abstract socket; false where the platform has none (not Linux). */
  async listen(handler: RequestListener): Promise<boolean> {
    if (process.platform !== 'linux') return false;
    const path = `\0apiary-loopback-${process.pid}-${randomBytes(8).toString('hex')}`;
    const server = http.createServer({ keepAlive: true, requestTimeout: 0 }, (req, res) => {
      LOOPBACK_REQUESTS.add(req);
      handler(req, res);
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    this.socketPath = path;
    return true;
  }

  /** Credentials for user (in groups) on this listener; undefined when it is not listening. */
  credentials(user: string, groups: string[]): LoopbackCredentials | undefined {
    if (this.socketPath === undefined) return undefined;
    const token = randomBytes(32).toString('base64url');
    this.tokens.set(token, { name: user, groups: groups.includes(ALL_AUTHENTICATED) ? [...groups] : [...groups, ALL_AUTHENTICATED] });
    return { server: 'http://localhost', socketPath: this.socketPath, bearerToken: token };
  }

  /** Stops accepting; open connections are closed after a moment for requests in flight. */
  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), 2000);
    grace.unref();
    await closed;
    clearTimeout(grace);
    this.tokens.clear();
  }
}
