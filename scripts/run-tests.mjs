// Runs every test file under test/ with node's test runner through tsx, then
// (on full runs) the tests on real etcd again, on etcd 3.5.
// Node 20's --test takes no recursive globs, so we find the files here.
// Usage: node scripts/run-tests.mjs [substring filter …]
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

function find(dir) {
  const out = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...find(path));
    else if (entry.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const filters = process.argv.slice(2);
const files = find('test')
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const runFiles = (list, env = process.env) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...list], {
    stdio: 'inherit',
    env,
  }).status ?? 1;

let status = runFiles(files);

// Second pass, on full runs: every test on real etcd (the files that use the
// etcd helper) again, on etcd 3.5 (built by Go from test/compat/etcd-3.5; its
// main.go says what differs). The first pass runs Debian's etcd 3.4.
const ETCD35_FILES = files.filter((f) => readFileSync(f, 'utf8').includes('/helpers/etcd.js'));
if (status === 0 && filters.length === 0) {
  const moduleDir = join('test', 'compat', 'etcd-3.5');
  const binary = resolve(moduleDir, 'bin', 'etcd');
  console.log(`\n# etcd 3.5: building ${binary} (modules are downloaded on the first build)`);
  const build = spawnSync('go', ['build', '-o', binary, '.'], {
    cwd: moduleDir,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
    stdio: 'inherit',
    timeout: 600_000,
  });
  if (build.status !== 0) {
    console.error(`go build of etcd 3.5 failed (${build.error?.message ?? build.signal ?? build.status}); Go is required, as for the client-go tests`);
    process.exit(1);
  }
  console.log(`# etcd 3.5: ${ETCD35_FILES.join(', ')}`);
  status = runFiles(ETCD35_FILES, { ...process.env, ETCD_BIN: binary });
}
process.exit(status);
