// The proof with controller-runtime's own envtest (Go, v0.19): its
// Environment starts a real etcd and, through TEST_ASSET_KUBE_APISERVER,
// `apiary kube-apiserver`; CRDs are installed from test/testing/fixtures/crds,
// a deleted namespace goes away and an owner's dependents are collected
// (test/testing/envtest/envtest_test.go). Against a bare kube-apiserver the
// last two hang (no controllers run there). Needs Go and the module cache or
// the Go module proxy; skipped without `go`.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = process.cwd();
const MODULE = path.join(ROOT, 'test/testing/envtest');
const ETCD = [path.join(ROOT, 'test/compat/etcd-3.5/bin/etcd'), '/usr/bin/etcd'].find((p) => fs.existsSync(p));

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('controller-runtime envtest runs on apiary kube-apiserver: start, CRDs, namespace deletion, garbage collection', { timeout: 900_000, skip: !hasGo() || ETCD === undefined ? 'needs go and etcd' : false }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-envtest-go-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const binary = path.join(dir, 'envtest-witness.test');
  execFileSync('go', ['test', '-c', '-o', binary, '.'], { cwd: MODULE, stdio: 'pipe', timeout: 600_000 });
  // envtest runs TEST_ASSET_KUBE_APISERVER as an executable, from the test's folder.
  const wrapper = path.join(dir, 'kube-apiserver');
  fs.writeFileSync(wrapper, `#!/bin/sh\ncd ${JSON.stringify(ROOT)} && exec ${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts kube-apiserver "$@"\n`, { mode: 0o755 });
  const child = spawn(binary, ['-test.v', '-test.count=1'], {
    cwd: MODULE,
    env: { ...process.env, TEST_ASSET_KUBE_APISERVER: wrapper, TEST_ASSET_ETCD: ETCD!, CRD_DIR: path.join(ROOT, 'test/testing/fixtures/crds') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => void child.kill('SIGKILL'));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 0, out);
  for (const name of ['custom_resources_of_the_installed_CRDs_are_served', 'a_deleted_namespace_goes_away', "an_owner's_dependents_are_collected"]) {
    assert.match(out, new RegExp(`--- PASS: TestEnvtestOnApiary/${name}`), out);
  }
});
