// The proof with controller-runtime's own envtest (Go), versions v0.19 to
// v0.22: its Environment starts a real etcd and, through
// TEST_ASSET_KUBE_APISERVER, `apiary kube-apiserver`; CRDs are installed from
// test/testing/fixtures/crds, a deleted namespace goes away, an owner's
// dependents are collected (test/testing/envtest/envtest_test.go), and a
// subset of controller-runtime's pkg/client behaviour passes
// (client_test.go). The same test sources build against each version's
// go.mod (test/testing/envtest/go.mod is v0.19, versions/v0.2x/ the others);
// each test binary is cached by the hash of its inputs.
//
// The same v0.22 binary then runs against the real kube-apiserver 1.32.4
// (when test/compat/kubernetes/bin has it): everything passes there too except
// the subtests that need controllers (namespace deletion, garbage
// collection, foreground and orphan deletion), which fail: no controllers
// run beside a bare kube-apiserver.
//
// Needs Go and the module cache or the Go module proxy; skipped without `go`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = process.cwd();
const MODULE = path.join(ROOT, 'test/testing/envtest');
const ETCD = [path.join(ROOT, 'test/compat/etcd-3.5/bin/etcd'), '/usr/bin/etcd'].find((p) => fs.existsSync(p));
const KUBE_APISERVER = path.join(ROOT, 'test/compat/kubernetes/bin/kube-apiserver');
const VERSIONS: { name: string; modDir: string }[] = [
  { name: 'v0.19', modDir: MODULE },
  { name: 'v0.20', modDir: path.join(MODULE, 'versions/v0.20') },
  { name: 'v0.21', modDir: path.join(MODULE, 'versions/v0.21') },
  { name: 'v0.22', modDir: path.join(MODULE, 'versions/v0.22') },
];
/** Subtests that need controllers running beside the API server. */
const CONTROLLER_SUBTESTS = ['a_deleted_namespace_goes_away', "an_owner's_dependents_are_collected", 'client/foreground_and_orphan_deletion'];
const CLIENT_SUBTESTS = [
  'typed_CRUD_with_AlreadyExists,_Conflict_and_NotFound',
  'unstructured_CRUD_and_validation_errors',
  'patch_types:_merge,_strategic_merge,_JSON_patch,_optimistic_lock',
  'server-side_apply:_field_owners,_conflicts,_force',
  'status_and_scale_subresources',
  'list_options:_namespace,_labels,_fields,_pages,_metadata_only',
  'watch_through_a_WithWatch_client',
  'cache_and_informers:_events,_cached_reads,_a_label-filtered_cache',
  "service-account_tokens:_TokenRequest_and_one_minted_with_envtest's_sa-signer.key_authenticate",
].map((n) => `client/${n}`);
const ALL_SUBTESTS = ['custom_resources_of_the_installed_CRDs_are_served', ...CONTROLLER_SUBTESTS, ...CLIENT_SUBTESTS];

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The test binary for one version's go.mod, built once per distinct input (go.mod, go.sum, test sources, Go version). */
function testBinary(modDir: string): string {
  const sources = fs.readdirSync(MODULE).filter((f) => f.endsWith('_test.go')).sort();
  const hash = crypto.createHash('sha256').update(execFileSync('go', ['version'])).update(fs.readFileSync(path.join(modDir, 'go.mod'))).update(fs.readFileSync(path.join(modDir, 'go.sum')));
  for (const f of sources) hash.update(f).update(fs.readFileSync(path.join(MODULE, f)));
  const dir = path.join(os.tmpdir(), 'apiary-envtest-go', hash.digest('hex').slice(0, 16));
  const binary = path.join(dir, 'envtest-witness.test');
  if (fs.existsSync(binary)) return binary;
  fs.mkdirSync(dir, { recursive: true });
  for (const f of ['go.mod', 'go.sum']) fs.copyFileSync(path.join(modDir, f), path.join(dir, f));
  for (const f of sources) fs.copyFileSync(path.join(MODULE, f), path.join(dir, f));
  execFileSync('go', ['test', '-c', '-o', `${binary}.tmp`, '.'], { cwd: dir, stdio: 'pipe', timeout: 1_500_000, env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' } });
  fs.renameSync(`${binary}.tmp`, binary);
  return binary;
}

async function runBinary(binary: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(binary, ['-test.v', '-test.count=1'], {
    cwd: MODULE,
    env: { ...process.env, TEST_ASSET_ETCD: ETCD!, CRD_DIR: path.join(ROOT, 'test/testing/fixtures/crds'), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  try {
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return { code, out };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

const outcome = (out: string, name: string): string | undefined => new RegExp(`--- (PASS|FAIL): TestEnvtestOnApiary/${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} `).exec(out)?.[1];

test('controller-runtime envtest v0.19–v0.22 on apiary kube-apiserver; the same suite on kube-apiserver 1.32.4', { timeout: 3_600_000, skip: !hasGo() || ETCD === undefined ? 'needs go and etcd' : false }, async (t) => {
  // envtest runs TEST_ASSET_KUBE_APISERVER as an executable, from the test's folder.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-envtest-go-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const wrapper = path.join(dir, 'kube-apiserver');
  fs.writeFileSync(wrapper, `#!/bin/sh\ncd ${JSON.stringify(ROOT)} && exec ${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts kube-apiserver "$@"\n`, { mode: 0o755 });
  let latest = '';
  for (const version of VERSIONS) {
    await t.test(`controller-runtime ${version.name} on apiary`, async (st) => {
      const binary = testBinary(version.modDir);
      latest = binary;
      const started = Date.now();
      const { code, out } = await runBinary(binary, { TEST_ASSET_KUBE_APISERVER: wrapper });
      assert.equal(code, 0, out);
      for (const name of ALL_SUBTESTS) assert.equal(outcome(out, name), 'PASS', `${name}\n${out}`);
      st.diagnostic(`${version.name}: ${ALL_SUBTESTS.length} subtests passed in ${Date.now() - started} ms`);
    });
  }
  await t.test('the same suite on kube-apiserver 1.32.4: all but the controller subtests pass', { skip: fs.existsSync(KUBE_APISERVER) ? false : 'kube-apiserver 1.32.4 not built (the differential pass builds it)' }, async () => {
    assert.notEqual(latest, '');
    const { out } = await runBinary(latest, { TEST_ASSET_KUBE_APISERVER: KUBE_APISERVER, CONTROLLER_WAIT: '3s' });
    for (const name of ALL_SUBTESTS) assert.equal(outcome(out, name), CONTROLLER_SUBTESTS.includes(name) ? 'FAIL' : 'PASS', `${name}\n${out}`);
  });
});
