// The webhook client: POSTs one AdmissionReview (or ConversionReview) to a
// webhook over HTTPS and returns the decoded answer, or throws a
// WebhookCallError whose text is what client-go's rest client says for the
// same failure (`Post "https://…?timeout=10s": dial tcp …: connect: connection
// refused`, `context deadline exceeded`, `an error on the server ("…") has
// prevented the request from succeeding`), which the dispatchers wrap in
// upstream's `failed calling webhook "x": failed to call webhook: …`.
//
// Where to send: clientConfig.url, or clientConfig.service resolved by a
// ServiceResolver (upstream dials the service's cluster IP; nothing routes
// cluster IPs here, so the default resolver picks an address of the Service's
// Endpoints, as kube-apiserver's endpoint routing does). TLS is verified
// against clientConfig.caBundle (the system roots without one), with the
// server name of the URL's host or `<service>.<namespace>.svc`.
//
// Bounded concurrency: each distinct target has its own keep-alive agent with
// at most MAX_SOCKETS_PER_TARGET connections, so a slow webhook queues its own
// calls (each still bounded by its timeout) and never holds anything another
// request needs.

import https from 'node:https';
import type { WebhookClientConfig } from '../../api/admissionregistration/v1/types.js';

export const MAX_SOCKETS_PER_TARGET = 64;
/** Upstream's cap on the text of a non-Status error body it quotes. */
const MAX_UNSTRUCTURED_TEXT = 1024 * 4;

/** Where a service reference goes: an address that routes here, and the TLS name to verify. */
export interface ResolvedService {
  host: string;
  port: number;
}

/** Resolves clientConfig.service (namespace, name, port) to an address; throws an Error with the reason when it cannot. */
export type ServiceResolver = (namespace: string, name: string, port: number) => Promise<ResolvedService>;

/** A failed call, in client-go's words; `statusCode` when the webhook answered with a non-2xx status. */
export class WebhookCallError extends Error {
  constructor(
    message: string,
    readonly statusCode?: number,
  ) {
    super(message);
  }
}

interface Target {
  url: string;
  host: string;
  port: number;
  path: string;
  servername: string;
}

const agents = new Map<string, https.Agent>();

