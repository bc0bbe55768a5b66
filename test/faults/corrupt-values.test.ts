// Corrupt stored values (issue 35, part 1): values under apiary's prefix that
// are not objects, written straight into etcd with etcdctl (and into the
// SQLite file while the server is down), never end the process; reads answer
// as kube-apiserver 1.32.4 does; watches and the watch cache serve the rest.
//
// UPSTREAM holds kube-apiserver 1.32.4's answers, recorded by writing the same
// values under its etcd prefix with etcdctl (etcd 3.5, default flags, then
// --feature-gates=AllowUnsafeMalformedObjectDeletion=true) and asking it.
// Revisions in messages differ per run and are masked on both sides.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { StatusError } from '../../src/machinery/errors.js';

const GO_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** name → stored value, each a way a value goes bad. */
const CORRUPT: Record<string, string> = {
  garbage: 'xxxxnotjson',
  trunc: '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"t"',
  scalar: '42',
  enc: 'k8s:enc:aescbc:v1:key1:xxxx',
  b64: 'aGVsbG8=',
  badjson: '{"kind":"ConfigMap" x}',
};

/** kube-apiserver 1.32.4's GET messages (gate off: a plain 500 without reason; enc is an InternalError). */
const UPSTREAM_GET: Record<string, string> = {
  garbage: 'illegal base64 data at input byte 8',
  trunc: "couldn't get version/kind; json parse error: unexpected end of JSON input",
  scalar: 'illegal base64 data at input byte 0',
  enc: 'Internal error occurred: identity transformer tried to read encrypted data',
  b64: `couldn't get version/kind; json parse error: json: cannot unmarshal string into Go value of type ${GO_STRUCT}`,
  badjson: "couldn't get version/kind; json parse error: invalid character 'x' after object key:value pair",
};

/** With AllowUnsafeMalformedObjectDeletion: the same, inside upstream's corrupt-object StorageError. */
function upstreamGatedGet(name: string): string {
  const inner = UPSTREAM_GET[name]!.replace(/^Internal error occurred: /, '');
  const what = name === 'enc' ? 'data from the storage is not transformable revision=0' : 'object not decodable revision=<rev>';
  return `Internal error occurred: StorageError: corrupt object, Code: 7, Key: /configmaps/bench/${name}, ResourceVersion: 0, AdditionalErrorMsg: ${what}: ${inner}`;
}

const INVALID_ON_READABLE = (name: string): unknown => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `configmaps "${name}" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option`,
  reason: 'Invalid',
  details: {
    name,
    kind: 'configmaps',
    causes: [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: true: is exclusively used to delete corrupt object(s), try again by removing this option',
        field: 'ignoreStoreReadErrorWithClusterBreakingPotential',
      },
    ],
  },
  code: 422,
});

const mask = (text: string): string => text.replace(/revision=[1-9]\d*/g, 'revision=<rev>');

function etcdPut(etcd: EtcdCluster, key: string, value: string): void {
  execFileSync('etcdctl', ['--endpoints', etcd.endpoints[0]!, 'put', key, value], { env: { ...process.env, ETCDCTL_API: '3' }, stdio: 'ignore' });
}

async function call(server: TestServer, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers['authorization'] = `Bearer ${token}`;
  const res = await fetch(server.url + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

/** A watch over HTTP, collecting its events' type/name until stop(). */
function openWatch(server: TestServer, path: string): { events: string[]; ready: Promise<void>; stop(): void } {
  const controller = new AbortController();
  const events: string[] = [];
  let buffered = '';
  const ready = fetch(server.url + path, { signal: controller.signal }).then((res) => {
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          buffered += decoder.decode(value, { stream: true });
          let nl: number;
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl);
            buffered = buffered.slice(nl + 1);
            const e = JSON.parse(line) as { type: string; object: { metadata?: { name?: string } } };
            events.push(`${e.type} ${e.object.metadata?.name ?? ''}`);
          }
        }
      } catch {
        // Aborted.
      }
    })();
  });
  return { events, ready, stop: () => controller.abort() };
}

