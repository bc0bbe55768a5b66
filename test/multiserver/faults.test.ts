// apiary on a real etcd under faults, bounded in time.
//
// 1. A 3-member cluster under write load through apiary: kill a follower (the
//    quorum holds: writes go on), then the leader (no quorum: apiary answers
//    5xx Status errors within its storage deadline, never hangs), then restart
//    both (apiary recovers by itself). Every write apiary acknowledged is
//    there afterwards.
// 2. etcd restarted under a running HTTP watch: the watch resumes or ends
//    cleanly, and a client that re-watches from its last resourceVersion sees
//    every acknowledged write exactly once, in order.
//
// Every request carries a client timeout (CLIENT_TIMEOUT_MS) well above the
// server's etcd deadline (10 s); a request that hits it is a hang and fails
// the test.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/machinery/meta.js';
import { isStatusError } from '../../src/machinery/errors.js';
import type { RestClient } from '../../src/client/rest-client.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { collect, ensureNamespace, startApiaryOnEtcd, type ApiaryOnEtcd, type CollectedWatch } from './helpers.js';
import { until } from '../helpers/wait.js';

const CLIENT_TIMEOUT_MS = 15_000;
const NS = 'faults';

interface Outcome {
  ok: Map<string, string>;
  /** HTTP status codes of failed requests. */
  failures: number[];
  /** Requests that got no answer within CLIENT_TIMEOUT_MS, or failed below HTTP. */
  hangs: string[];
  /** How many requests the writer has finished, either way. */
  done: number;
}