function agentFor(key: string, ca: string | undefined): https.Agent {
  let agent = agents.get(key);
  if (agent === undefined) {
    const options: https.AgentOptions = { keepAlive: true, maxSockets: MAX_SOCKETS_PER_TARGET };
    if (ca !== undefined) options.ca = ca;
    agent = new https.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the idle connections of every webhook agent (server shutdown, tests). */
export function closeWebhookAgents(): void {
  for (const agent of agents.values()) agent.destroy();
  agents.clear();
}

function hostOf(u: URL): string {
  return u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
}

async function targetOf(config: WebhookClientConfig, timeoutSeconds: number, resolve: ServiceResolver): Promise<Target> {
  const query = `?timeout=${timeoutSeconds}s`;
  if (config.url !== undefined && config.url !== null) {
    const u = new URL(config.url);
    const host = hostOf(u);
    const port = u.port === '' ? 443 : Number(u.port);
    const path = `${u.pathname}${query}`;
    return { url: `${config.url}${query}`, host, port, path, servername: host };
  }
  const svc = config.service!;
  const port = svc.port ?? 443;
  const serverName = `${svc.name}.${svc.namespace}.svc`;
  let path = svc.path ?? '';
  if (path !== '' && !path.startsWith('/')) path = `/${path}`;
  // client-go's request path: the base path joined to "/" (an empty path is "/")
  const url = `https://${serverName}:${port}${path === '' ? '/' : path}${query}`;
  let resolved: ResolvedService;
  try {
    resolved = await resolve(svc.namespace, svc.name, port);
  } catch (err) {
    // upstream resolves the service in the rest client's dialer: a failure is the POST's error
    throw new WebhookCallError(`Post "${url}": ${(err as Error).message}`);
  }
  return { url, host: resolved.host, port: resolved.port, path: `${path === '' ? '/' : path}${query}`, servername: serverName };
}

/** A Node network or TLS error in Go's net/http words. */
function goNetError(err: NodeJS.ErrnoException & { host?: string; reason?: string }, target: Target): string {
  const address = `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
  switch (err.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${address}: connect: connection refused`;
    case 'ECONNRESET':
      return 'EOF';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `dial tcp: lookup ${target.host}: no such host`;
    case 'EHOSTUNREACH':
      return `dial tcp ${address}: connect: no route to host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'UNABLE_TO_GET_ISSUER_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `tls: failed to verify certificate: x509: certificate is not valid for ${target.servername}`;
    default:
      return err.message;
  }
}

/** client-go's NewGenericServerResponse message for a non-2xx answer that is no Status. */
function genericServerMessage(code: number, body: string): string {
  switch (code) {
    case 409:
      return 'the server reported a conflict';
    case 404:
      return 'the server could not find the requested resource';
    case 400:
      return 'the server rejected our request for an unknown reason';
    case 401:
      return 'the server has asked for the client to provide credentials';
    case 403:
    case 406:
    case 415:
      return body;
    case 405:
      return 'the server does not allow this method on the requested resource';
    case 422:
      return 'the server rejected our request due to an error in our request';
    case 503:
      return 'the server is currently unable to handle the request';
    case 504:
      return 'the server was unable to return a response in the time allotted, but may still be processing the request';
    case 429:
      return 'the server has received too many requests and has asked us to try again later';
    default:
      if (code >= 500) return `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`;
      return `the server responded with the status code ${code} but did not return more information`;
  }
}

export interface CallOptions {
  timeoutSeconds: number;
  resolveService: ServiceResolver;
}

/** POSTs `body` (JSON) and returns the decoded JSON answer. */
export async function callWebhook(config: WebhookClientConfig, body: unknown, options: CallOptions): Promise<unknown> {
  const target = await targetOf(config, options.timeoutSeconds, options.resolveService);
  const ca = config.caBundle !== undefined && config.caBundle !== null && config.caBundle !== '' ? Buffer.from(config.caBundle, 'base64').toString('utf8') : undefined;
  const agent = agentFor(`${target.host}|${target.port}|${target.servername}|${config.caBundle ?? ''}`, ca);
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise<unknown>((resolve, reject) => {
    let settled = false;
    const fail = (message: string, statusCode?: number): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new WebhookCallError(`Post "${target.url}": ${message}`, statusCode));
    };
    const req = https.request(
      {
        host: target.host,
        port: target.port,
        path: target.path,
        method: 'POST',
        agent,
        // TLS verifies this name (SNI is not sent for an IP, as Go does not).
        servername: isIp(target.servername) ? '' : target.servername,
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, */*', 'Content-Length': payload.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (err) => fail(goNetError(err as NodeJS.ErrnoException, target)));
        res.on('end', () => {
          if (settled) return;
          const text = Buffer.concat(chunks).toString('utf8');
          const code = res.statusCode ?? 0;
          if (code < 200 || code > 299) {
            settled = true;
            clearTimeout(timer);
            // A Status body speaks for itself; anything else is quoted as client-go quotes it.
            let message: string | undefined;
            try {
              const parsed = JSON.parse(text) as { kind?: string; message?: string };
              if (parsed?.kind === 'Status' && typeof parsed.message === 'string') message = parsed.message;
            } catch {
              // not JSON
            }
            const contentType = String(res.headers['content-type'] ?? '');
            const isText = contentType === '' || contentType.startsWith('text/');
            const quoted = isText ? text.slice(0, MAX_UNSTRUCTURED_TEXT).trim() : 'unknown';
            reject(new WebhookCallError(message ?? genericServerMessage(code, quoted), code));
            return;
          }
          try {
            const parsed = JSON.parse(text) as unknown;
            settled = true;
            clearTimeout(timer);
            resolve(parsed);
          } catch (err) {
            fail(`${(err as Error).message}`);
          }
        });
      },
    );
    const timer = setTimeout(() => {
      fail('context deadline exceeded');
      req.destroy();
    }, options.timeoutSeconds * 1000);
    req.on('error', (err) => fail(goNetError(err as NodeJS.ErrnoException, target)));
    req.end(payload);
  });
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
