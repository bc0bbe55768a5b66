// A stand-in extension API server, kept only for what the real one
// (k8s.io/sample-apiserver, run by test/aggregation/sample-apiserver.test.ts)
// cannot give: a record of the headers each request arrived with, a server
// that answers 500s or hangs on demand, a count of open watches, and a run
// without Go. It is node:https on
// 127.0.0.1 (a free port) serving one group/version (wardle.example.com/v1alpha1,
// namespaced `flunders`, kept in memory) as k8s.io/sample-apiserver does:
// discovery, list, get, create, delete and a streaming watch.
//
// Like a real extension server it trusts the front-proxy headers only from a
// client presenting a certificate signed by the request-header CA: any other
// request is a 401. Every request's headers are recorded for assertions.
// An upgrade to the `echo` protocol, on any path, echoes the bytes it gets.
// Its serving certificate is for `api.<namespace>.svc` (what the aggregator
// checks), signed by its own CA (`caPem`, the APIService's caBundle).

import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate } from '../../src/auth/pki/pki.js';

export const WARDLE_GROUP = 'wardle.example.com';
export const WARDLE_VERSION = 'v1alpha1';

export interface FrontProxyPki {
  caPem: string;
  /** Files for --proxy-client-cert-file / --proxy-client-key-file. */
  clientCertFile: string;
  clientKeyFile: string;
  /** The request-header CA, as a file (--requestheader-client-ca-file). */
  caFile: string;
  dir: string;
}

/** A front-proxy CA and the proxy client certificate it signs (CN=front-proxy-client), in a temporary folder. */
export async function makeFrontProxyPki(): Promise<FrontProxyPki> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-front-proxy-'));
  const ca = await createCertificateAuthority('front-proxy-ca');
  const client = await issueClientCertificate(ca, 'front-proxy-client', []);
  const file = (name: string, text: string): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, text, { mode: 0o600 });
    return p;
  };
  return {
    caPem: ca.certPem,
    caFile: file('front-proxy-ca.crt', ca.certPem),
    clientCertFile: file('front-proxy-client.crt', client.certPem),
    clientKeyFile: file('front-proxy-client.key', client.keyPem),
    dir,
  };
}

export interface ExtensionServer {
  port: number;
  /** The CA of its serving certificate (the APIService's caBundle, PEM). */
  caPem: string;
  /** Headers of every request it received, in order. */
  requests: { method: string; path: string; headers: IncomingHttpHeaders }[];
  /** Makes every request hang (no answer) until released, or answers 500s. */
  mode: 'serve' | 'hang' | 'fail';
  /** Open watch streams. */
  watchers: number;
  stop(): Promise<void>;
}

type Flunder = { apiVersion: string; kind: string; metadata: { name: string; namespace: string; resourceVersion: string; uid: string; creationTimestamp: string }; spec?: unknown };

