// Reflector pacing against an unreachable server: it backs off on the
// injected clock and never spins.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { DeltaFIFO } from '../../src/client/delta-fifo.js';
import { FakeClock } from '../../src/client/fake-clock.js';
import { type ListerWatcher, listWatchFromClient } from '../../src/client/list-watch.js';
import { silentLogger } from '../../src/client/logger.js';
import { Reflector } from '../../src/client/reflector.js';
import { RestClient } from '../../src/client/rest-client.js';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

describe('Reflector', () => {
  it('backs off exponentially while the server is unreachable, and never busy-loops', { timeout: 10_000 }, async (t) => {
    const client = new RestClient({ server: `http://127.0.0.1:${await closedPort()}` });
    t.after(() => client.close());
    const inner = listWatchFromClient(client.configMaps());
    const attempts: number[] = [];
    const clock = new FakeClock();
    const lw: ListerWatcher = {
      list: (o) => {
        attempts.push(clock.now());
        return inner.list(o);
      },
      watch: (o) => inner.watch(o),
    };
    const reflector = new Reflector(lw, new DeltaFIFO(), { clock, logger: silentLogger, random: () => 0.5 });
    const controller = new AbortController();
    const running = reflector.run(controller.signal);
    await new Promise((r) => setTimeout(r, 200)); // real time passes, the fake clock does not
    assert.equal(attempts.length, 1, 'one attempt, then it waits');
    const waitFor = async (n: number): Promise<void> => {
      for (let i = 0; i < 200 && attempts.length < n; i++) await new Promise((r) => setTimeout(r, 5));
    };
    clock.step(1199); // 800 ms × (1 + 0.5 jitter) = 1200 ms
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(attempts.length, 1);
    clock.step(1);
    await waitFor(2);
    assert.equal(attempts.length, 2);
    clock.step(2400); // doubled
    await waitFor(3);
    assert.deepEqual(attempts, [0, 1200, 3600]);
    assert.equal(reflector.lastSyncResourceVersion(), '');
    controller.abort();
    await running;
    assert.equal(clock.pendingTimers(), 0, 'stopping clears the backoff timer');
  });
});
