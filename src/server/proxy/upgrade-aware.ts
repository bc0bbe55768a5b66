// One proxy for every request apiary passes to another server after
// authentication and authorization (upstream's UpgradeAwareHandler): the
// kubelet-facing subresources (pods/{log,exec,attach,portforward,proxy},
// nodes/proxy, services/proxy) and the aggregator's extension servers.
//
// - A plain request is sent on and its answer streamed back chunk by chunk
//   (logs with follow, watches).
// - An upgrade (SPDY/3.1 for exec, attach and port-forward; WebSocket
//   `v5.channel.k8s.io`, `v4.channel.k8s.io`, the port-forward tunnel) is
//   sent on with its Connection/Upgrade headers. When the backend answers
//   101 its status line and headers are written to the client's socket as
//   they came, then the bytes flow both ways untouched until either side
//   closes. When it answers anything else, that answer goes back as a plain
//   response (the client then falls back, as kubectl does from WebSocket to
//   SPDY), and the connection closes after it.
//
// Node's HTTP server hands upgrade requests to an 'upgrade' listener with the
// raw socket, outside the request handler; acceptUpgrades() puts them back on
// the normal path (every filter, the routes) with a ServerResponse bound to
// that socket, so an upgrade refused by authentication, authorization or a
// bad request gets the same Status any request gets.

import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';

/** The bytes a client sent after its upgrade request's headers (usually none). */
const UPGRADE_HEAD = Symbol('apiary.upgradeHead');

interface UpgradeRequest extends IncomingMessage {
  [UPGRADE_HEAD]?: Buffer;
}

export interface UpgradedConnections {
  /** Ends every upgrade connection still open (the server is stopping). */
  closeAll(): void;
}

/** Routes the server's upgrade requests through `handler`, as any request. */
export function acceptUpgrades(server: http.Server, handler: (req: IncomingMessage, res: ServerResponse) => void): UpgradedConnections {
  const open = new Set<Duplex>();
  server.on('upgrade', (original: UpgradeRequest, socket: Duplex, head: Buffer) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
    original[UPGRADE_HEAD] = head;
    withBody(original, socket, head, (req) => {
      const res = new http.ServerResponse(req);
      // An answer that is not a switch ends the connection: its bytes after the headers were never an HTTP request.
      res.shouldKeepAlive = false;
      res.assignSocket(socket as Parameters<ServerResponse['assignSocket']>[0]);
      res.on('finish', () => {
        if (!switched.has(req)) socket.end();
      });
      handler(req, res);
    });
  });
  return {
    closeAll() {
      for (const socket of open) socket.destroy();
      open.clear();
    },
  };
}

/**
 * Node ends an upgrade request's body at once, leaving any body bytes in the
 * upgrade's head. A body of known length (a POST that also offers
 * `Upgrade: h2c`, which apiary declines by answering in HTTP/1.1) is read
 * into a copy of the request, so its handler sees it as any request's; the
 * bytes after it stay the upgrade's head.
 */
function withBody(req: UpgradeRequest, socket: Duplex, head: Buffer, ready: (req: UpgradeRequest) => void): void {
  const length = Number(req.headers['content-length'] ?? '0');
  if (!Number.isSafeInteger(length) || length <= 0) return ready(req);
  const copy = new http.IncomingMessage(socket as ConstructorParameters<typeof http.IncomingMessage>[0]) as UpgradeRequest;
  Object.assign(copy, { method: req.method, url: req.url, headers: req.headers, rawHeaders: req.rawHeaders, httpVersion: req.httpVersion, httpVersionMajor: req.httpVersionMajor, httpVersionMinor: req.httpVersionMinor });
  let received = head;
  const take = (): boolean => {
    if (received.length < length) return false;
    // Complete, or its end would count as an abort and destroy the socket.
    copy.complete = true;
    copy.push(received.subarray(0, length));
    copy.push(null);
    copy[UPGRADE_HEAD] = received.subarray(length);
    ready(copy);
    return true;
  };
  if (take()) return;
  const onData = (chunk: Buffer): void => {
    received = Buffer.concat([received, chunk]);
    if (take()) {
      socket.off('data', onData);
      socket.pause();
    }
  };
  socket.on('data', onData);
}

/** Requests whose socket a switched protocol owns now (never ended by their response object). */
const switched = new WeakSet<IncomingMessage>();

/** Marks the request's connection as switched: the tunnel, not the response, ends it. */
/**
 * Relays a backend's answer body to the client chunk by chunk, headers first
 * (a followed log or a watch may send its first bytes much later); `done` runs
 * once the body ended or broke.
 */
