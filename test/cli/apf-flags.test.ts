// `apiary serve` refuses an --apf-loop-budget outside 0..1 before it starts anything.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

function serve(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', main, 'serve', '--port', '0', ...args], { timeout: 60_000 }, (err, _stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, stderr });
    });
  });
}

test('--apf-loop-budget: a fraction from 0 to 1, else a clear error and no server', async () => {
  for (const bad of ['2', '-0.5', 'half', '1e-1', '']) {
    const { code, stderr } = await serve([`--apf-loop-budget=${bad}`]);
    assert.notEqual(code, 0, `--apf-loop-budget ${JSON.stringify(bad)} must fail`);
    assert.match(stderr, /invalid --apf-loop-budget .*want a fraction from 0 \(off\) to 1/);
  }
});
