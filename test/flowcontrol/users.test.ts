// Classification of authenticated requests (TLS, tokens, RBAC on): the
// cluster admin (system:masters) is exempt, a token user falls to
// global-default, an impersonated request is classified as the user it
// impersonates (the filter runs after impersonation), anonymous probes
// are exempt through the probes schema, and a request authorization refuses
// was classified (the filter runs before authorization). Seen through the X-Kubernetes-PF-*
// response headers, compared with the objects' UIDs.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { startSecureServer } from '../security/helpers.js';
import type { TestServer } from '../helpers/server.js';

let server: TestServer & { ca: string };
let agent: Agent;
let adminAgent: Agent;

before(async () => {
  server = await startSecureServer();
  agent = new Agent({ connect: { ca: server.ca } });
  adminAgent = new Agent({ connect: { ca: server.ca, cert: server.admin.certData!, key: server.admin.keyData! } });
});
after(async () => {
  await agent.close();
  await adminAgent.close();
  await server.stop();
});

async function headersOf(path: string, options: { token?: string; admin?: boolean; headers?: Record<string, string> } = {}): Promise<{ status: number; fs: string | undefined; pl: string | undefined }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const res = await request(`${server.url}${path}`, { headers, dispatcher: options.admin === true ? adminAgent : agent });
  await res.body.text();
  const h = (name: string): string | undefined => (res.headers[name] as string | undefined) ?? undefined;
  return { status: res.statusCode, fs: h('x-kubernetes-pf-flowschema-uid'), pl: h('x-kubernetes-pf-prioritylevel-uid') };
}

async function uid(resource: string, name: string): Promise<string> {
  const res = await request(`${server.url}/apis/flowcontrol.apiserver.k8s.io/v1/${resource}/${name}`, { dispatcher: adminAgent });
  return ((await res.body.json()) as { metadata: { uid: string } }).metadata.uid;
}

test('admin, token user, impersonation and probes are classified as upstream classifies them', async () => {
  const exemptFs = await uid('flowschemas', 'exempt');
  const exemptPl = await uid('prioritylevelconfigurations', 'exempt');
  const globalFs = await uid('flowschemas', 'global-default');
  const globalPl = await uid('prioritylevelconfigurations', 'global-default');
  const probesFs = await uid('flowschemas', 'probes');

  assert.deepEqual(await headersOf('/api/v1/namespaces/default/configmaps', { admin: true }), { status: 200, fs: exemptFs, pl: exemptPl });
  assert.deepEqual(await headersOf('/apis', { token: 'alice-token' }), { status: 200, fs: globalFs, pl: globalPl });
  assert.deepEqual(await headersOf('/apis', { admin: true, headers: { 'impersonate-user': 'bob' } }), { status: 200, fs: globalFs, pl: globalPl });
  assert.deepEqual(await headersOf('/readyz'), { status: 200, fs: probesFs, pl: exemptPl });
  // Classified before authorization, as upstream: a refused request carries the headers too.
  assert.deepEqual(await headersOf('/api/v1/namespaces/default/secrets', { token: 'alice-token' }), { status: 403, fs: globalFs, pl: globalPl });
});