async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function untilAsync(check: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function decodeErrors(server: TestServer): Promise<number> {
  const text = (await call(server, 'GET', '/metrics')).body as string;
  const line = text.split('\n').find((l) => l.startsWith('apiserver_storage_decode_errors_total{resource="configmaps"}'));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

describe('corrupt values in etcd', { timeout: 120_000 }, () => {
  let etcd: EtcdCluster;
  let server: TestServer;
  let gated: TestServer;
  const adminToken = 'admin-token-0123456789';
  const carolToken = 'carol-token-0123456789';
  let tokenDir: string;

  before(async () => {
    etcd = await startEtcd();
    server = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
    tokenDir = mkdtempSync(join(tmpdir(), 'apiary-faults-tokens-'));
    writeFileSync(join(tokenDir, 'tokens.csv'), `${adminToken},admin,admin-uid,"system:masters"\n${carolToken},carol,carol-uid,"devs"\n`);
    gated = await startTestServer({
      storage: 'etcd',
      etcdServers: etcd.endpoints,
      featureGates: { AllowUnsafeMalformedObjectDeletion: true },
      // Admission still runs for an unsafe delete (on an empty object, as upstream's): this one refuses `scalar`'s.
      admission: [
        {
          name: 'KeepScalar',
          async validate(a) {
            if (a.operation === 'DELETE' && a.name === 'scalar') throw new StatusError(403, 'Forbidden', 'keep scalar');
          },
        },
      ],
      security: { tls: false, tokenAuthFile: join(tokenDir, 'tokens.csv') },
    });
  });
  after(async () => {
    await gated?.stop();
    await server?.stop();
    await etcd?.stop();
    if (tokenDir !== undefined) rmSync(tokenDir, { recursive: true, force: true });
  });

  it('keeps serving: GET and LIST answer as kube-apiserver 1.32, watches skip the corrupt values', async () => {
    assert.equal((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } })).status, 201);
    const good = await call(server, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'good', labels: { app: 'x' } } });
    assert.equal(good.status, 201);
    const rv = good.body.metadata.resourceVersion as string;
    // Watches open before the corrupt values arrive: an unfiltered one, a filtered one (predicate path), all namespaces.
    const plain = openWatch(server, `/api/v1/namespaces/bench/configmaps?watch=true&resourceVersion=${rv}`);
    const filtered = openWatch(server, `/api/v1/configmaps?watch=true&resourceVersion=${rv}&labelSelector=app%3Dx`);
    await Promise.all([plain.ready, filtered.ready]);
    try {
      for (const [name, value] of Object.entries(CORRUPT)) etcdPut(etcd, `/registry/configmaps/bench/${name}`, value);
      const later = await call(server, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'later', labels: { app: 'x' } } });
      assert.equal(later.status, 201);
      await until(() => plain.events.includes('ADDED later') && filtered.events.includes('ADDED later'), 'the watches to see the write after the corrupt values');
      assert.deepEqual(plain.events, ['ADDED later']);
      assert.deepEqual(filtered.events, ['ADDED later']);
    } finally {
      plain.stop();
      filtered.stop();
    }

    for (const name of Object.keys(CORRUPT)) {
      const res = await call(server, 'GET', `/api/v1/namespaces/bench/configmaps/${name}`);
      assert.equal(res.status, 500, name);
      assert.equal(res.body.message, UPSTREAM_GET[name], name);
      assert.equal(res.body.reason, name === 'enc' ? 'InternalError' : undefined, name);
    }
    // A list that would include them: upstream aborts on the first (keys in order: b64 first).
    const list = await call(server, 'GET', '/api/v1/namespaces/bench/configmaps');
    assert.equal(list.status, 500);
    assert.equal(list.body.message, UPSTREAM_GET['b64']);
    assert.equal((await call(server, 'GET', '/api/v1/configmaps?limit=500')).status, 500);
    // From the watch cache (resourceVersion=0): the rest is served, as upstream's cache serves it.
    const cached = await call(server, 'GET', '/api/v1/namespaces/bench/configmaps?resourceVersion=0');
    assert.equal(cached.status, 200);
    assert.deepEqual(cached.body.items.map((i: any) => i.metadata.name), ['good', 'later']);
    // A new watch's initial events (from the cache): the rest.
    const fresh = openWatch(server, '/api/v1/namespaces/bench/configmaps?watch=true');
    await fresh.ready;
    try {
      await until(() => fresh.events.length >= 2, 'initial events');
      await new Promise((r) => setTimeout(r, 200));
      assert.deepEqual(fresh.events.sort(), ['ADDED good', 'ADDED later']);
    } finally {
      fresh.stop();
    }
    // Counted per resource.
    assert.ok((await decodeErrors(server)) >= Object.keys(CORRUPT).length, 'decode errors counted');
    // Still serving other resources and writes.
    assert.equal((await call(server, 'POST', '/api/v1/namespaces/bench/secrets', { metadata: { name: 's' } })).status, 201);
  });

  it('with AllowUnsafeMalformedObjectDeletion: upstream corrupt-object errors, StorageReadError lists, unsafe deletion behind its own verb', async () => {
    for (const name of Object.keys(CORRUPT)) {
      const res = await call(gated, 'GET', `/api/v1/namespaces/bench/configmaps/${name}`, undefined, adminToken);
      assert.equal(res.status, 500, name);
      assert.equal(mask(res.body.message), upstreamGatedGet(name), name);
      assert.equal(res.body.reason, 'InternalError');
    }
    const list = await call(gated, 'GET', '/api/v1/namespaces/bench/configmaps', undefined, adminToken);
    assert.equal(list.status, 500);
    assert.equal(list.body.reason, 'StorageReadError');
    assert.equal(list.body.message, 'failed to read one or more configmaps from the storage');
    assert.equal(list.body.details.name, 'list');
    assert.equal(list.body.details.kind, 'configmaps');
    assert.deepEqual(
      list.body.details.causes.map((c: any) => c.field),
      ['b64', 'badjson', 'enc', 'garbage', 'scalar', 'trunc'].map((n) => `/registry/configmaps/bench/${n}`),
    );
    assert.equal(
      mask(list.body.details.causes[3].message),
      'StorageError: corrupt object, Code: 7, Key: /registry/configmaps/bench/garbage, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=<rev>: illegal base64 data at input byte 8',
    );

    const del = (name: string, body: unknown, token = adminToken) => call(gated, 'DELETE', `/api/v1/namespaces/bench/configmaps/${name}`, body, token);
    const opt = { ignoreStoreReadErrorWithClusterBreakingPotential: true };
    // Only for corrupt objects (upstream's answers, recorded).
    assert.deepEqual((await del('good', opt)).body, INVALID_ON_READABLE('good'));
    assert.deepEqual((await del('missing', opt)).body, INVALID_ON_READABLE('missing'));
    const alone = await del('garbage', { ...opt, dryRun: ['All'], gracePeriodSeconds: 0 });
    assert.equal(alone.status, 422);
    assert.equal(
      alone.body.message,
      'DeleteOptions.meta.k8s.io "" is invalid: [ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .dryRun, ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: cannot be set together with .gracePeriodSeconds]',
    );
    const collection = await call(gated, 'DELETE', '/api/v1/namespaces/bench/configmaps', opt, adminToken);
    assert.equal(collection.status, 422);
    assert.equal(
      collection.body.message,
      'DeleteOptions.meta.k8s.io "" is invalid: ignoreStoreReadErrorWithClusterBreakingPotential: Invalid value: true: is not allowed with DELETECOLLECTION, try again after removing the option',
    );
    // A plain delete cannot read the object: upstream's 500.
    assert.equal((await del('garbage', undefined)).status, 500);

    // The extra verb: delete alone is not enough.
    const role = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'cm-deleter', namespace: 'bench' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'delete'] }],
    };
    assert.equal((await call(gated, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/bench/roles', role, adminToken)).status, 201);
    const binding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'cm-deleter', namespace: 'bench' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-deleter' },
      subjects: [{ kind: 'User', name: 'carol', apiGroup: 'rbac.authorization.k8s.io' }],
    };
    assert.equal((await call(gated, 'POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/bench/rolebindings', binding, adminToken)).status, 201);
    // RBAC sees the binding once its cache has it: wait until carol may get.
    await untilAsync(async () => (await call(gated, 'GET', '/api/v1/namespaces/bench/configmaps/good', undefined, carolToken)).status === 200, 'the binding');
    const refused = await del('garbage', opt, carolToken);
    assert.equal(refused.status, 403);
    assert.match(refused.body.message, /^configmaps "garbage" is forbidden: not permitted to do "unsafe-delete-ignore-read-errors", reason: /);
    role.rules[0]!.verbs.push('unsafe-delete-ignore-read-errors');
    assert.equal((await call(gated, 'PUT', '/apis/rbac.authorization.k8s.io/v1/namespaces/bench/roles/cm-deleter', role, adminToken)).status, 200);
    let deleted: { status: number; body: any } | undefined;
    for (let i = 0; i < 50; i++) {
      deleted = await del('garbage', opt, carolToken);
      if (deleted.status !== 403) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal(deleted!.status, 200);
    assert.deepEqual(deleted!.body, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name: 'garbage', kind: 'ConfigMap' } });
    assert.equal((await call(gated, 'GET', '/api/v1/namespaces/bench/configmaps/garbage', undefined, adminToken)).status, 404);
    // Admission is asked first, and may refuse.
    const kept = await del('scalar', opt);
    assert.equal(kept.status, 403);
    assert.equal(kept.body.message, 'keep scalar');
    assert.equal((await call(gated, 'GET', '/api/v1/namespaces/bench/configmaps/scalar', undefined, adminToken)).status, 500);
    // The query-parameter form works the same.
    const viaQuery = await call(gated, 'DELETE', '/api/v1/namespaces/bench/configmaps/trunc?ignoreStoreReadErrorWithClusterBreakingPotential=true', undefined, adminToken);
    assert.equal(viaQuery.status, 200);
  });

  it('without the gate the option is dropped: a readable object is deleted normally', async () => {
    const res = await call(server, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name: 'plain' } });
    assert.equal(res.status, 201);
    const del = await call(server, 'DELETE', '/api/v1/namespaces/bench/configmaps/plain', { ignoreStoreReadErrorWithClusterBreakingPotential: true });
    assert.equal(del.status, 200);
    assert.equal(del.body.status, 'Success');
  });
});

