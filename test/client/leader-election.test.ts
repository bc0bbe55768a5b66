// LeaderElector against a real apiary server: the Lease it writes, one leader
// among several candidates, takeover after a release and after a crash (no
// renewals), loss of leadership when the lease is taken away, and client-go's
// timing checks. Timings are shortened (lease 2 s, renew deadline 1.5 s,
// retry 0.3 s) so each case takes a few seconds.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { RestClient } from '../../src/client/rest-client.js';
import { silentLogger } from '../../src/client/logger.js';
import { isAlreadyExists } from '../../src/machinery/errors.js';
import { LeaderElector, runWhileLeader, validateTiming, type LeaderElectionConfig } from '../../src/client/leader-election.js';
import type { Lease } from '../../src/api/coordination/v1/types.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const TIMING = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 300 };
const MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

let server: TestServer;
let client: RestClient;

before(async () => {
  server = await startTestServer({ storage: 'memory' });
  client = new RestClient({ server: server.url });
  try {
    await client.namespaces().create({ metadata: { name: 'kube-system' } });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
});
after(async () => {
  await client.close();
  await server.stop();
});

interface Candidate {
  identity: string;
  elector: LeaderElector;
  abort: AbortController;
  done: Promise<void>;
  leading: boolean;
  started: number;
  stopped: number;
}

function candidate(name: string, identity: string, extra: Partial<LeaderElectionConfig> = {}): Candidate {
  const abort = new AbortController();
  const c = { identity, abort, leading: false, started: 0, stopped: 0 } as Candidate;
  c.elector = new LeaderElector({
    client,
    name,
    identity,
    ...TIMING,
    logger: silentLogger,
    ...extra,
    callbacks: {
      onStartedLeading: (signal) => {
        c.leading = true;
        c.started++;
        signal.addEventListener('abort', () => (c.leading = false), { once: true });
      },
      onStoppedLeading: () => {
        c.stopped++;
      },
    },
  });
  c.done = c.elector.run(abort.signal);
  return c;
}

describe('leader election', () => {
  test('writes a Lease in kube-system with holder, duration, MicroTime acquire/renew times', async () => {
    const a = candidate('le-basic', 'a');
    try {
      await until('a to lead', () => a.leading, 5000);
      const lease = await client.leases<Lease>('kube-system').get('le-basic');
      assert.equal(lease.spec?.holderIdentity, 'a');
      assert.equal(lease.spec?.leaseDurationSeconds, 2);
      assert.equal(lease.spec?.leaseTransitions, 0);
      assert.match(lease.spec?.acquireTime ?? '', MICRO_TIME);
      assert.match(lease.spec?.renewTime ?? '', MICRO_TIME);
      // Renewals move renewTime (and resourceVersion), never acquireTime.
      await until('a renewal', async () => {
        const now = await client.leases<Lease>('kube-system').get('le-basic');
        return now.spec?.renewTime !== lease.spec?.renewTime;
      }, 3000);
      const renewed = await client.leases<Lease>('kube-system').get('le-basic');
      assert.equal(renewed.spec?.acquireTime, lease.spec?.acquireTime);
      assert.equal(renewed.spec?.holderIdentity, 'a');
      assert.equal(a.elector.isLeader(), true);
    } finally {
      a.abort.abort();
      await a.done;
    }
    assert.equal(a.stopped, 1);
  });

  test('of three candidates exactly one leads; a release hands over at once', async () => {
    const cs = ['x', 'y', 'z'].map((id) => candidate('le-three', id, { releaseOnCancel: true }));
    try {
      await until('a leader', () => cs.some((c) => c.leading), 5000);
      // Sample for a while: never two leaders, and the leader stays the same.
      const first = cs.find((c) => c.leading)!;
      for (let i = 0; i < 40; i++) {
        assert.equal(cs.filter((c) => c.leading).length, 1);
        assert.equal(first.leading, true);
        await new Promise((r) => setTimeout(r, 50));
      }
      for (const c of cs) assert.equal(c.elector.getLeader(), first.identity);

      const t0 = Date.now();
      first.abort.abort();
      await first.done;
      const released = await client.leases<Lease>('kube-system').get('le-three');
      assert.equal(released.spec?.holderIdentity, undefined);
      await until('a successor', () => cs.some((c) => c !== first && c.leading), 3000);
      // Released, so no waiting out the 2 s lease: the next acquire attempt (≤ 0.3 s × 2.2) takes it.
      // (Liveness bounds leave room for a loaded machine; the safety bounds below them are exact.)
      assert.ok(Date.now() - t0 < 2000, `takeover after release took ${Date.now() - t0} ms`);
      const successors = cs.filter((c) => c.leading);
      assert.equal(successors.length, 1);
      const lease = await client.leases<Lease>('kube-system').get('le-three');
      assert.equal(lease.spec?.holderIdentity, successors[0]!.identity);
      assert.notEqual(successors[0]!.identity, first.identity);
      assert.equal(lease.spec?.leaseTransitions, 1);
    } finally {
      for (const c of cs) c.abort.abort();
      await Promise.all(cs.map((c) => c.done));
    }
  });

  test('a leader that stops renewing (crash) is replaced only after the lease duration', async () => {
    const a = candidate('le-crash', 'a', { releaseOnCancel: false });
    await until('a to lead', () => a.leading, 5000);
    const b = candidate('le-crash', 'b');
    try {
      await new Promise((r) => setTimeout(r, 700));
      assert.equal(b.leading, false);
      // "Crash": a stops without releasing; its last renewal stands.
      a.abort.abort();
      await a.done;
      const t0 = Date.now();
      await until('b to take over', () => b.leading, 5000);
      const waited = Date.now() - t0;
      // b may only take over once the record has been unchanged for 2 s on its clock;
      // it can have seen the last renewal up to one retry period (×2.2 jitter) late.
      assert.ok(waited >= 2000 - 700, `took over after ${waited} ms, before the lease ran out`);
      assert.ok(waited <= 2000 + 2000, `took over after ${waited} ms`);
      const lease = await client.leases<Lease>('kube-system').get('le-crash');
      assert.equal(lease.spec?.holderIdentity, 'b');
      assert.equal(lease.spec?.leaseTransitions, 1);
    } finally {
      b.abort.abort();
      await b.done;
    }
  });

  test('a leader whose lease is taken stops leading within the renew deadline', async () => {
    const a = candidate('le-stolen', 'a');
    try {
      await until('a to lead', () => a.leading, 5000);
      // Someone else writes itself in (and keeps renewing, as a live holder would).
      const steal = async (): Promise<void> => {
        const lease = await client.leases<Lease>('kube-system').get('le-stolen');
        const now = new Date().toISOString().replace('Z', '000Z');
        await client.leases<Lease>('kube-system').update({ ...lease, spec: { ...lease.spec, holderIdentity: 'thief', renewTime: now } });
      };
      await steal();
      const t0 = Date.now();
      const keepStealing = setInterval(() => void steal().catch(() => {}), 300);
      try {
        await until('a to stop leading', () => !a.leading, 4000);
      } finally {
        clearInterval(keepStealing);
      }
      assert.ok(Date.now() - t0 <= 1500 + 1500, `stopped after ${Date.now() - t0} ms`);
      await a.done;
      assert.equal(a.stopped, 1);
      assert.equal(a.elector.isLeader(), false);
    } finally {
      a.abort.abort();
      await a.done;
    }
  });

  test('runWhileLeader never runs the work twice at once and campaigns again after a loss', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const abort = new AbortController();
    const work = async (signal: AbortSignal): Promise<void> => {
      running++;
      runs++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      running--;
    };
    const loops = ['p', 'q'].map((identity) =>
      runWhileLeader({ client, name: 'le-loop', identity, ...TIMING, releaseOnCancel: true, logger: silentLogger }, work, abort.signal),
    );
    try {
      await until('work to start', () => running === 1, 5000);
      // Take the lease away once: the holder must stop, then someone (maybe the same one) leads again.
      const lease = await client.leases<Lease>('kube-system').get('le-loop');
      await client.leases<Lease>('kube-system').update({ ...lease, spec: { ...lease.spec, holderIdentity: 'ghost' } });
      await until('the work to stop', () => running === 0, 4000);
      await until('the work to start again', () => running === 1 && runs === 2, 6000);
      assert.equal(maxRunning, 1);
    } finally {
      abort.abort();
      await Promise.all(loops);
    }
    assert.equal(running, 0);
  });

  test('the lease is released only after the leader\'s work has stopped', async () => {
    const abort = new AbortController();
    let workStopped = 0;
    const elector = new LeaderElector({
      client,
      name: 'le-drain',
      identity: 'slow',
      ...TIMING,
      releaseOnCancel: true,
      logger: silentLogger,
      callbacks: {
        onStartedLeading: async (signal) => {
          await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
          await new Promise((r) => setTimeout(r, 400)); // a controller draining its queue
          workStopped = Date.now();
        },
        onStoppedLeading: () => {},
      },
    });
    const done = elector.run(abort.signal);
    await until('slow to lead', () => elector.isLeader(), 5000);
    abort.abort();
    await done;
    const lease = await client.leases<Lease>('kube-system').get('le-drain');
    assert.equal(lease.spec?.holderIdentity, undefined);
    assert.ok(workStopped > 0, 'run() returned before the work stopped');
    assert.ok(Date.parse(lease.spec!.renewTime!) >= workStopped - 5, 'released before the work stopped');
  });

  test('release hands the lease back even when the lease changed since our last write', async () => {
    // A renewal aborted in flight may still land on the server; here another
    // writer (a label) moves the resourceVersion past the one the leader cached.
    const abort = new AbortController();
    const elector = new LeaderElector({
      client,
      name: 'le-stale',
      identity: 'stale',
      leaseDurationMs: 60_000,
      renewDeadlineMs: 50_000,
      retryPeriodMs: 30_000, // no renewal during the test
      releaseOnCancel: true,
      logger: silentLogger,
      callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    });
    const done = elector.run(abort.signal);
    await until('stale to lead', () => elector.isLeader(), 5000);
    const leases = client.leases<Lease>('kube-system');
    const held = await leases.get('le-stale');
    await leases.update({ ...held, metadata: { ...held.metadata, labels: { touched: 'yes' } } });
    abort.abort();
    await done;
    const lease = await leases.get('le-stale');
    assert.equal(lease.spec?.holderIdentity, undefined);
    assert.equal(lease.spec?.leaseDurationSeconds, 1);
    assert.equal(lease.metadata?.labels?.touched, 'yes');
  });

  test('timing checks as client-go', () => {
    assert.throws(() => validateTiming(10_000, 10_000, 2_000), /leaseDuration must be greater than renewDeadline/);
    assert.throws(() => validateTiming(15_000, 2_000, 2_000), /renewDeadline must be greater than retryPeriod\*JitterFactor/);
    assert.throws(() => validateTiming(15_000, 10_000, 0), /retryPeriod must be greater than zero/);
    validateTiming(15_000, 10_000, 2_000);
    assert.throws(() => new LeaderElector({ client, name: 'x', identity: '', callbacks: { onStartedLeading() {}, onStoppedLeading() {} } }), /Lock identity is empty/);
  });
});
