// SqliteBackend benchmark: durable concurrent creates (group commit) and the
// time to open a large file. Run: node --import tsx bench/storage-sqlite.ts
// Env: CREATES (5000), IN_FLIGHT (64), ROWS (100000), VALUE_BYTES (1024).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../src/storage/sqlite.js';
import { prefixEnd } from '../src/storage/interface.js';

const CREATES = Number(process.env.CREATES ?? 5000);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 64);
const ROWS = Number(process.env.ROWS ?? 100_000);
const VALUE_BYTES = Number(process.env.VALUE_BYTES ?? 1024);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-bench-'));
try {
  // 1. Concurrent durable creates: IN_FLIGHT writers, each awaiting its ack.
  const backend = SqliteBackend.open(path.join(dir, 'creates.db'));
  const value = JSON.stringify({ kind: 'ConfigMap', data: { k: 'v'.repeat(200) } });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < CREATES) {
        const i = next++;
        await backend.create(`/registry/configmaps/ns${i % 10}/cm${i}`, value);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await backend.close();
  console.log(`durable creates: ${CREATES} with ${IN_FLIGHT} in flight in ${seconds.toFixed(2)} s = ${Math.round(CREATES / seconds)}/s`);

  // 2. Sequential creates (one in flight): one transaction and fsync per write.
  const single = SqliteBackend.open(path.join(dir, 'single.db'));
  const seqCount = Math.min(500, CREATES);
  const seqStart = performance.now();
  for (let i = 0; i < seqCount; i++) await single.create(`/registry/configmaps/ns/cm${i}`, value);
  const seqSeconds = (performance.now() - seqStart) / 1000;
  await single.close();
  console.log(`sequential creates: ${seqCount} in ${seqSeconds.toFixed(2)} s = ${Math.round(seqCount / seqSeconds)}/s`);

  // 3. Open time of a file with ROWS rows of VALUE_BYTES.
  const bigFile = path.join(dir, 'big.db');
  const filler = SqliteBackend.open(bigFile);
  const big = 'x'.repeat(VALUE_BYTES);
  for (let done = 0; done < ROWS; done += 10_000) {
    const n = Math.min(10_000, ROWS - done);
    await Promise.all(Array.from({ length: n }, (_, j) => filler.create(`/registry/configmaps/ns${(done + j) % 100}/cm${done + j}`, big)));
  }
  await filler.close();
  const sizeMb = fs.statSync(bigFile).size / 1e6;
  const rssBefore = process.memoryUsage().rss;
  const openStart = performance.now();
  const reopened = SqliteBackend.open(bigFile);
  const revision = await reopened.currentRevision();
  const openMs = performance.now() - openStart;
  const listStart = performance.now();
  const list = await reopened.range('/registry/configmaps/ns42/', prefixEnd('/registry/configmaps/ns42/'));
  const listMs = performance.now() - listStart;
  const rssGrowthMb = (process.memoryUsage().rss - rssBefore) / 1e6;
  await reopened.close();
  console.log(
    `open: ${ROWS} rows of ${VALUE_BYTES} B (${sizeMb.toFixed(0)} MB file, revision ${revision}) in ${openMs.toFixed(1)} ms; ` +
      `rss +${rssGrowthMb.toFixed(1)} MB; one namespace (${list.count} keys) listed in ${listMs.toFixed(1)} ms`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
