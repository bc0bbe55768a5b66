// Proxies one request to an extension API server, as kube-aggregator's proxy
// handler does after authentication and authorization: the caller's own
// credentials and identity headers are never passed on (Authorization,
// Impersonate-*, X-Remote-*); the authenticated user goes as the front-proxy
// headers (X-Remote-User, one X-Remote-Group per group, X-Remote-Extra-<key>
// per extra value) over a connection that presents the proxy client
// certificate. The answer is streamed back as it comes (watches included); an
// extension server out of reach is a 503 with Go's text of the error.

import https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { UserInfo } from '../../machinery/user.js';
import { writeText } from '../responses.js';
import { goNetErrorText } from './go-errors.js';

/** Headers that belong to one connection, never forwarded (RFC 9110 hop-by-hop, plus Go's proxy list). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

/** Whether a request header stays on the proxied request. */
function forwarded(name: string): boolean {
  return !HOP_BY_HOP.has(name) && name !== 'authorization' && !name.startsWith('impersonate-') && !name.startsWith('x-remote-');
}

/** The front-proxy headers for a user (upstream's SetAuthProxyHeaders). */
export function frontProxyHeaders(user: UserInfo): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = { 'x-remote-user': user.name };
  if (user.groups.length > 0) headers['x-remote-group'] = [...user.groups];
  for (const [key, values] of Object.entries(user.extra ?? {})) {
    headers[`x-remote-extra-${encodeURIComponent(key)}`] = [...values];
  }
  return headers;
}

export interface ProxyTarget {
  host: string;
  port: number;
  agent: https.Agent;
}

/** Sends the request on to the target and its answer back; a connection failure is a 503 with the error's text. */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, target: ProxyTarget, user: UserInfo): Promise<void> {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined && forwarded(name)) headers[name] = value;
  }
  Object.assign(headers, frontProxyHeaders(user));
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  headers['host'] = `${host}:${target.port}`;
  return new Promise<void>((resolve) => {
    const outgoing = https.request({ host: target.host, port: target.port, method: req.method, path: req.url ?? '/', headers, agent: target.agent });
    const clientGone = (): void => {
      if (!res.writableFinished) outgoing.destroy();
    };
    res.on('close', clientGone);
    outgoing.on('response', (answer) => {
      const out: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) {
        if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      }
      res.writeHead(answer.statusCode ?? 502, out);
      // Headers go at once: a watch may send its first event much later.
      res.flushHeaders();
      // Flushed chunk by chunk: a watch's events reach the client as they arrive.
      answer.on('data', (chunk: Buffer) => res.write(chunk));
      answer.on('end', () => {
        res.end();
        resolve();
      });
      answer.on('error', () => {
        res.destroy();
        resolve();
      });
    });
    outgoing.on('error', (err) => {
      res.off('close', clientGone);
      if (!res.headersSent) writeText(req, res, 503, `${goNetErrorText(err)}\n`);
      else res.destroy();
      resolve();
    });
    req.pipe(outgoing);
  });
}
