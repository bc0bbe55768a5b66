// apiary/client as a package user gets it: the client's sources compiled by
// tsc with the build settings (tsconfig.build.json) into a scratch package
// carrying our package.json (its exports map "./client"), imported as
// `apiary/client` by plain node — no TypeScript loader — from a scratch
// project, and used against a real server.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestServer } from '../helpers/server.js';

const REPO = path.resolve('.');

it('the built client imports as apiary/client from another project and talks to a server', { timeout: 90_000 }, async (t) => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-package-'));
  t.after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  // The package: package.json, dist/ built from src/client/index.ts and what it imports, and the repo's dependencies.
  const pkg = path.join(scratch, 'apiary');
  fs.mkdirSync(pkg);
  fs.copyFileSync(path.join(REPO, 'package.json'), path.join(pkg, 'package.json'));
  fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(pkg, 'node_modules'));
  const tsconfig = path.join(scratch, 'tsconfig.json');
  fs.writeFileSync(
    tsconfig,
    JSON.stringify({
      extends: path.join(REPO, 'tsconfig.build.json'),
      compilerOptions: { rootDir: path.join(REPO, 'src'), outDir: path.join(pkg, 'dist'), sourceMap: false },
      files: [path.join(REPO, 'src/client/index.ts')],
      include: [],
    }),
  );
  const build = spawnSync(process.execPath, [path.join(REPO, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(build.status, 0, `tsc failed: ${build.stdout}${build.stderr}`);
  const exported = (JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> }).exports['./client'];
  assert.deepEqual(exported, { types: './dist/client/index.d.ts', default: './dist/client/index.js' });
  assert.ok(fs.existsSync(path.join(pkg, 'dist/client/index.d.ts')), 'type declarations are emitted');

  // The user's project depends on it.
  const project = path.join(scratch, 'project');
  fs.mkdirSync(path.join(project, 'node_modules'), { recursive: true });
  fs.symlinkSync(pkg, path.join(project, 'node_modules', 'apiary'));
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'user-project', type: 'module', private: true }));
  fs.writeFileSync(
    path.join(project, 'main.js'),
    [
      "import { LeaderElector, RestClient, SharedInformerFactory, WorkQueue, isNotFound } from 'apiary/client';",
      'const client = RestClient.fromKubeconfig(process.argv[2]);',
      "await client.namespaces().create({ metadata: { name: 'pkg' } });",
      "await client.configMaps('pkg').create({ metadata: { name: 'from-package' }, data: { ok: 'yes' } });",
      'const stop = new AbortController();',
      'const factory = new SharedInformerFactory(client);',
      "const informer = factory.forBuiltin('configmaps');",
      'factory.start(stop.signal);',
      'await factory.waitForCacheSync(stop.signal);',
      "const cached = informer.lister().namespace('pkg').get('from-package');",
      "const missing = await client.configMaps('pkg').get('nope').catch((err) => isNotFound(err));",
      // Leader election is part of the package: one candidate takes a Lease and stops once it leads.
      'const elected = new AbortController();',
      "await new LeaderElector({ client, namespace: 'pkg', name: 'pkg-leader', identity: 'user-1', callbacks: { onStartedLeading: () => elected.abort(), onStoppedLeading: () => {} } }).run(elected.signal);",
      "const holder = (await client.leases('pkg').get('pkg-leader')).spec.holderIdentity;",
      'stop.abort();',
      'await factory.shutdown();',
      'await client.close();',
      "console.log(JSON.stringify({ cached: cached?.data, missing, queue: typeof WorkQueue, holder }));",
    ].join('\n'),
  );

  const server = await startTestServer();
  t.after(() => server.stop());
  // Asynchronous (not spawnSync): the server lives in this process and must keep answering.
  const child = spawn(process.execPath, ['main.js', server.kubeconfigPath], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  assert.equal(code, 0, out);
  assert.deepEqual(JSON.parse(out.trim()), { cached: { ok: 'yes' }, missing: true, queue: 'function', holder: 'user-1' });
});
