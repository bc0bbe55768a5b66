// The namespaces a tenant may see (issue 31): what the narrowed namespace list
// costs. An in-process server with security on holds NAMESPACES namespaces in
// trees of TREE (a root and its descendants, chained); the tenant is bound to
// `view` at the root of VISIBLE_TREES trees, so it sees those trees (the
// rest by inheritance). Alternating rounds time a full list of namespaces as
// the admin (cluster-wide right: the ceiling, no filter) and as the tenant,
// ROUNDS each over one keep-alive connection per identity. Prints the
// medians and the tenant's ratio to the admin's.
//
//   node --import tsx bench/namespace-visibility.ts
//   NAMESPACES=1000 TREE=10 VISIBLE_TREES=2 ROUNDS=30 node --import tsx bench/namespace-visibility.ts

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { startTestServer } from '../test/helpers/server.js';
import { fmt, median } from './lib.js';

const NAMESPACES = Number(process.env.NAMESPACES ?? 1000);
const TREE = Number(process.env.TREE ?? 10);
const VISIBLE_TREES = Number(process.env.VISIBLE_TREES ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? 30);
const HNC = '/apis/hnc.x-k8s.io/v1alpha2';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-bench-vis-'));
const tokens = path.join(dir, 'tokens.csv');
fs.writeFileSync(tokens, 'tenant-token,tina,tina-uid\n');
const server = await startTestServer({ security: { tokenAuthFile: tokens } });
try {
  const ca = server.admin.caData!;
  const adminAgent = new Agent({ connect: { ca, cert: server.admin.certData!, key: server.admin.keyData! } });
  const tenantAgent = new Agent({ connect: { ca } });
  const call = async (agent: Agent, method: string, p: string, body?: unknown, token?: string): Promise<{ status: number; json: any }> => { // eslint-disable-line @typescript-eslint/no-explicit-any -- wire objects
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
    const res = await request(server.url + p, { method: method as 'GET', headers, dispatcher: agent, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    const text = await res.body.text();
    return { status: res.statusCode, json: text === '' ? undefined : JSON.parse(text) };
  };
  const must = async (method: string, p: string, body?: unknown): Promise<void> => {
    const r = await call(adminAgent, method, p, body);
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(r.json)}`);
  };
  const trees = Math.ceil(NAMESPACES / TREE);
  for (let t = 0; t < trees; t++) {
    for (let d = 0; d < TREE && t * TREE + d < NAMESPACES; d++) {
      const name = `t${t}-d${d}`;
      await must('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      if (d > 0) {
        await must('POST', `${HNC}/namespaces/${name}/hierarchyconfigurations`, {
          apiVersion: 'hnc.x-k8s.io/v1alpha2', kind: 'HierarchyConfiguration', metadata: { name: 'hierarchy' }, spec: { parent: `t${t}-d${d - 1}` },
        });
      }
    }
  }
  for (let t = 0; t < VISIBLE_TREES; t++) {
    await must('POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/t${t}-d0/rolebindings`, {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'tina-view' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'tina' }],
    });
  }
  const expected = VISIBLE_TREES * TREE;
  for (;;) {
    const seen = (await call(tenantAgent, 'GET', '/api/v1/namespaces', undefined, 'tenant-token')).json.items.length;
    if (seen === expected) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const time = async (agent: Agent, token?: string): Promise<number> => {
    const started = process.hrtime.bigint();
    const r = await call(agent, 'GET', '/api/v1/namespaces', undefined, token);
    if (r.status !== 200) throw new Error(`list: ${r.status}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const adminMs: number[] = [];
  const tenantMs: number[] = [];
  for (let i = 0; i < 3; i++) {
    await time(adminAgent);
    await time(tenantAgent, 'tenant-token');
  }
  for (let i = 0; i < ROUNDS; i++) {
    if (i % 2 === 0) {
      adminMs.push(await time(adminAgent));
      tenantMs.push(await time(tenantAgent, 'tenant-token'));
    } else {
      tenantMs.push(await time(tenantAgent, 'tenant-token'));
      adminMs.push(await time(adminAgent));
    }
  }
  const admin = median(adminMs);
  const tenant = median(tenantMs);
  console.log(`namespaces: ${NAMESPACES} in trees of ${TREE}; the tenant sees ${expected}`);
  console.log(`list as the admin (ceiling): median ${fmt(admin, 1)} ms`);
  console.log(`list as the tenant (narrowed): median ${fmt(tenant, 1)} ms`);
  console.log(`ratio tenant/admin: ${fmt(tenant / admin, 2)}`);
  await adminAgent.close();
  await tenantAgent.close();
} finally {
  await server.stop();
  fs.rmSync(dir, { recursive: true, force: true });
}
