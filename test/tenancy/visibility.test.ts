// The namespaces a user may see (issue 31): a user without the cluster-wide
// right to list namespaces lists (and watches) those where RBAC lets them do
// something, through the real kubectl and raw HTTPS: bindings to the user and
// to a group, label and field selectors, pages with one resourceVersion, a
// watch narrowed the same way; the admin and a cluster-wide viewer see all;
// anonymous requests and --namespace-list-filtering=false keep upstream's 403.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Agent, request } from 'undici';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { secureRequest, startSecureServer, tokenKubeconfig } from '../security/helpers.js';

let server: Awaited<ReturnType<typeof startSecureServer>>;
let admin: string;
let alice: string;
let bob: string;

async function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  const r = await runKubectl(kubeconfig, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The names kubectl lists, sorted. */
async function names(kubeconfig: string, args: string[]): Promise<string[]> {
  const out = await kubectl(kubeconfig, ['get', 'namespaces', '-o', 'name', ...args]);
  return out.split('\n').filter((l) => l !== '').map((l) => l.replace(/^namespace\//, '')).sort();
}

before(async () => {
  server = await startSecureServer();
  admin = server.kubeconfigPath;
  alice = tokenKubeconfig(server, 'alice', 'alice-token');
  bob = tokenKubeconfig(server, 'bob', 'bob-token');
  for (const ns of ['vis-a', 'vis-b', 'vis-c', 'vis-d']) await kubectl(admin, ['create', 'ns', ns]);
  await kubectl(admin, ['label', 'ns', 'vis-a', 'vis-c', 'tier=gold']);
  await kubectl(admin, ['create', 'rolebinding', 'alice-edit', '--clusterrole=edit', '--user=alice', '-n', 'vis-a']);
  await kubectl(admin, ['create', 'rolebinding', 'alice-view', '--clusterrole=view', '--user=alice', '-n', 'vis-c']);
  // bob is in the group qa (the token file's groups).
  await kubectl(admin, ['create', 'rolebinding', 'qa-view', '--clusterrole=view', '--group=qa', '-n', 'vis-b']);
  // A role without rules grants nothing: it makes nothing visible.
  await kubectl(admin, ['create', 'role', 'empty', '--verb=get', '--resource=pods', '-n', 'vis-d']);
  await kubectl(admin, ['patch', 'role', 'empty', '-n', 'vis-d', '--type=json', '-p', '[{"op":"replace","path":"/rules","value":[]}]']);
  await kubectl(admin, ['create', 'rolebinding', 'alice-empty', '--role=empty', '--user=alice', '-n', 'vis-d']);
});
after(() => server.stop());

test('a tenant lists exactly the namespaces where RBAC lets them do something', async () => {
  assert.deepEqual(await names(alice, []), ['vis-a', 'vis-c']);
  assert.deepEqual(await names(bob, []), ['vis-b']);
  const table = await kubectl(alice, ['get', 'ns']);
  assert.match(table, /^NAME\s+STATUS\s+AGE\n/);
  assert.doesNotMatch(table, /vis-b|vis-d/);
});

test('the admin and a cluster-wide viewer see every namespace, as upstream', async () => {
  await kubectl(admin, ['create', 'ns', 'vis-other']);
  const all = await names(admin, []);
  for (const ns of ['vis-a', 'vis-b', 'vis-c', 'vis-d', 'vis-other']) assert.ok(all.includes(ns), ns);
  await kubectl(admin, ['create', 'clusterrolebinding', 'dev-view', '--clusterrole=view', '--group=dev']);
  try {
    assert.deepEqual(await names(bob, []), all);
  } finally {
    await kubectl(admin, ['delete', 'clusterrolebinding', 'dev-view']);
  }
  // Back to the narrowed list as soon as the delete returned.
  assert.deepEqual(await names(bob, []), ['vis-b']);
});

test('a cluster-wide grant on a namespaced resource shows every namespace; one on cluster-scoped resources only shows none more', async () => {
  // bob (groups dev, qa) gets `list pods` everywhere through a ClusterRoleBinding: he may act in every namespace.
  await kubectl(admin, ['create', 'clusterrole', 'pod-lister', '--verb=list', '--resource=pods']);
  await kubectl(admin, ['create', 'clusterrole', 'node-lister', '--verb=list', '--resource=nodes']);
  await kubectl(admin, ['create', 'clusterrolebinding', 'alice-nodes', '--clusterrole=node-lister', '--user=alice']);
  await kubectl(admin, ['create', 'clusterrolebinding', 'qa-pods', '--clusterrole=pod-lister', '--group=qa']);
  try {
    // The grant alone does not include namespaces: bob is still refused the list, and served it whole.
    const check = await kubectl(bob, ['auth', 'can-i', 'list', 'namespaces']).catch(() => 'no');
    assert.match(check, /no/);
    const all = await names(admin, []);
    assert.deepEqual(await names(bob, []), all);
    // The store's own list: one resourceVersion over pages, remainingItemCount as upstream, selectors.
    const get = (query: string) => secureRequest(server.url, server.ca, 'GET', `/api/v1/namespaces?${query}`, { headers: { authorization: 'Bearer bob-token' } });
    const first = await get('limit=2');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.items.length, 2);
    assert.equal(first.json.metadata.remainingItemCount, all.length - 2);
    const second = await get(`limit=2&continue=${encodeURIComponent(first.json.metadata.continue)}`);
    assert.equal(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
    assert.deepEqual(await names(bob, ['-l', 'tier=gold']), ['vis-a', 'vis-c']);
    assert.deepEqual(await names(bob, ['--field-selector', 'metadata.name=vis-d']), ['vis-d']);
    assert.deepEqual(await names(bob, ['--chunk-size=1']), all);
    // A rule on nodes (cluster-scoped) gives alice nothing more than her RoleBindings.
    assert.deepEqual(await names(alice, []), ['vis-a', 'vis-c']);
  } finally {
    await kubectl(admin, ['delete', 'clusterrolebinding', 'qa-pods', 'alice-nodes']);
    await kubectl(admin, ['delete', 'clusterrole', 'pod-lister', 'node-lister']);
  }
  assert.deepEqual(await names(bob, []), ['vis-b']);
});

test('a watch follows a cluster-wide grant: every namespace arrives when it is granted, leaves when it is revoked', async () => {
  await kubectl(admin, ['create', 'clusterrole', 'cm-reader', '--verb=get', '--resource=configmaps']);
  const agent = new Agent({ connect: { ca: server.ca } });
  const list = await secureRequest(server.url, server.ca, 'GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer bob-token' } });
  const res = await request(`${server.url}/api/v1/namespaces?watch=true&resourceVersion=${list.json.metadata.resourceVersion}&timeoutSeconds=20&labelSelector=tier%3Dgold`, {
    headers: { authorization: 'Bearer bob-token' },
    dispatcher: agent,
  });
  assert.equal(res.statusCode, 200);
  const seen: string[] = [];
  let buffered = '';
  const done = (async () => {
    for await (const chunk of res.body) {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { metadata: { name: string } } };
        buffered = buffered.slice(nl + 1);
        seen.push(`${event.type} ${event.object.metadata.name}`);
        if (seen.length === 4) return;
      }
    }
  })();
  await kubectl(admin, ['create', 'clusterrolebinding', 'bob-cm', '--clusterrole=cm-reader', '--user=bob']);
  await until('the gold namespaces arrive', () => seen.length >= 2);
  await kubectl(admin, ['delete', 'clusterrolebinding', 'bob-cm']);
  await done;
  res.body.destroy();
  await agent.close();
  await kubectl(admin, ['delete', 'clusterrole', 'cm-reader']);
  assert.deepEqual(seen.slice(0, 2).sort(), ['ADDED vis-a', 'ADDED vis-c']);
  assert.deepEqual(seen.slice(2).sort(), ['DELETED vis-a', 'DELETED vis-c']);
});

