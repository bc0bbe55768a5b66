// Durability across kill -9: a child process writes through SqliteBackend and
// prints each acknowledged create; we SIGKILL it mid-stream, reopen the file and
// require every acknowledged key with its value and revision, and a revision
// history with no holes (each revision 1..current is exactly one create).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { prefixEnd } from '../../src/storage/interface.js';

const writerScript = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));
// Past two of the backend's checkpoints (one every 2,000 writes): the kill may fall in a third.
const KILL_AFTER_ACKS = 4500;

test('sqlite: every acknowledged write survives kill -9', { timeout: 30_000 }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-crash-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'apiary.db');

  const child = spawn(process.execPath, ['--import', 'tsx', writerScript, file], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const acked = new Map<string, number>();
  let buffered = '';
  let killed = false;
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) {
      const [word, key, revision] = line.split(' ');
      if (word === 'ack') acked.set(key, Number(revision));
    }
    if (!killed && acked.size >= KILL_AFTER_ACKS) {
      killed = true;
      child.kill('SIGKILL'); // writes are still in flight
    }
  });
  const signal = await exited;
  // Lines already in the pipe are still acknowledged writes: drain them.
  await new Promise<void>((resolve) => (child.stdout.readableEnded ? resolve() : child.stdout.on('end', resolve)));
  assert.equal(signal, 'SIGKILL', `writer exited on its own: ${stderr}`);
  assert.ok(acked.size >= KILL_AFTER_ACKS);

  const reopened = SqliteBackend.open(file);
  t.after(() => reopened.close());
  const current = await reopened.currentRevision();
  const all = await reopened.range('/registry/crash/', prefixEnd('/registry/crash/'));
  for (const [key, revision] of acked) {
    const { kv } = await reopened.get(key);
    assert.ok(kv, `acknowledged key ${key} is missing`);
    assert.equal(kv.modRevision, revision);
    assert.equal(kv.value, `value-${Number(key.slice(-8))}`);
  }
  assert.ok(current >= Math.max(...acked.values()));
  assert.equal(all.count, current, 'every revision up to the current one is one stored create');
  assert.deepEqual(
    all.kvs.map((kv) => kv.modRevision).sort((a, b) => a - b),
    Array.from({ length: current }, (_, i) => i + 1),
  );
  // The reopened store keeps counting from where the killed one stopped.
  const after = await reopened.create('/registry/crash/after', 'x');
  assert.equal(after.modRevision, current + 1);
});
