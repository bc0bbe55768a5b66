import { Agent, request } from 'undici';
import { readFileSync } from 'node:fs';
const [origin, dir, n] = process.argv.slice(2);
const agent = new Agent({ connect: { ca: readFileSync(dir+'/pki/ca.crt'), cert: readFileSync(dir+'/pki/admin.crt'), key: readFileSync(dir+'/pki/admin.key') } });
const DATA = { a: 'x'.repeat(512), b: 'y'.repeat(500), c: 'some-config-value' };
const b64 = (d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
const NS = 20;
for (let i = 0; i < NS; i++) await request(origin + '/api/v1/namespaces', { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'mem-' + i } }) }).then((r) => r.body.text());
let next = 0;
async function worker() {
  while (next < n) {
    const i = next++;
    const ns = 'mem-' + (i % NS);
    const metadata = { name: 'obj-' + i, labels: { app: 'memory-bench' } };
    let path, body;
    switch (i % 3) {
      case 1: path = `/api/v1/namespaces/${ns}/secrets`; body = { metadata, data: b64(DATA) }; break;
      case 2: path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${ns}/rolebindings`; body = { metadata, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'user-' + i }] }; break;
      default: path = `/api/v1/namespaces/${ns}/configmaps`; body = { metadata, data: DATA };
    }
    const r = await request(origin + path, { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await r.body.text();
    if (r.statusCode !== 201) throw new Error('status ' + r.statusCode);
  }
}
await Promise.all(Array.from({ length: 32 }, worker));
console.log('done');
