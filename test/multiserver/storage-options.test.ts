// The storage options of `apiary serve` that matter once several servers
// share a store: --event-ttl (events of both API groups expire, other objects
// do not; etcd leases on etcd, the sweep on SQLite) and
// --etcd-compaction-interval (old revisions become 410 Gone, on SQLite too).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/rest-client.js';
import { isGone, isNotFound } from '../../src/machinery/errors.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ensureNamespace } from './helpers.js';
import { until } from '../helpers/wait.js';

const NS = 'opts';
const T = () => ({ signal: AbortSignal.timeout(10_000) });

function coreEvent(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, namespace: NS },
    involvedObject: { kind: 'ConfigMap', namespace: NS, name: 'kept', apiVersion: 'v1' },
    reason: 'Testing',
    message: 'expires',
    type: 'Normal',
    source: { component: 'test' },
    firstTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    lastTimestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    count: 1,
  } as KubeObject;
}

function eventsV1Event(name: string): KubeObject {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name, namespace: NS },
    eventTime: new Date().toISOString().replace('Z', '000Z'),
    reportingController: 'example.com/test',
    reportingInstance: 'test-1',
    action: 'Testing',
    reason: 'Testing',
    regarding: { kind: 'ConfigMap', namespace: NS, name: 'kept', apiVersion: 'v1' },
    type: 'Normal',
  } as KubeObject;
}

/** The lease id etcd holds for a key ('0' for none), through etcd's JSON gateway. */
async function etcdLease(endpoint: string, key: string): Promise<string> {
  const res = await fetch(`${endpoint}/v3/kv/range`, {
    method: 'POST',
    body: JSON.stringify({ key: Buffer.from(key).toString('base64') }),
    signal: AbortSignal.timeout(5000),
  });
  const body = (await res.json()) as { kvs?: Array<{ lease?: string }> };
  assert.equal(body.kvs?.length, 1, `${key} in etcd`);
  return body.kvs[0]!.lease ?? '0';
}

async function gone(get: () => Promise<unknown>): Promise<boolean> {
  try {
    await get();
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

async function expectEventsExpire(client: RestClient, ttlSeconds: number): Promise<void> {
  await ensureNamespace(client, NS);
  await client.configMaps(NS).create({ metadata: { name: 'kept' }, data: {} }, T());
  await client.events(NS).create(coreEvent('core-expires'), T());
  const v1 = client.resource({ group: 'events.k8s.io', version: 'v1', resource: 'events' }).namespace(NS);
  await v1.create(eventsV1Event('v1-expires'), T());
  const t0 = Date.now();
  // Still there shortly after creation.
  await client.events(NS).get('core-expires', T());
  await until('both events to expire', async () => {
    return (await gone(() => client.events(NS).get('core-expires', T()))) && (await gone(() => v1.get('v1-expires', T())));
  }, (ttlSeconds + 4) * 1000);
  const elapsed = Date.now() - t0;
  assert.ok(elapsed >= ttlSeconds * 1000 - 500, `events expired after ${elapsed} ms, before the ${ttlSeconds} s TTL`);
  // Objects without a TTL stay.
  await client.configMaps(NS).get('kept', T());
}

describe('--event-ttl', () => {
  test('on SQLite: events of both groups expire after the TTL (sweep), other objects stay', { timeout: 30_000 }, async (t) => {
    const server = await startTestServer({ storage: 'sqlite', eventTtlSeconds: 2, compactionIntervalMs: 0 });
    const client = new RestClient({ server: server.url });
    t.after(async () => {
      await client.close();
      await server.stop();
    });
    await expectEventsExpire(client, 2);
  });

  describe('on etcd', () => {
    let etcd: EtcdCluster;
    let server: TestServer;
    let client: RestClient;
    before(async () => {
      etcd = await startEtcd();
      // etcd's smallest lease TTL is 2 s with its default election timeout; 4 s leaves
      // a loaded machine time to create both events before the first expires.
      server = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints, eventTtlSeconds: 4, compactionIntervalMs: 0 });
      client = new RestClient({ server: server.url });
    });
    after(async () => {
      await client?.close();
      await server?.stop();
      await etcd?.stop();
    });

    test('events carry an etcd lease and expire with it', { timeout: 30_000 }, async () => {
      await ensureNamespace(client, NS);
      await client.events(NS).create(coreEvent('leased'), T());
      assert.notEqual(await etcdLease(etcd.endpoints[0]!, `/registry/events/${NS}/leased`), '0');
      assert.equal(await etcdLease(etcd.endpoints[0]!, `/registry/namespaces/${NS}`), '0');
      await expectEventsExpire(client, 4);
    });
  });
});

describe('--etcd-compaction-interval on SQLite', () => {
  test('history older than one interval is compacted: reading it is 410 Gone', { timeout: 30_000 }, async (t) => {
    const server = await startTestServer({ storage: 'sqlite', compactionIntervalMs: 300 });
    const client = new RestClient({ server: server.url });
    t.after(async () => {
      await client.close();
      await server.stop();
    });
    await ensureNamespace(client, NS);
    const first = await client.configMaps(NS).create({ metadata: { name: 'old' }, data: {} }, T());
    await client.configMaps(NS).update({ ...first, data: { v: '2' } }, T());
    const oldRv = first.metadata!.resourceVersion!;
    // Within an interval or two the first revision is compacted away.
    await until('the old revision to be compacted', async () => {
      try {
        await client.configMaps(NS).list({ resourceVersion: oldRv, resourceVersionMatch: 'Exact', ...T() });
        return false;
      } catch (err) {
        if (isGone(err)) return true;
        throw err;
      }
    }, 5000);
    const current = await client.configMaps(NS).get('old', T());
    assert.deepEqual(current.data, { v: '2' });
  });
});
