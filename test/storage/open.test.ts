// openBackend picks the backend and lays out the data directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openBackend } from '../../src/storage/open.js';
import { MemoryBackend } from '../../src/storage/memory.js';
import { SqliteBackend } from '../../src/storage/sqlite.js';

test('openBackend memory returns a working MemoryBackend', async () => {
  const backend = await openBackend({ kind: 'memory' });
  assert.ok(backend instanceof MemoryBackend);
  await backend.create('/registry/x', 'v');
  assert.equal((await backend.get('/registry/x')).kv?.value, 'v');
  await backend.close();
});

test('openBackend sqlite creates the data directory and DIR/apiary.db, and data persists', async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-open-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const dataDir = path.join(root, 'nested', 'data');
  const first = await openBackend({ kind: 'sqlite', dataDir });
  assert.ok(first instanceof SqliteBackend);
  await first.create('/registry/x', 'kept');
  await first.close();
  assert.ok(fs.existsSync(path.join(dataDir, 'apiary.db')));
  const second = await openBackend({ kind: 'sqlite', dataDir });
  t.after(() => second.close());
  assert.equal((await second.get('/registry/x')).kv?.value, 'kept');
});

test('openBackend sqlite without a dataDir fails', async () => {
  await assert.rejects(openBackend({ kind: 'sqlite' }), /dataDir/);
});