test('label and field selectors apply as to any list', async () => {
  assert.deepEqual(await names(alice, ['-l', 'tier=gold']), ['vis-a', 'vis-c']);
  assert.deepEqual(await names(bob, ['-l', 'tier=gold']), []);
  assert.deepEqual(await names(alice, ['--field-selector', 'metadata.name=vis-c']), ['vis-c']);
  assert.deepEqual(await names(alice, ['--field-selector', 'metadata.name=vis-b']), []);
  assert.deepEqual(await names(alice, ['--chunk-size=1']), ['vis-a', 'vis-c']);
});

test('pages hold up to limit visible namespaces, all at one resourceVersion, without remainingItemCount', async () => {
  const get = (query: string) =>
    secureRequest(server.url, server.ca, 'GET', `/api/v1/namespaces?${query}`, { headers: { authorization: 'Bearer alice-token' } });
  const first = await get('limit=1');
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.json.items.map((n: { metadata: { name: string } }) => n.metadata.name), ['vis-a']);
  assert.ok(first.json.metadata.continue, 'a continue token');
  assert.equal(first.json.metadata.remainingItemCount, undefined);
  const second = await get(`limit=1&continue=${encodeURIComponent(first.json.metadata.continue)}`);
  assert.equal(second.status, 200, second.text);
  assert.deepEqual(second.json.items.map((n: { metadata: { name: string } }) => n.metadata.name), ['vis-c']);
  assert.equal(second.json.metadata.resourceVersion, first.json.metadata.resourceVersion);
  // Whatever follows, the pages never show another namespace.
  let token: string | undefined = second.json.metadata.continue;
  while (token) {
    const next = await get(`limit=1&continue=${encodeURIComponent(token)}`);
    assert.deepEqual(next.json.items, []);
    token = next.json.metadata.continue;
  }
});

