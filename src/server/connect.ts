// The kubelet-facing connect subresources, as kube-apiserver serves them
// (pkg/registry/core/pod/strategy.go's locations, pod/rest's Connect handlers,
// node and service ResourceLocation), after authentication and authorization:
//
// - pods/log: the container's log from its node's kubelet
//   (/containerLogs/{ns}/{pod}/{container}), streamed as text/plain; a pod
//   with no node yet answers an empty 204.
// - pods/exec, pods/attach, pods/portforward: an upgrade (SPDY or WebSocket)
//   proxied byte for byte to the kubelet's /exec, /attach, /portForward; a
//   request that is not an upgrade is a 400 once the location is known.
//   kubectl's port-forward WebSocket tunnel (`SPDY/3.1+portforward.k8s.io`)
//   is translated to the kubelet's SPDY (proxy/websocket-tunnel.ts).
// - pods/proxy, services/proxy, nodes/proxy: any method proxied to the pod's
//   IP, one of the service's endpoints, or the node's kubelet (or another
//   port of the node), the path after `proxy/` appended.
//
// Which errors come first (options, the pod, its container, its node) follows
// upstream's order, so a client sees the same Status.

import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import { StatusError, badRequest, internalError, invalid, isNotFound, notFound, serviceUnavailable, unknownError } from '../machinery/errors.js';
import { fieldErrors, type FieldError } from '../machinery/field-errors.js';
import type { RESTStore } from '../registry/rest.js';
import { parseBool } from './request-info.js';
import { parseInteger } from './request-options.js';
import type { KubeletClient, NodeLike } from './proxy/kubelet.js';
import { isUpgradeRequest, proxyUpgradeAware, relayBody, type ProxyLocation, type ProxyOptions } from './proxy/upgrade-aware.js';
import { tunnelSpdyOverWebSocket, tunneledSpdyProtocols } from './proxy/websocket-tunnel.js';
import { writeError } from './responses.js';

export interface ConnectContext {
  storeFor(group: string, resource: string): RESTStore | undefined;
  kubelet: KubeletClient;
}

export interface ConnectRequest {
  namespace: string;
  name: string;
  subresource: string;
  /** For proxy: the path after `proxy` (with its leading slash), '' when none. */
  proxyPath: string;
  query: URLSearchParams;
}

interface Container {
  name?: string;
  ports?: { containerPort?: number }[];
}

interface PodLike {
  metadata?: { name?: string; namespace?: string };
  spec?: { nodeName?: string; containers?: Container[]; initContainers?: Container[]; ephemeralContainers?: Container[] };
  status?: { podIP?: string; podIPs?: { ip?: string }[] };
}

/** The proxy transport of pods, services and other node ports: TLS not verified, as kube-apiserver's (no kept connections: nothing to close at stop). */
const proxyAgent = new https.Agent({ keepAlive: false, rejectUnauthorized: false });

export async function serveConnect(ctx: ConnectContext, store: RESTStore, request: ConnectRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const resource = store.type.resource;
  if (resource === 'pods') {
    if (request.subresource === 'log') return serveLog(ctx, store, request, res);
    if (request.subresource === 'proxy') return servePodProxy(store, request, req, res);
    return serveStream(ctx, store, request, req, res);
  }
  if (resource === 'nodes') return serveNodeProxy(ctx, store, request, req, res);
  return serveServiceProxy(ctx, store, request, req, res);
}

// ---- pods/log ----

/** How much of a failed backend answer is read into its error (genericrest's maxReadLength). */
const MAX_READ = 50_000;

interface LogOptions {
  container: string;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  sinceSeconds?: number;
  sinceTime?: string;
  tailLines?: number;
  limitBytes?: number;
  insecureSkipTLSVerifyBackend: boolean;
}

function flag(query: URLSearchParams, key: string): boolean {
  return parseBool(query.get(key)) === true;
}

