// The package as a user installs it: `npm run build`, `npm pack`, then in an
// empty folder `npm install ./apiary-x.y.z.tgz`; there `npx apiary serve` and
// `npx apiary kube-apiserver --help` work, `apiary/client` and
// `apiary/testing` resolve with their types (a TypeScript file using them
// type-checks, and a wrong option is a type error), a test server starts
// from the installed package, and the tarball holds no test or benchmark files.
//
// Slow (a build and an npm install of the dependencies, a few minutes): part of
// every `npm test`, each step bounded; APIARY_PACKAGE_TEST=0 leaves it out (offline).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = process.cwd();
const TSC = path.join(ROOT, 'node_modules/.bin/tsc');
const run = (cmd: string, args: string[], cwd: string, timeoutMs: number): string =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });

test('npm pack → npm install in an empty folder → npx apiary, apiary/client and apiary/testing with types', { timeout: 1_500_000, skip: process.env['APIARY_PACKAGE_TEST'] === '0' ? 'APIARY_PACKAGE_TEST=0 (it needs the package registry)' : false }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-package-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  run('npm', ['run', 'build'], ROOT, 300_000);
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], ROOT, 120_000)) as Array<{ filename: string; files: Array<{ path: string }> }>;
  const files = packed[0]!.files.map((f) => f.path);
  assert.deepEqual(files.filter((f) => /^(test|bench|examples|src|scripts|tools)\//.test(f) || f.endsWith('.map') || f.endsWith('.test.js')), []);
  for (const f of ['dist/cli/main.js', 'dist/cli/kube-apiserver-main.js', 'dist/client/index.d.ts', 'dist/testing/index.d.ts', 'package.json']) assert.ok(files.includes(f), f);

  const project = path.join(dir, 'project');
  fs.mkdirSync(project);
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(dir, packed[0]!.filename)], project, 900_000);

  const help = run('npx', ['--no-install', 'apiary', 'kube-apiserver', '--help'], project, 60_000);
  assert.match(help, /^\s*--etcd-servers\b/m);
  assert.match(run(path.join(project, 'node_modules/.bin/kube-apiserver'), ['--help'], project, 60_000), /^\s*--cert-dir\b/m);

  // `npx apiary serve` (sqlite, secure defaults) listens and stops on SIGTERM.
  const serve = spawn('npx', ['--no-install', 'apiary', 'serve', '--port', '0', '--data-dir', path.join(project, 'data'), '--log-level', 'warn'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  t.after(() => {
    try {
      process.kill(-serve.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  });
  let out = '';
  serve.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  serve.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const exited = new Promise<string>((resolve) => serve.on('exit', (code, signal) => resolve(code !== null ? String(code) : String(signal))));
  // npx may end before apiary (in its group) has written its last lines: the pipes close once both have.
  const drained = Promise.all([new Promise((r) => serve.stdout.once('close', r)), new Promise((r) => serve.stderr.once('close', r))]);
  const deadline = Date.now() + 60_000;
  while (!/listening on https:\/\/127\.0\.0\.1:\d+/.test(out) && Date.now() < deadline && serve.exitCode === null) await new Promise((r) => setTimeout(r, 100));
  assert.match(out, /listening on https:\/\/127\.0\.0\.1:\d+/);
  // The whole group gets it, as a terminal's Ctrl-C would: npx ends by the signal, apiary shuts down cleanly.
  process.kill(-serve.pid!, 'SIGTERM');
  assert.ok(['0', 'SIGTERM'].includes(await exited), out);
  await Promise.race([drained, new Promise((r) => setTimeout(r, 30_000))]);
  assert.match(out, /received SIGTERM, shutting down/);
  assert.doesNotMatch(out, /shutdown failed/);

  // The exports resolve with their types: this file type-checks, and a wrong option does not.
  const source = [
    "import { startTestServer, type TestServer } from 'apiary/testing';",
    "import { RestClient } from 'apiary/client';",
    "const server: TestServer = await startTestServer({ storage: 'memory' });",
    'const client = new RestClient({ server: server.url });',
    "const name: string | undefined = (await client.namespaces().get('default')).metadata?.name;",
    'await client.close();',
    'await server.stop();',
    'console.log(`ok ${name}`);',
    '',
  ].join('\n');
  fs.writeFileSync(path.join(project, 'check.ts'), source);
  const tsconfig = { compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true }, files: ['check.ts'] };
  fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(tsconfig));
  run(TSC, ['-p', 'tsconfig.json'], project, 120_000);
  fs.writeFileSync(path.join(project, 'check.ts'), source.replace("{ storage: 'memory' }", "{ storage: 'floppy' }"));
  assert.throws(() => run(TSC, ['-p', 'tsconfig.json'], project, 120_000), (err: { stdout?: string }) => /'"floppy"' is not assignable/.test(err.stdout ?? ''));
  // And it runs from the installed package (plain JavaScript, as the user's runtime sees it).
  fs.writeFileSync(path.join(project, 'check.mjs'), source.replace(', type TestServer', '').replace(': TestServer', '').replace(': string | undefined', ''));
  assert.equal(run(process.execPath, ['check.mjs'], project, 60_000).trim(), 'ok default');

  // examples/test-control-plane under node:test, Jest (ESM) and Vitest, as a user would run them.
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...EXAMPLE_RUNNERS], project, 900_000);
  fs.cpSync(path.join(ROOT, 'examples/test-control-plane'), path.join(project, 'ex'), { recursive: true });
  // Exit 0 is the assertion (execFileSync throws otherwise); NODE_TEST_CONTEXT would make the child report to us in node:test's internal format.
  const { NODE_TEST_CONTEXT: _ignored, ...plainEnv } = process.env;
  execFileSync(process.execPath, ['--test', 'ex/node-test/'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000, env: plainEnv });
  const jest = execFileSync('npx', ['--no-install', 'jest', '--config', 'ex/jest/jest.config.mjs', '--rootDir', 'ex'], {
    cwd: project,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 120_000,
    env: { ...process.env, NODE_OPTIONS: '--experimental-vm-modules' },
  });
  void jest; // exit 0 is the assertion (execFileSync throws otherwise)
  run('npx', ['--no-install', 'vitest', 'run', '--root', 'ex/vitest'], project, 120_000);
});

/** What the examples' user project installs beside apiary (the versions they were checked with). */
const EXAMPLE_RUNNERS = ['jest@30.5.2', 'vitest@5.1.0', '@kubernetes/client-node@1.4.0'];