export async function startExtensionServer(options: { frontProxyCaPem: string; serviceNamespace?: string }): Promise<ExtensionServer> {
  const ca = await createCertificateAuthority('wardle-ca');
  const serving = await issueServingCertificate(ca, [`api.${options.serviceNamespace ?? 'default'}.svc`]);
  const flunders = new Map<string, Flunder>();
  const watches = new Set<{ namespace: string; res: ServerResponse }>();
  let revision = 1;
  const hanging = new Set<ServerResponse>();
  const state: ExtensionServer = {
    port: 0,
    caPem: ca.certPem,
    requests: [],
    mode: 'serve',
    watchers: 0,
    stop: async () => {
      for (const w of watches) w.res.destroy();
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const json = (res: ServerResponse, code: number, body: unknown): void => {
    res.writeHead(code, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const status = (res: ServerResponse, code: number, reason: string, message: string): void =>
    json(res, code, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code });
  const notify = (type: string, obj: Flunder): void => {
    for (const w of watches) if (w.namespace === '' || w.namespace === obj.metadata.namespace) w.res.write(`${JSON.stringify({ type, object: obj })}\n`);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'https://x');
    state.requests.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers });
    if (state.mode === 'hang') {
      hanging.add(res);
      return;
    }
    if (state.mode === 'fail') return status(res, 500, 'InternalError', 'failing on purpose');
    const socket = req.socket as TLSSocket;
    // Front-proxy headers are believed only from the request-header CA's clients.
    if (!socket.authorized || req.headers['x-remote-user'] === undefined) return status(res, 401, 'Unauthorized', 'Unauthorized');
    const base = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}`;
    if (url.pathname === '/openapi/v3') {
      return json(res, 200, { paths: { [`apis/${WARDLE_GROUP}/${WARDLE_VERSION}`]: { serverRelativeURL: `/openapi/v3/apis/${WARDLE_GROUP}/${WARDLE_VERSION}?hash=WARDLE1` } } });
    }
    if (url.pathname === `/openapi/v3${base}`) {
      return json(res, 200, {
        openapi: '3.0.0',
        info: { title: 'wardle', version: WARDLE_VERSION },
        paths: {
          [`${base}/namespaces/{namespace}/flunders/{name}`]: {
            get: {
              operationId: 'readWardleV1alpha1NamespacedFlunder',
              'x-kubernetes-action': 'get',
              'x-kubernetes-group-version-kind': { group: WARDLE_GROUP, version: WARDLE_VERSION, kind: 'Flunder' },
              responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/com.example.wardle.v1alpha1.Flunder' } } } } },
            },
          },
        },
        components: {
          schemas: {
            'com.example.wardle.v1alpha1.Flunder': {
              type: 'object',
              description: 'A flunder of the wardle test server.',
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                spec: { type: 'object', description: 'What the flunder wants.', properties: { reference: { type: 'string', description: 'The name of another flunder.' } } },
              },
              'x-kubernetes-group-version-kind': [{ group: WARDLE_GROUP, version: WARDLE_VERSION, kind: 'Flunder' }],
            },
          },
        },
      });
    }
    if (url.pathname === base) {
      return json(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`,
        resources: [
          { name: 'flunders', singularName: 'flunder', namespaced: true, kind: 'Flunder', verbs: ['create', 'delete', 'get', 'list', 'watch'], shortNames: ['fl'] },
          { name: 'flunders/status', singularName: '', namespaced: true, kind: 'Flunder', verbs: ['get', 'patch', 'update'] },
        ],
      });
    }
    const m = new RegExp(`^${base}(?:/namespaces/([^/]+))?/flunders(?:/([^/]+))?$`).exec(url.pathname);
    if (m === null) return status(res, 404, 'NotFound', 'the server could not find the requested resource');
    const namespace = m[1] ?? '';
    const name = m[2];
    const key = (ns: string, n: string): string => `${ns}/${n}`;
    if (req.method === 'GET' && name === undefined && url.searchParams.get('watch') === 'true') {
      res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
      res.flushHeaders();
      const w = { namespace, res };
      watches.add(w);
      state.watchers++;
      res.on('close', () => {
        watches.delete(w);
        state.watchers--;
      });
      return;
    }
    if (req.method === 'GET' && name === undefined) {
      const items = [...flunders.values()].filter((f) => namespace === '' || f.metadata.namespace === namespace);
      return json(res, 200, { kind: 'FlunderList', apiVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, metadata: { resourceVersion: String(revision) }, items });
    }
    if (req.method === 'GET') {
      const f = flunders.get(key(namespace, name!));
      return f === undefined ? status(res, 404, 'NotFound', `flunders.${WARDLE_GROUP} "${name}" not found`) : json(res, 200, f);
    }
    if (req.method === 'POST' && name === undefined) {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { metadata?: { name?: string }; spec?: unknown };
      const n = body.metadata?.name ?? '';
      if (flunders.has(key(namespace, n))) return status(res, 409, 'AlreadyExists', `flunders.${WARDLE_GROUP} "${n}" already exists`);
      revision++;
      const f: Flunder = {
        apiVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`,
        kind: 'Flunder',
        metadata: { name: n, namespace, resourceVersion: String(revision), uid: `uid-${revision}`, creationTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z') },
        spec: body.spec,
      };
      flunders.set(key(namespace, n), f);
      notify('ADDED', f);
      return json(res, 201, f);
    }
    if (req.method === 'DELETE' && name !== undefined) {
      const f = flunders.get(key(namespace, name));
      if (f === undefined) return status(res, 404, 'NotFound', `flunders.${WARDLE_GROUP} "${name}" not found`);
      flunders.delete(key(namespace, name));
      notify('DELETED', f);
      return json(res, 200, f);
    }
    return status(res, 405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  };

  const server = https.createServer(
    { key: serving.keyPem, cert: serving.certPem, ca: options.frontProxyCaPem, requestCert: true, rejectUnauthorized: false },
    (req, res) => void handle(req, res).catch(() => res.destroy()),
  );
  // An upgrade to the `echo` protocol (any path): 101, the user it saw in a header, then every byte sent back.
  server.on('upgrade', (req: IncomingMessage, socket: TLSSocket) => {
    state.requests.push({ method: req.method ?? 'GET', path: new URL(req.url ?? '/', 'https://x').pathname, headers: req.headers });
    if (!socket.authorized || req.headers['x-remote-user'] === undefined || req.headers.upgrade !== 'echo') {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\nX-Seen-User: ${String(req.headers['x-remote-user'])}\r\n\r\n`);
    socket.pipe(socket);
    socket.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  return state;
}
