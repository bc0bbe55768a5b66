// Proxies one request to an extension API server, as kube-aggregator's proxy
// handler does after authentication and authorization: the caller's own
// credentials and identity headers are never passed on (Authorization,
// Impersonate-*, X-Remote-*); the authenticated user goes as the front-proxy
// headers (X-Remote-User, one X-Remote-Group per group, X-Remote-Extra-<key>
// per extra value) over a connection that presents the proxy client
// certificate. The answer is streamed back as it comes (watches included);
// upgrades (a WebSocket or SPDY stream an extension server offers) pass byte
// for byte through proxy/upgrade-aware.ts. An extension server out of reach is
// a 503 with Go's text of the error.

import https from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { UserInfo } from '../../machinery/user.js';
import { writeText } from '../responses.js';
import { goNetErrorText } from './go-errors.js';
import { proxyUpgradeAware } from '../proxy/upgrade-aware.js';

/** Whether a request header stays on the proxied request (hop-by-hop ones never do: the shared proxy drops them). */
function forwarded(name: string): boolean {
  return name !== 'authorization' && !name.startsWith('impersonate-') && !name.startsWith('x-remote-');
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

/**
 * Sends the request on to the target and its answer back (an upgrade too, through the
 * shared upgrade-aware proxy); a connection failure is a 503 with the error's text.
 */
export function proxyRequest(req: IncomingMessage, res: ServerResponse, target: ProxyTarget, user: UserInfo): Promise<void> {
  return proxyUpgradeAware(req, res, { protocol: 'https:', host: target.host, port: target.port, path: req.url ?? '/', agent: target.agent }, {
    forwardHeader: forwarded,
    extraHeaders: frontProxyHeaders(user),
    onError: (err) => writeText(req, res, 503, `${goNetErrorText(err)}\n`),
  });
}