function logOptions(query: URLSearchParams, name: string): LogOptions {
  const options: LogOptions = {
    container: query.get('container') ?? '',
    follow: flag(query, 'follow'),
    previous: flag(query, 'previous'),
    timestamps: flag(query, 'timestamps'),
    insecureSkipTLSVerifyBackend: flag(query, 'insecureSkipTLSVerifyBackend'),
  };
  const sinceSeconds = parseInteger(query, 'sinceSeconds');
  const tailLines = parseInteger(query, 'tailLines');
  const limitBytes = parseInteger(query, 'limitBytes');
  if (sinceSeconds !== undefined) options.sinceSeconds = sinceSeconds;
  if (tailLines !== undefined) options.tailLines = tailLines;
  if (limitBytes !== undefined) options.limitBytes = limitBytes;
  const sinceTime = query.get('sinceTime');
  if (sinceTime !== null && sinceTime !== '') {
    const parsed = Date.parse(sinceTime);
    if (Number.isNaN(parsed)) throw badRequest(`parsing time ${JSON.stringify(sinceTime)} as "2006-01-02T15:04:05Z07:00": cannot parse ${JSON.stringify(sinceTime)} as "2006"`);
    options.sinceTime = new Date(parsed).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  // ValidatePodLogOptions.
  const errors: FieldError[] = [];
  if (options.tailLines !== undefined && options.tailLines < 0) errors.push(fieldErrors.invalid('tailLines', options.tailLines, 'must be greater than or equal to 0'));
  if (options.limitBytes !== undefined && options.limitBytes < 1) errors.push(fieldErrors.invalid('limitBytes', options.limitBytes, 'must be greater than 0'));
  if (options.sinceSeconds !== undefined && options.sinceTime !== undefined) errors.push(fieldErrors.forbidden('[]', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (options.sinceSeconds !== undefined && options.sinceSeconds < 1) errors.push(fieldErrors.invalid('sinceSeconds', options.sinceSeconds, 'must be greater than 0'));
  if (errors.length > 0) throw invalid('', 'PodLogOptions', name, errors);
  return options;
}

async function serveLog(ctx: ConnectContext, store: RESTStore, request: ConnectRequest, res: ServerResponse): Promise<void> {
  const options = logOptions(request.query, request.name);
  const pod = (await store.get(request.namespace, request.name, {})) as PodLike;
  const container = containerFor(pod, options.container);
  const nodeName = pod.spec?.nodeName ?? '';
  if (nodeName === '') {
    res.writeHead(204);
    res.end();
    return;
  }
  const connection = ctx.kubelet.connectionFor(await getNode(ctx, nodeName), options.insecureSkipTLSVerifyBackend);
  const params = new URLSearchParams();
  if (options.follow) params.append('follow', 'true');
  if (options.previous) params.append('previous', 'true');
  if (options.timestamps) params.append('timestamps', 'true');
  if (options.sinceSeconds !== undefined) params.append('sinceSeconds', String(options.sinceSeconds));
  if (options.sinceTime !== undefined) params.append('sinceTime', options.sinceTime);
  if (options.tailLines !== undefined) params.append('tailLines', String(options.tailLines));
  if (options.limitBytes !== undefined) params.append('limitBytes', String(options.limitBytes));
  const path = `/containerLogs/${request.namespace}/${request.name}/${container}${encodeQuery(params)}`;
  const url = `https://${hostPort(connection.host, connection.port)}${path}`;
  await new Promise<void>((resolve, reject) => {
    const outgoing = https.request({ host: connection.host, port: connection.port, path, method: 'GET', agent: connection.agent });
    const clientGone = (): void => {
      if (!res.writableFinished) outgoing.destroy();
    };
    res.on('close', clientGone);
    outgoing.on('error', (err) => {
      res.off('close', clientGone);
      if (res.headersSent) {
        res.destroy();
        resolve();
      } else reject(unknownError(`Get ${JSON.stringify(url)}: ${dialErrorText(err, connection.host, connection.port)}`));
    });
    outgoing.on('response', (answer) => {
      const code = answer.statusCode ?? 500;
      if (code < 200 || code > 299) {
        // genericrest's response checker: the kubelet's words in a Status of its code.
        const chunks: Buffer[] = [];
        let size = 0;
        answer.on('data', (chunk: Buffer) => {
          if (size < MAX_READ) chunks.push(chunk);
          size += chunk.length;
        });
        answer.on('end', () => {
          res.off('close', clientGone);
          reject(backendResponseError(code, 'pods/log', request.name, Buffer.concat(chunks).subarray(0, MAX_READ).toString('utf8')));
        });
        answer.on('error', (err) => reject(internalError(err)));
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Transfer-Encoding': 'chunked' });
      relayBody(answer, res, resolve);
    });
    outgoing.end();
  });
}

/** genericrest's response checker: a backend's non-2xx answer as a Status (its body kept where upstream keeps it). */
function backendResponseError(code: number, resource: string, name: string, body: string): StatusError {
  if (code === 500) return internalError(new Error(body));
  if (code === 400) return badRequest(body);
  // errors.NewGenericServerResponse with no verb.
  const known: Record<number, [StatusError['reason'], string]> = {
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', body],
    404: ['NotFound', 'the server could not find the requested resource'],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    409: ['Conflict', 'the server reported a conflict'],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
  };
  let [reason, message] = known[code] ?? ['', `the server responded with the status code ${code} but did not return more information`];
  if (known[code] === undefined && code >= 500) [reason, message] = ['InternalError', `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`];
  return new StatusError(code, reason, `${message} ( ${resource} ${name})`, { name, kind: resource });
}

// ---- pods/exec, pods/attach, pods/portforward ----

const STREAM_PATHS: Record<string, string> = { exec: 'exec', attach: 'attach', portforward: 'portForward' };

async function serveStream(ctx: ConnectContext, store: RESTStore, request: ConnectRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const query = request.query;
  const params = new URLSearchParams();
  if (request.subresource === 'portforward') {
    const ports = query.getAll('ports').map((p) => parseInteger(new URLSearchParams({ p }), 'p'));
    if (ports.length > 0) params.append('port', ports.join(','));
  } else {
    // The kubelet's names of the streams (api.ExecStdinParam and its siblings).
    const kubeletNames: Record<string, string> = { stdin: 'input', stdout: 'output', stderr: 'error', tty: 'tty' };
    for (const [stream, param] of Object.entries(kubeletNames)) if (flag(query, stream)) params.append(param, '1');
    if (request.subresource === 'exec') for (const c of query.getAll('command')) params.append('command', c);
  }
  const pod = (await store.get(request.namespace, request.name, {})) as PodLike;
  let container = '';
  if (request.subresource !== 'portforward') container = containerFor(pod, query.get('container') ?? '');
  const nodeName = pod.spec?.nodeName ?? '';
  if (nodeName === '') throw badRequest(`pod ${request.name} does not have a host assigned`);
  const connection = ctx.kubelet.connectionFor(await getNode(ctx, nodeName));
  if (!isUpgradeRequest(req)) throw badRequest('Upgrade request required');
  const base = `/${STREAM_PATHS[request.subresource]!}/${request.namespace}/${request.name}${container !== '' ? `/${container}` : ''}`;
  const location: ProxyLocation = { protocol: 'https:', host: connection.host, port: connection.port, path: `${base}${encodeQuery(params)}`, agent: connection.agent };
  // kubectl 1.32 forwards ports over a WebSocket carrying SPDY; kubelets speak SPDY: the tunnel translates (PortForwardWebsockets).
  const tunneled = request.subresource === 'portforward' ? tunneledSpdyProtocols(req) : [];
  if (tunneled.length > 0) {
    await tunnelSpdyOverWebSocket(req, res, location, tunneled, proxyOptions(req, res, location));
    return;
  }
  await proxy(req, res, location);
}

// ---- the proxy subresources ----

/** utilnet.SplitSchemeNamePort: "name", "name:port" or "scheme:name:port", scheme http, https or none. */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name: string;
  let port = '';
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) [name, port] = [parts[0]!, parts[1]!];
  else if (parts.length === 3) [scheme, name, port] = [parts[0]!, parts[1]!, parts[2]!];
  else return undefined;
  if (name === '' || !['', 'http', 'https'].includes(scheme)) return undefined;
  return { scheme, name, port };
}

async function servePodProxy(store: RESTStore, request: ConnectRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = splitSchemeNamePort(request.name);
  if (id === undefined) throw badRequest(`invalid pod request ${JSON.stringify(request.name)}`);
  const pod = (await store.get(request.namespace, id.name, {})) as PodLike;
  let port = id.port;
  if (port === '') {
    const withPorts = (pod.spec?.containers ?? []).find((c) => (c.ports ?? []).length > 0);
    if (withPorts !== undefined) port = String(withPorts.ports![0]!.containerPort ?? '');
  }
  const podIP = pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP ?? '';
  if (!isProxyableIP(podIP)) throw badRequest('address not allowed');
  await proxyTo(req, res, id.scheme, podIP, port, request);
}

async function serveServiceProxy(ctx: ConnectContext, store: RESTStore, request: ConnectRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = splitSchemeNamePort(request.name);
  if (id === undefined) throw badRequest(`invalid service request ${JSON.stringify(request.name)}`);
  let portName = id.port;
  if (/^[-+]?\d+$/.test(id.port)) {
    const number = Number(id.port);
    const service = (await store.get(request.namespace, id.name, {})) as { spec?: { ports?: { port?: number; name?: string }[] } };
    const match = (service.spec?.ports ?? []).find((p) => p.port === number);
    if (match === undefined) throw serviceUnavailable(`no service port ${number} found for service ${JSON.stringify(id.name)}`);
    portName = match.name ?? '';
  }
  const endpointsStore = ctx.storeFor('', 'endpoints');
  if (endpointsStore === undefined) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
  // A missing Endpoints object is reported as the service not found, as upstream's endpoints getter words it.
  const endpoints = (await endpointsStore.get(request.namespace, id.name, {}).catch((err: unknown) => {
    throw isNotFound(err) ? notFound({ group: '', resource: 'services' }, id.name) : err;
  })) as {
    subsets?: { addresses?: { ip?: string; targetRef?: { kind?: string; namespace?: string; name?: string } }[]; ports?: { name?: string; port?: number }[] }[];
  };
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(id.name)}`);
  const pods = ctx.storeFor('', 'pods');
  // Upstream starts at a random subset and address; the first that fits is as good for one request.
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    if (addresses.length === 0) continue;
    for (const port of subset.ports ?? []) {
      if ((port.name ?? '') !== portName) continue;
      for (const address of addresses) {
        // The address must be a pod's, and that pod must still have the address (upstream's isValidAddress).
        const ref = address.targetRef;
        if (ref === undefined || ref.kind !== 'Pod' || pods === undefined) continue;
        let pod: PodLike;
        try {
          pod = (await pods.get(ref.namespace ?? request.namespace, ref.name ?? '', {})) as PodLike;
        } catch {
          continue;
        }
        const ips = (pod.status?.podIPs ?? []).map((p) => p.ip);
        if (!ips.includes(address.ip)) continue;
        await proxyTo(req, res, id.scheme, address.ip ?? '', String(port.port ?? ''), request);
        return;
      }
    }
  }
  throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(request.name)}`);
}

