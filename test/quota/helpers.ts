// Shared pieces of the quota tests: a real apiary server with the resource
// quota controller running beside it (a client of the API, as in
// `apiary serve`), raw HTTP helpers, and waiting for a quota's status.

import { RestClient, type KubeObject } from '../../src/client/index.js';
import { type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import type { ServerOptions } from '../../src/server/server.js';
import { request, type Reply } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

export interface QuotaCluster {
  server: TestServer;
  client: RestClient;
  controllers: RunningControllerManager | undefined;
  post(path: string, body: unknown): Promise<Reply>;
  stop(): Promise<void>;
}

/** A server plus (unless `controller: false`) the resource quota controller, nothing else. */
export async function startQuotaCluster(options: { server?: Partial<ServerOptions>; controller?: boolean } = {}): Promise<QuotaCluster> {
  const server = await startTestServer(options.server ?? {});
  const client = new RestClient({ server: server.url });
  const controllers =
    options.controller === false
      ? undefined
      : startControllerManager({ client, controllers: { namespace: false, systemNamespaces: false, resourceQuota: true } });
  return {
    server,
    client,
    controllers,
    post: (path, body) => request(server.url, 'POST', path, { body }),
    stop: async () => {
      await controllers?.stop();
      await client.close();
      await server.stop();
    },
  };
}

export async function createNamespace(base: string, name: string): Promise<void> {
  const r = await request(base, 'POST', '/api/v1/namespaces', { body: { metadata: { name } } });
  if (r.status !== 201) throw new Error(`namespace ${name}: ${r.text}`);
}

export interface Quota extends KubeObject {
  spec?: { hard?: Record<string, string>; scopes?: string[]; scopeSelector?: unknown };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

export async function getQuota(base: string, ns: string, name: string): Promise<Quota> {
  const r = await request(base, 'GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`);
  if (r.status !== 200) throw new Error(`quota ${ns}/${name}: ${r.text}`);
  return r.json as Quota;
}

/** Creates a quota and waits until the controller has filled its status (hard = spec.hard). */
export async function createQuota(base: string, ns: string, name: string, spec: Quota['spec']): Promise<Quota> {
  const r = await request(base, 'POST', `/api/v1/namespaces/${ns}/resourcequotas`, { body: { metadata: { name }, spec } });
  if (r.status !== 201) throw new Error(`quota ${ns}/${name}: ${r.text}`);
  let q: Quota | undefined;
  await until(`status of quota ${ns}/${name}`, async () => {
    q = await getQuota(base, ns, name);
    return JSON.stringify(Object.keys(q.status?.hard ?? {}).sort()) === JSON.stringify(Object.keys(spec?.hard ?? {}).sort()) && q.status?.used !== undefined;
  });
  return q!;
}

/** Waits until the quota's status.used equals `used` (names not given are not compared). */
export async function waitUsed(base: string, ns: string, name: string, used: Record<string, string>, timeoutMs = 5000): Promise<Quota> {
  let q: Quota | undefined;
  await until(
    `quota ${ns}/${name} used ${JSON.stringify(used)}`,
    async () => {
      q = await getQuota(base, ns, name);
      return Object.entries(used).every(([k, v]) => q!.status?.used?.[k] === v);
    },
    timeoutMs,
  );
  return q!;
}

export function pod(name: string, containers: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers, ...extra } };
}

export function container(name: string, requests?: Record<string, string>, limits?: Record<string, string>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const resources: Record<string, unknown> = {};
  if (requests !== undefined) resources.requests = requests;
  if (limits !== undefined) resources.limits = limits;
  return { name, image: 'nginx', resources, ...extra };
}