/** Four workers creating configmaps until stopped; records what apiary acknowledged. */
function startWriters(client: RestClient, prefix: string): { outcome: Outcome; stop(): Promise<void> } {
  const outcome: Outcome = { ok: new Map(), failures: [], hangs: [], done: 0 };
  let stopped = false;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (!stopped) {
      const name = `${prefix}-${next++}`;
      try {
        const created = await client
          .configMaps(NS)
          .create({ metadata: { name }, data: { v: name } }, { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
        outcome.ok.set(name, created.metadata!.resourceVersion!);
      } catch (err) {
        if (isStatusError(err)) outcome.failures.push(err.code);
        else outcome.hangs.push(`${name}: ${String(err)}`);
        // Errors come back fast while etcd is down: do not spin.
        await new Promise((r) => setTimeout(r, 100));
      }
      outcome.done++;
    }
  };
  const workers = Array.from({ length: 4 }, worker);
  return {
    outcome,
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

describe('apiary on a 3-member etcd cluster losing members', () => {
  let etcd: EtcdCluster;
  let apiary: ApiaryOnEtcd;
  before(async () => {
    etcd = await startEtcd({ members: 3 });
    apiary = await startApiaryOnEtcd(etcd.endpoints, { compactionIntervalMs: 0 });
    await ensureNamespace(apiary.client, NS);
  });
  after(async () => {
    await apiary?.stop();
    await etcd?.stop();
  });

  test('acknowledged writes survive; no quorum gives 5xx, not hangs; recovery is automatic', { timeout: 120_000 }, async () => {
    const writers = startWriters(apiary.client, 'w');
    const { outcome } = writers;
    try {
      await until('healthy writes', () => outcome.ok.size >= 20, 10_000);

      const leader = await etcd.leader();
      const follower = [0, 1, 2].find((i) => i !== leader)!;
      await etcd.killMember(follower);
      const beforeFollowerLoss = outcome.ok.size;
      await until('writes with one member down', () => outcome.ok.size >= beforeFollowerLoss + 20, 15_000);

      await etcd.killMember(leader);
      // One member of three: no quorum. Every writer's request fails (with a Status, checked below),
      // and so does a consistent read, which needs the quorum too.
      const t0 = Date.now();
      await Promise.all([
        until('every writer to see a failure', () => outcome.failures.length >= 4, 30_000),
        assert.rejects(
          apiary.client.configMaps(NS).get('w-0', { signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) }),
          (err: unknown) => isStatusError(err) && err.code >= 500,
        ),
      ]);
      assert.ok(Date.now() - t0 < CLIENT_TIMEOUT_MS + 5000, `no-quorum phase took ${Date.now() - t0} ms`);

      await etcd.restartMember(leader);
      await etcd.restartMember(follower);
      const ackedBeforeRecovery = outcome.ok.size;
      await until('writes to succeed again', () => outcome.ok.size >= ackedBeforeRecovery + 20, 30_000);
    } finally {
      await writers.stop();
    }

    assert.deepEqual(outcome.hangs, [], 'every request got an HTTP answer within the client timeout');
    assert.ok(outcome.failures.length > 0);
    for (const code of outcome.failures) assert.ok(code >= 500 && code < 600, `failure status ${code}`);

    const listed = await apiary.client.configMaps(NS).list({ signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const stored = new Map(listed.items.map((i) => [i.metadata!.name!, i.metadata!.resourceVersion!]));
    const missing = [...outcome.ok].filter(([name, rv]) => stored.get(name) !== rv);
    assert.deepEqual(missing, [], `${missing.length} of ${outcome.ok.size} acknowledged writes lost`);
  });
});

describe('apiary watch across an etcd restart', () => {
  let etcd: EtcdCluster;
  let apiary: ApiaryOnEtcd;
  before(async () => {
    etcd = await startEtcd();
    apiary = await startApiaryOnEtcd(etcd.endpoints, { compactionIntervalMs: 0 });
    await ensureNamespace(apiary.client, NS);
  });
  after(async () => {
    await apiary?.stop();
    await etcd?.stop();
  });

  test('a client resuming from its last resourceVersion misses no event', { timeout: 90_000 }, async () => {
    const cms = apiary.client.configMaps(NS);
    const opts = () => ({ signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    const startRv = (await cms.list(opts())).metadata!.resourceVersion!;

    // The resuming client: re-watches from the last resourceVersion it saw whenever the stream ends.
    const seen: KubeObject[] = [];
    let lastRv = startRv;
    let restarts = 0;
    let errors = 0;
    let stopped = false;
    let current: CollectedWatch | undefined;
    const consumer = (async () => {
      while (!stopped) {
        try {
          current = collect(await cms.watch({ resourceVersion: lastRv, allowWatchBookmarks: true, ...opts() }));
        } catch {
          // The server could not start the watch (etcd down): try again shortly.
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
        let read = 0;
        const drain = (): void => {
          for (; read < current!.events.length; read++) {
            const event = current!.events[read]!;
            if (event.type === 'ERROR') {
              errors++;
              continue;
            }
            lastRv = event.object.metadata!.resourceVersion!;
            if (event.type !== 'BOOKMARK') seen.push(event.object);
          }
        };
        let ended = false;
        void current.ended.then(() => (ended = true));
        while (!ended && !stopped) {
          drain();
          await new Promise((r) => setTimeout(r, 20));
        }
        drain();
        current.stop();
        if (!stopped) restarts++;
      }
    })();

    const acked: string[] = [];
    const write = async (name: string): Promise<void> => {
      const created = await cms.create({ metadata: { name }, data: {} }, opts());
      acked.push(`${name} ${created.metadata!.resourceVersion}`);
    };
    try {
      for (let i = 0; i < 5; i++) await write(`before-${i}`);
      await until('events before the restart', () => seen.length === 5, 5000);

      await etcd.killMember(0);
      // While etcd is down a write fails with a Status, within the bound.
      const t0 = Date.now();
      await assert.rejects(
        cms.create({ metadata: { name: 'while-down' } }, opts()),
        (err: unknown) => isStatusError(err) && err.code >= 500,
      );
      assert.ok(Date.now() - t0 < CLIENT_TIMEOUT_MS);
      await etcd.restartMember(0);

      for (let i = 0; i < 5; i++) await write(`after-${i}`);
      await until('events after the restart', () => seen.length >= 10, 30_000);
    } finally {
      stopped = true;
      current?.stop();
      await consumer;
    }
    // The write attempted while etcd was down answered 5xx; it may or may not have been applied
    // (etcd may have taken it just before dying), so it is not in `acked` and is not required.
    const events = seen.map((o) => `${o.metadata!.name} ${o.metadata!.resourceVersion}`).filter((e) => !e.startsWith('while-down'));
    assert.deepEqual(events, acked, `restarts=${restarts} errors=${errors}`);
  });
});