async function serveNodeProxy(ctx: ConnectContext, store: RESTStore, request: ConnectRequest, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const id = splitSchemeNamePort(request.name);
  if (id === undefined) throw badRequest(`invalid node request ${JSON.stringify(request.name)}`);
  const node = (await store.get('', id.name, {})) as NodeLike;
  const connection = ctx.kubelet.connectionFor(node);
  await requireProxyableHostname(connection.host);
  const path = joinProxyPath('', request.proxyPath);
  if (id.port === '' || id.port === String(connection.port)) {
    await proxy(req, res, { protocol: 'https:', host: connection.host, port: connection.port, path: `${path}${rawQuery(req)}`, agent: connection.agent });
    return;
  }
  await proxyTo(req, res, id.scheme, connection.host, id.port, request);
}

/** Proxies to scheme://host:port/<proxy path>, the client's query kept (the proxy transport). */
async function proxyTo(req: IncomingMessage, res: ServerResponse, scheme: string, host: string, port: string, request: ConnectRequest): Promise<void> {
  const secure = scheme === 'https';
  const portNumber = port === '' ? (secure ? 443 : 80) : Number(port);
  const location: ProxyLocation = { protocol: secure ? 'https:' : 'http:', host, port: portNumber, path: `${joinProxyPath('', request.proxyPath)}${rawQuery(req)}` };
  if (secure) location.agent = proxyAgent;
  await proxy(req, res, location);
}

