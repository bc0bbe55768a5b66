// Quiet by default, as upstream: `apiary serve` logs start, stop, warnings and
// errors; one line per request only at debug (--log-level debug, or
// kube-apiserver's -v=3 and above).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { get } from '../helpers/http.js';
import { spawnApiary } from '../helpers/apiary-process.js';
import { levelForVerbosity, normalizeVerbosityArgs, resolveLogLevel } from '../../src/cli/verbosity.js';

/** Runs `serve` with extra flags, makes two requests, stops it and returns the JSON log lines it printed. */
async function serveLogs(t: { after(fn: () => unknown): void }, flags: string[]): Promise<Array<Record<string, unknown>>> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-logs-'));
  t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const serve = spawnApiary(['serve', '--port', '0', '--storage', 'memory', '--data-dir', dataDir, '--controllers', 'false', ...flags], { urlTimeoutMs: 30_000 });
  t.after(() => serve.stop('SIGKILL'));
  const url = await serve.url;
  assert.equal((await get(url, '/api/v1/namespaces')).status, 200);
  assert.equal((await get(url, '/api/v1/namespaces/nope')).status, 404);
  assert.equal(await serve.stop('SIGTERM'), 0, serve.output());
  return serve
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('serve by default logs start and stop, no request lines', async (t) => {
  const lines = await serveLogs(t, []);
  const messages = lines.map((l) => l['msg']);
  assert.ok(messages.includes('apiserver listening'), messages.join(', '));
  assert.ok(messages.includes('apiserver stopped'), messages.join(', '));
  assert.deepEqual(lines.filter((l) => l['msg'] === 'request'), []);
});

for (const flags of [['-v=3'], ['--v', '4'], ['--log-level', 'debug']]) {
  test(`serve ${flags.join(' ')} logs one line per request`, async (t) => {
    const requests = (await serveLogs(t, flags)).filter((l) => l['msg'] === 'request');
    const nsRequests = requests.filter((l) => l['resource'] === 'namespaces');
    assert.deepEqual(
      nsRequests.map((l) => [l['verb'], l['code']]),
      [
        ['list', 200],
        ['get', 404],
      ],
    );
  });
}

test('a bad -v or --log-level is refused with exit 2 naming the flag', async () => {
  const bad = spawnApiary(['serve', '-v=loud']);
  await bad.url.catch(() => undefined);
  assert.equal(await bad.exited, 2);
  assert.match(bad.output(), /invalid -v "loud"/);
  const badLevel = spawnApiary(['serve', '--log-level', 'chatty']);
  await badLevel.url.catch(() => undefined);
  assert.equal(await badLevel.exited, 2);
  assert.match(badLevel.output(), /invalid --log-level "chatty"/);
});

test('klog verbosity spellings and levels', () => {
  assert.deepEqual(normalizeVerbosityArgs(['-v=3', '--v', '5', '-v', '--port', '0', '--v=2']), ['--v=3', '--v=5', '--v=', '--port', '0', '--v=2']);
  assert.equal(levelForVerbosity(0), 'info');
  assert.equal(levelForVerbosity(2), 'info');
  assert.equal(levelForVerbosity(3), 'debug');
  assert.equal(levelForVerbosity(6), 'trace');
  assert.equal(resolveLogLevel(undefined, undefined), 'info');
  assert.equal(resolveLogLevel('warn', '5'), 'warn');
  assert.throws(() => resolveLogLevel(undefined, ''), /invalid -v ""/);
});
