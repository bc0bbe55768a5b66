// Two `apiary serve` processes on one etcd, controllers under leader election
// (lease 3 s, renew deadline 2 s, retry 0.5 s): exactly one runs the namespace
// controller; when it is SIGKILLed the other takes over within the lease
// duration (not before the dead leader's claim has run out) and namespaces
// are deleted again. Who leads is read from the Lease and from each process's
// structured log lines.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestClient } from '../../src/client/rest-client.js';
import { isNotFound } from '../../src/machinery/errors.js';
import type { Lease } from '../../src/api/coordination/v1/types.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { until } from '../helpers/wait.js';
import { type ApiaryProcess, startApiary } from '../helpers/apiary-process.js';

const LEASE_MS = 3000;
const RETRY_MS = 500;
const T = () => ({ signal: AbortSignal.timeout(10_000) });

interface LogLine {
  time: number;
  msg: string;
  identity?: string;
}

interface Apiary {
  process: ApiaryProcess;
  url: string;
  logs: LogLine[];
  dataDir: string;
  identity(): string | undefined;
}

async function spawnApiary(etcdUrl: string): Promise<Apiary> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-le-'));
  const logs: LogLine[] = [];
  const proc = await startApiary(
    [
      'serve',
      '--port=0',
      `--data-dir=${dataDir}`,
      '--storage=etcd',
      `--etcd-servers=${etcdUrl}`,
      '--log-level=info',
      `--leader-elect-lease-duration=${LEASE_MS}ms`,
      '--leader-elect-renew-deadline=2s',
      `--leader-elect-retry-period=${RETRY_MS}ms`,
      '--namespace-deletion-grace-period=0s',
    ],
    {
      onLine: (line) => {
        if (!line.startsWith('{')) return;
        try {
          logs.push(JSON.parse(line) as LogLine);
        } catch {
          // not a log line
        }
      },
    },
  ).catch((err: unknown) => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  });
  return {
    process: proc,
    url: proc.origin,
    logs,
    dataDir,
    identity: () => logs.find((l) => l.msg === 'attempting to acquire leader lease')?.identity,
  };
}

async function stopApiary(a: Apiary | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!a) return;
  await a.process.stop(signal);
  fs.rmSync(a.dataDir, { recursive: true, force: true });
}

/** [start, end) intervals during which a process ran the namespace controller, from its log. */
function leadingIntervals(a: Apiary, endIfOpen: number): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let start: number | undefined;
  for (const l of a.logs) {
    if (l.msg.startsWith('started leading')) start = l.time;
    if (l.msg.startsWith('stopped leading') && start !== undefined) {
      out.push([start, l.time]);
      start = undefined;
    }
  }
  if (start !== undefined) out.push([start, endIfOpen]);
  return out;
}

async function namespaceDeletionWorks(client: RestClient, name: string): Promise<void> {
  await client.namespaces().create({ metadata: { name } }, T());
  await client.configMaps(name).create({ metadata: { name: 'content' }, data: {} }, T());
  await client.namespaces().delete(name, T());
  // Only a running namespace controller empties the namespace and removes its finalizer.
  await until(`namespace ${name} to be gone`, async () => {
    try {
      await client.namespaces().get(name, T());
      return false;
    } catch (err) {
      if (isNotFound(err)) return true;
      throw err;
    }
  }, 10_000);
}

describe('leader election across apiary processes on one etcd', () => {
  let etcd: EtcdCluster;
  const procs: Apiary[] = [];
  before(async () => {
    etcd = await startEtcd();
  });
  after(async () => {
    await Promise.all(procs.map((p) => stopApiary(p)));
    await etcd?.stop();
  });

  test('one leader at a time; a SIGKILLed leader is replaced within the lease duration', { timeout: 120_000 }, async () => {
    procs.push(await spawnApiary(etcd.endpoints[0]!));
    procs.push(await spawnApiary(etcd.endpoints[0]!));
    const [p1, p2] = procs as [Apiary, Apiary];
    const c1 = new RestClient({ server: p1.url });
    const c2 = new RestClient({ server: p2.url });
    try {
      const leases = c1.leases<Lease>('kube-system');
      await until('a leader', async () => {
        try {
          const holder = (await leases.get('apiary-controller-manager', T())).spec?.holderIdentity;
          return holder !== undefined && [p1.identity(), p2.identity()].includes(holder);
        } catch (err) {
          if (isNotFound(err)) return false;
          throw err;
        }
      }, 15_000);
      const holder = (await leases.get('apiary-controller-manager', T())).spec!.holderIdentity!;
      const [leader, follower, followerClient] = holder === p1.identity() ? [p1, p2, c2] : [p2, p1, c1];
      await until('the leader to start its namespace controller', () => leadingIntervals(leader, Date.now()).length === 1, 5000);
      // For a few lease renewals, the other never leads.
      await new Promise((r) => setTimeout(r, 1500));
      assert.deepEqual(leadingIntervals(follower, Date.now()), []);
      await namespaceDeletionWorks(followerClient, 'doomed-before');

      const killedAt = Date.now();
      await stopApiary(leader, 'SIGKILL');
      await until('the follower to take over', () => leadingIntervals(follower, Date.now()).length === 1, LEASE_MS + 5000);
      const tookOver = leadingIntervals(follower, Date.now())[0]![0];
      const waited = tookOver - killedAt;
      // The dead leader renewed every 0.5 s; the follower must wait out the 3 s claim from the last renewal it saw,
      // and notices within one jittered retry period (≤ 0.5 s × 2.2) after that.
      assert.ok(waited >= LEASE_MS - 2.2 * RETRY_MS - 200, `took over ${waited} ms after the kill: before the lease ran out`);
      assert.ok(waited <= LEASE_MS + 2.2 * RETRY_MS + 2500, `took over ${waited} ms after the kill`);

      const lease = await followerClient.leases<Lease>('kube-system').get('apiary-controller-manager', T());
      assert.equal(lease.spec?.holderIdentity, follower.identity());
      assert.equal(lease.spec?.leaseDurationSeconds, 3);
      assert.ok((lease.spec?.leaseTransitions ?? 0) >= 1);
      await namespaceDeletionWorks(followerClient, 'doomed-after');

      // Never two namespace controllers at once: the leading intervals of the two processes do not overlap.
      const a = leadingIntervals(leader, killedAt);
      const b = leadingIntervals(follower, Date.now());
      for (const [s1, e1] of a) for (const [s2, e2] of b) assert.ok(e1 <= s2 || e2 <= s1, `overlap: [${s1}, ${e1}) and [${s2}, ${e2})`);
    } finally {
      await c1.close();
      await c2.close();
    }
  });
});
