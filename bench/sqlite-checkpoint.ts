// What WAL checkpoints cost the thread that commits (issue 30: SQLite creates).
//
// 1. The commit alone, in better-sqlite3 with SqliteBackend's schema (SQLITE_SCHEMA) and
//    pragmas: batches of 16 creates of 1 KiB values under random keys, (a) with
//    SQLite's automatic checkpoint (every 1,000 pages, inside COMMIT, with
//    synchronous=NORMAL's fsyncs of the WAL and the database file, as the
//    backend ran until this bench), (b) with none (the ceiling: what a commit
//    costs when checkpoints happen elsewhere). Prints CPU and wall time per
//    create and the slowest batches: a batch's wall time is the event loop's
//    stall.
// 2. SqliteBackend itself (its own checkpoints, see src/storage/sqlite.ts):
//    durable creates with 64 in flight; creates/s, the process's CPU per
//    create, the event loop's longest stall and the WAL file's largest size.
//
//   node --import tsx bench/sqlite-checkpoint.ts [--creates 150000] [--backend-creates 30000]

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { SQLITE_SCHEMA, SqliteBackend } from '../src/storage/sqlite.js';
import { fmt } from './lib.js';

const { values: args } = parseArgs({ options: { creates: { type: 'string', default: '150000' }, 'backend-creates': { type: 'string', default: '30000' } } });
const CREATES = Number(args.creates);
const BACKEND_CREATES = Number(args['backend-creates']);
const BATCH = 16;
const value = JSON.stringify({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'x', namespace: 'bench', uid: '0e0e0e0e-aaaa-bbbb-cccc-0123456789ab', creationTimestamp: '2026-11-29T05:00:00Z' },
  data: { payload: 'x'.repeat(1024) },
});
const randomName = (): string => Math.random().toString(36).slice(2, 10);

interface CommitFigures {
  cpuUs: number;
  wallUs: number;
  p99Ms: number;
  maxMs: number;
  stalledMs: number;
}

function commits(automatic: boolean): CommitFigures {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-checkpoint-'));
  const db = new Database(join(dir, 'db'));
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    db.pragma(automatic ? 'synchronous = NORMAL' : 'synchronous = OFF');
    db.pragma(automatic ? 'wal_autocheckpoint = 1000' : 'wal_autocheckpoint = 0');
    db.exec(SQLITE_SCHEMA);
    const insertCurrent = db.prepare('INSERT INTO current (key, revision, expires_at) VALUES (?, ?, NULL) ON CONFLICT DO NOTHING');
    const insertHistory = db.prepare('INSERT INTO history (revision, key, value, create_revision, prev_revision, deleted) VALUES (?, ?, ?, ?, 0, 0)');
    let revision = 0;
    const commit = db.transaction((keys: string[]) => {
      for (const key of keys) {
        revision++;
        insertCurrent.run(key, revision);
        insertHistory.run(revision, key, value, revision);
      }
    });
    const batches: number[] = [];
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < CREATES; i += BATCH) {
      const keys = Array.from({ length: BATCH }, () => `/registry/configmaps/bench/cm-${randomName()}`);
      const t = performance.now();
      commit(keys);
      batches.push(performance.now() - t);
    }
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    batches.sort((a, b) => a - b);
    return {
      cpuUs: (used.user + used.system) / CREATES,
      wallUs: (wall * 1000) / CREATES,
      p99Ms: batches[Math.floor(batches.length * 0.99)]!,
      maxMs: batches[batches.length - 1]!,
      stalledMs: batches.filter((ms) => ms > 5).reduce((a, b) => a + b, 0),
    };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function backendCreates(): Promise<{ perSecond: number; cpuUs: number; stallMs: number; walMiB: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-checkpoint-'));
  const file = join(dir, 'apiary.db');
  const backend = SqliteBackend.open(file);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  let walBytes = 0;
  const sizes = setInterval(() => {
    try {
      walBytes = Math.max(walBytes, statSync(`${file}-wal`).size);
    } catch {
      // not created yet
    }
  }, 20);
  try {
    let next = 0;
    delay.enable();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < BACKEND_CREATES) {
          next++;
          await backend.create(`/registry/configmaps/bench/cm-${randomName()}`, value);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    delay.disable();
    return { perSecond: BACKEND_CREATES / seconds, cpuUs: (used.user + used.system) / BACKEND_CREATES, stallMs: delay.max / 1e6, walMiB: walBytes / 2 ** 20 };
  } finally {
    clearInterval(sizes);
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// Alternate the two commit variants (twice each) so both see the same machine.
const runs = { automatic: [] as CommitFigures[], none: [] as CommitFigures[] };
for (let round = 0; round < 2; round++) {
  runs.automatic.push(commits(true));
  runs.none.push(commits(false));
}
const best = (list: CommitFigures[]): CommitFigures => list.reduce((a, b) => (a.cpuUs <= b.cpuUs ? a : b));
const automatic = best(runs.automatic);
const none = best(runs.none);
console.log(`commits of ${BATCH} creates of 1 KiB, ${CREATES} creates per run, the better of two runs each`);
console.log('| checkpoints | CPU µs/create | wall µs/create | batch p99 ms | slowest batch ms | time in batches over 5 ms |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, f] of [['SQLite automatic (every 1,000 pages, synced)', automatic], ['none in the commit (ceiling)', none]] as const) {
  console.log(`| ${name} | ${f.cpuUs.toFixed(1)} | ${f.wallUs.toFixed(1)} | ${f.p99Ms.toFixed(2)} | ${f.maxMs.toFixed(1)} | ${fmt(f.stalledMs)} ms |`);
}
console.log(`automatic ÷ none: CPU ${(automatic.cpuUs / none.cpuUs).toFixed(2)}x, wall ${(automatic.wallUs / none.wallUs).toFixed(2)}x`);

const b = await backendCreates();
console.log(
  `\nSqliteBackend, ${BACKEND_CREATES} durable creates, 64 in flight: ${fmt(b.perSecond)}/s, CPU ${b.cpuUs.toFixed(1)} µs/create ` +
    `(${(b.cpuUs / none.cpuUs).toFixed(2)}x the bare commit's), longest event-loop stall ${b.stallMs.toFixed(1)} ms, largest WAL ${b.walMiB.toFixed(1)} MiB`,
);