describe('a corrupt row in the SQLite store', { timeout: 60_000 }, () => {
  it('is met by the watch cache\'s initial list, GET, LIST and watches without ending the process', async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'apiary-faults-sqlite-'));
    t.after(() => rmSync(dataDir, { recursive: true, force: true }));
    let server = await startTestServer({ dataDir });
    try {
      assert.equal((await call(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'bench' } })).status, 201);
      for (const name of ['a', 'b', 'c']) {
        assert.equal((await call(server, 'POST', '/api/v1/namespaces/bench/configmaps', { metadata: { name } })).status, 201);
      }
    } finally {
      await server.stop();
    }
    // A bit flip in b's stored value while the server is down.
    const db = new Database(join(dataDir, 'apiary.db'));
    const changed = db
      .prepare("UPDATE history SET value = 'xxxxnotjson' WHERE revision = (SELECT revision FROM current WHERE key = '/registry/configmaps/bench/b')")
      .run().changes;
    db.close();
    assert.equal(changed, 1);

    server = await startTestServer({ dataDir });
    try {
      const get = await call(server, 'GET', '/api/v1/namespaces/bench/configmaps/b');
      assert.equal(get.status, 500);
      assert.equal(get.body.message, UPSTREAM_GET['garbage']);
      assert.equal((await call(server, 'GET', '/api/v1/namespaces/bench/configmaps')).status, 500);
      const cached = await call(server, 'GET', '/api/v1/namespaces/bench/configmaps?resourceVersion=0');
      assert.deepEqual(cached.body.items.map((i: any) => i.metadata.name), ['a', 'c']);
      const watch = openWatch(server, '/api/v1/namespaces/bench/configmaps?watch=true');
      await watch.ready;
      try {
        await until(() => watch.events.length >= 2, 'initial events');
        assert.deepEqual(watch.events, ['ADDED a', 'ADDED c']);
      } finally {
        watch.stop();
      }
      assert.ok((await decodeErrors(server)) >= 3);
      // Still writable, and the other objects can be updated.
      const a = await call(server, 'GET', '/api/v1/namespaces/bench/configmaps/a');
      assert.equal((await call(server, 'PUT', '/api/v1/namespaces/bench/configmaps/a', { ...a.body, data: { k: 'v' } })).status, 200);
    } finally {
      await server.stop();
    }
  });
});