export function relayBody(answer: IncomingMessage, res: ServerResponse, done: () => void): void {
  res.flushHeaders();
  answer.on('data', (chunk: Buffer) => res.write(chunk));
  answer.on('end', () => {
    res.end();
    done();
  });
  answer.on('error', () => {
    res.destroy();
    done();
  });
}

export function markSwitched(req: IncomingMessage): void {
  switched.add(req);
}

/** Whether the request asked to switch protocols (and came through acceptUpgrades). */
export function isUpgradeRequest(req: IncomingMessage): boolean {
  return (req as UpgradeRequest)[UPGRADE_HEAD] !== undefined;
}

/** Headers of one connection, never forwarded (RFC 9110 hop-by-hop, plus Go's proxy list). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

export interface ProxyLocation {
  protocol: 'http:' | 'https:';
  host: string;
  port: number;
  /** Path and query on the backend. */
  path: string;
  /** The connection settings (TLS client certificate, CA); a default agent when absent. */
  agent?: http.Agent;
}

export interface ProxyOptions {
  /** Which of the client's headers go on (hop-by-hop headers never do). Default: all. */
  forwardHeader?(name: string): boolean;
  /** Headers set on the proxied request (the front-proxy identity, for example). */
  extraHeaders?: OutgoingHttpHeaders;
  /** Writes the answer to a failed connection (the backend unreachable, a TLS error). */
  onError(err: Error): void;
  /** Headers of the backend's answer dropped on the way back. */
  dropResponseHeader?(name: string): boolean;
}

/**
 * Proxies the request to the location, an upgrade included; resolves when the
 * answer is complete or the switched connection closed. A failure before the
 * answer starts goes to options.onError.
 */
export function proxyUpgradeAware(req: IncomingMessage, res: ServerResponse, location: ProxyLocation, options: ProxyOptions): Promise<void> {
  const upgrade = isUpgradeRequest(req);
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    if (options.forwardHeader !== undefined && !options.forwardHeader(name)) continue;
    headers[name] = value;
  }
  Object.assign(headers, options.extraHeaders ?? {});
  const host = location.host.includes(':') ? `[${location.host}]` : location.host;
  headers['host'] = `${host}:${location.port}`;
  if (upgrade) {
    headers['connection'] = 'Upgrade';
    headers['upgrade'] = req.headers.upgrade ?? '';
  }
  const request = location.protocol === 'https:' ? https.request : http.request;
  return new Promise<void>((resolve) => {
    const outgoing = request({ host: location.host, port: location.port, method: req.method, path: location.path, headers, ...(location.agent !== undefined ? { agent: location.agent } : {}) });
    const clientGone = (): void => {
      if (!res.writableFinished) outgoing.destroy();
    };
    res.on('close', clientGone);
    outgoing.on('response', (answer) => {
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue;
        if (options.dropResponseHeader?.(name) === true) continue;
        out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      relayBody(answer, res, resolve);
    });
    outgoing.on('upgrade', (answer, backend, backendHead) => {
      res.off('close', clientGone);
      const client = res.socket;
      if (client === null) {
        backend.destroy();
        resolve();
        return;
      }
      markSwitched(req);
      // The answer as the backend wrote it: its status line and raw headers (Sec-WebSocket-Accept, X-Stream-Protocol-Version …).
      let head = `HTTP/1.1 ${answer.statusCode ?? 101} ${answer.statusMessage ?? 'Switching Protocols'}\r\n`;
      for (let i = 0; i + 1 < answer.rawHeaders.length; i += 2) head += `${answer.rawHeaders[i]}: ${answer.rawHeaders[i + 1]}\r\n`;
      client.write(`${head}\r\n`);
      if (backendHead.length > 0) client.write(backendHead);
      res.statusCode = 101;
      const clientHead = (req as UpgradeRequest)[UPGRADE_HEAD];
      if (clientHead !== undefined && clientHead.length > 0) backend.write(clientHead);
      let open = 2;
      const closed = (): void => {
        open -= 1;
        if (open === 0) resolve();
      };
      backend.on('error', () => client.destroy());
      client.on('error', () => backend.destroy());
      backend.once('close', () => {
        client.end();
        closed();
      });
      client.once('close', () => {
        backend.destroy();
        closed();
      });
      backend.pipe(client);
      client.pipe(backend);
    });
    outgoing.on('error', (err) => {
      res.off('close', clientGone);
      if (!res.headersSent) options.onError(err);
      else res.destroy();
      resolve();
    });
    if (upgrade) outgoing.end();
    else req.pipe(outgoing);
  });
}