test('a watch shows the visible namespaces only', async () => {
  const agent = new Agent({ connect: { ca: server.ca } });
  const list = await secureRequest(server.url, server.ca, 'GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer alice-token' } });
  const rv = list.json.metadata.resourceVersion as string;
  const res = await request(`${server.url}/api/v1/namespaces?watch=true&resourceVersion=${rv}&timeoutSeconds=20`, {
    headers: { authorization: 'Bearer alice-token' },
    dispatcher: agent,
  });
  assert.equal(res.statusCode, 200);
  const seen: string[] = [];
  let buffered = '';
  const done = (async () => {
    for await (const chunk of res.body) {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { metadata: { name: string } } };
        buffered = buffered.slice(nl + 1);
        seen.push(`${event.type} ${event.object.metadata.name}`);
        if (event.object.metadata.name === 'vis-c') return;
      }
    }
  })();
  await kubectl(admin, ['label', 'ns', 'vis-b', 'watched=1']);
  await kubectl(admin, ['label', 'ns', 'vis-a', 'watched=1']);
  await kubectl(admin, ['label', 'ns', 'vis-d', 'watched=1']);
  await kubectl(admin, ['label', 'ns', 'vis-c', 'watched=1']);
  await done;
  res.body.destroy();
  await agent.close();
  assert.deepEqual(seen, ['MODIFIED vis-a', 'MODIFIED vis-c']);
});

test('a watch follows the user\'s access: a namespace granted arrives as ADDED, one revoked leaves as DELETED', async () => {
  const agent = new Agent({ connect: { ca: server.ca } });
  const list = await secureRequest(server.url, server.ca, 'GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer alice-token' } });
  const res = await request(`${server.url}/api/v1/namespaces?watch=true&resourceVersion=${list.json.metadata.resourceVersion}&timeoutSeconds=20`, {
    headers: { authorization: 'Bearer alice-token' },
    dispatcher: agent,
  });
  assert.equal(res.statusCode, 200);
  const seen: string[] = [];
  let buffered = '';
  const done = (async () => {
    for await (const chunk of res.body) {
      buffered += chunk.toString();
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const event = JSON.parse(buffered.slice(0, nl)) as { type: string; object: { kind: string; metadata: { name: string } } };
        buffered = buffered.slice(nl + 1);
        seen.push(`${event.type} ${event.object.kind} ${event.object.metadata.name}`);
        if (event.type === 'DELETED') return;
      }
    }
  })();
  await kubectl(admin, ['create', 'rolebinding', 'alice-late', '--clusterrole=view', '--user=alice', '-n', 'vis-b']);
  await until('vis-b arrives', () => seen.length > 0);
  await kubectl(admin, ['delete', 'rolebinding', 'alice-late', '-n', 'vis-b']);
  await done;
  res.body.destroy();
  await agent.close();
  assert.deepEqual(seen, ['ADDED Namespace vis-b', 'DELETED Namespace vis-b']);
});

test('anonymous requests keep the 403', async () => {
  const anonymous = await secureRequest(server.url, server.ca, 'GET', '/api/v1/namespaces');
  assert.equal(anonymous.status, 403);
  assert.equal(anonymous.json.message, 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope');
});

test('--namespace-list-filtering=false restores upstream 403', async () => {
  const plain = await startSecureServer({ namespaceListFiltering: false });
  try {
    const reply = await secureRequest(plain.url, plain.ca, 'GET', '/api/v1/namespaces', { headers: { authorization: 'Bearer alice-token' } });
    assert.equal(reply.status, 403);
    assert.equal(reply.json.message, 'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope');
    const watch = await secureRequest(plain.url, plain.ca, 'GET', '/api/v1/namespaces?watch=true', { headers: { authorization: 'Bearer alice-token' } });
    assert.equal(watch.status, 403);
  } finally {
    await plain.stop();
  }
});