/** The credentials apiary checked stay here: upstream's authentication and impersonation filters remove them from the request. */
function forwardedHeader(name: string): boolean {
  return name !== 'authorization' && !name.startsWith('impersonate-') && !name.startsWith('x-remote-');
}

function proxyOptions(req: IncomingMessage, res: ServerResponse, location: ProxyLocation): ProxyOptions {
  const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter((v) => v !== undefined && v !== '').join(', ');
  return {
    forwardHeader: forwardedHeader,
    extraHeaders: forwardedFor !== '' ? { 'x-forwarded-for': forwardedFor } : {},
    // A failed dial is the transport's error as a Status without a reason (ErrorToAPIStatus).
    onError: (err) => writeError(req, res, unknownError(dialErrorText(err, location.host, location.port))),
  };
}

function proxy(req: IncomingMessage, res: ServerResponse, location: ProxyLocation): Promise<void> {
  return proxyUpgradeAware(req, res, location, proxyOptions(req, res, location));
}

// ---- helpers ----

function rawQuery(req: IncomingMessage): string {
  const url = req.url ?? '';
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at);
}

function encodeQuery(params: URLSearchParams): string {
  // Go's url.Values.Encode sorts by key and escapes spaces as '+', as URLSearchParams does.
  params.sort();
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** path.Join of the location's path and the proxy path, a trailing slash kept (net.JoinPreserveTrailingSlash). */
function joinProxyPath(base: string, extra: string): string {
  const joined = `${base}/${extra}`.split('/').filter((s) => s !== '' && s !== '.');
  const out: string[] = [];
  for (const s of joined) {
    if (s === '..') out.pop();
    else out.push(s);
  }
  let path = `/${out.join('/')}`;
  if (extra.endsWith('/') && !path.endsWith('/')) path += '/';
  return path;
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** How Go's dialer words a failure, for the messages clients see. */
function dialErrorText(err: Error, host: string, port: number): string {
  const code = (err as NodeJS.ErrnoException).code;
  const target = hostPort(host, port);
  switch (code) {
    case 'ECONNREFUSED':
      return `dial tcp ${target}: connect: connection refused`;
    case 'EHOSTUNREACH':
      return `dial tcp ${target}: connect: no route to host`;
    case 'ETIMEDOUT':
      return `dial tcp ${target}: i/o timeout`;
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host}: no such host`;
    // A kubelet certificate the CA did not sign (crypto/x509's UnknownAuthorityError).
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'CERT_HAS_EXPIRED':
      return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default:
      return err.message;
  }
}

/** The container named, or the pod's only container (upstream's validateContainer). */
function containerFor(pod: PodLike, container: string): string {
  const name = pod.metadata?.name ?? '';
  const containers = pod.spec?.containers ?? [];
  // podutil.VisitContainers' order: init containers, containers, ephemeral containers.
  const all = [...(pod.spec?.initContainers ?? []), ...containers, ...(pod.spec?.ephemeralContainers ?? [])];
  if (container === '') {
    if (containers.length === 1) return containers[0]!.name ?? '';
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    // Go's %s of a []string: [a b c], init containers and ephemeral ones included.
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${all.map((c) => c.name ?? '').join(' ')}]`);
  }
  if (!all.some((c) => c.name === container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  return container;
}

/** The pod's node; a missing one is reported as kube-apiserver's connection getter does, as a pod not found. */
async function getNode(ctx: ConnectContext, name: string): Promise<NodeLike> {
  const nodes = ctx.storeFor('', 'nodes');
  if (nodes === undefined) throw notFound({ group: '', resource: 'pods' }, name);
  try {
    return (await nodes.get('', name, {})) as NodeLike;
  } catch (err) {
    if (isNotFound(err)) throw notFound({ group: '', resource: 'pods' }, name);
    throw err;
  }
}

/** proxyutil.IsProxyableIP: not loopback, link-local or interface-local multicast, and an IP at all. */
function isProxyableIP(ip: string): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  if (family === 4) {
    const [a, b] = ip.split('.').map(Number) as [number, number];
    if (a === 127 || (a === 169 && b === 254) || (a === 224 && b === 0)) return false;
    return ip !== '0.0.0.0';
  }
  const lower = ip.toLowerCase();
  if (lower === '::1' || lower === '::' || lower.startsWith('fe8') || lower.startsWith('fe9') || lower.startsWith('fea') || lower.startsWith('feb')) return false;
  if (lower.startsWith('ff01') || lower.startsWith('ff02') || lower.startsWith('ff11') || lower.startsWith('ff12')) return false;
  if (lower.startsWith('::ffff:')) return isProxyableIP(lower.slice(7));
  return true;
}

/** The node's address must not resolve to a loopback or link-local one (upstream's isProxyableHostname). */
async function requireProxyableHostname(host: string): Promise<void> {
  let addresses: string[];
  if (isIP(host) !== 0) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      throw badRequest(`lookup ${host}: no such host`);
    }
  }
  if (addresses.length === 0) throw badRequest('no addresses for hostname');
  for (const address of addresses) if (!isProxyableIP(address)) throw badRequest('address not allowed');
}
