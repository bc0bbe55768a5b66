// controller-runtime's own pkg/client test suite (v0.19.0, Ginkgo, 249 specs
// run of 271, 22 pending upstream), unchanged, with apiary as envtest's
// kube-apiserver: every spec passes, as on kube-apiserver 1.32.4 (run too
// when test/compat/kubernetes/bin has it). The module comes from the Go
// module cache (`go mod download`); its test binary is built once per Go
// version into the temp folder.
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
const MODULE = 'sigs.k8s.io/controller-runtime@v0.19.0';
const ETCD = [path.join(ROOT, 'test/compat/etcd-3.5/bin/etcd'), '/usr/bin/etcd'].find((p) => fs.existsSync(p));
const KUBE_APISERVER = path.join(ROOT, 'test/compat/kubernetes/bin/kube-apiserver');

function hasGo(): boolean {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A writable copy of the module and its pkg/client test binary, kept per Go version. */
function suite(): { binary: string; packageDir: string } {
  const key = crypto.createHash('sha256').update(execFileSync('go', ['version'])).update(MODULE).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), 'apiary-controller-runtime', key);
  const binary = path.join(dir, 'client.test');
  const packageDir = path.join(dir, 'module/pkg/client');
  if (fs.existsSync(binary)) return { binary, packageDir };
  const env = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
  const info = JSON.parse(execFileSync('go', ['mod', 'download', '-json', MODULE], { cwd: os.tmpdir(), env, encoding: 'utf8', timeout: 600_000 })) as { Dir: string };
  fs.rmSync(path.join(dir, 'module'), { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(info.Dir, path.join(dir, 'module'), { recursive: true });
  execFileSync('chmod', ['-R', 'u+w', path.join(dir, 'module')]);
  execFileSync('go', ['test', '-c', '-o', `${binary}.tmp`, './pkg/client/'], { cwd: path.join(dir, 'module'), env, stdio: 'pipe', timeout: 1_500_000 });
  fs.renameSync(`${binary}.tmp`, binary);
  return { binary, packageDir };
}

async function run(binary: string, cwd: string, kubeApiserver: string): Promise<{ code: number | null; out: string }> {
  const child = spawn(binary, ['-test.count=1', '-ginkgo.no-color'], {
    cwd, // the suite reads ./testdata
    env: { ...process.env, TEST_ASSET_KUBE_APISERVER: kubeApiserver, TEST_ASSET_ETCD: ETCD! },
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

const summary = (out: string): string => /(SUCCESS|FAIL)! -- \d+ Passed \| \d+ Failed \| \d+ Pending \| \d+ Skipped/.exec(out)?.[0] ?? '(no summary)';

test('controller-runtime v0.19 pkg/client suite passes on apiary kube-apiserver, as on kube-apiserver 1.32.4', { timeout: 3_600_000, skip: !hasGo() || ETCD === undefined ? 'needs go and etcd' : false }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-cr-client-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const wrapper = path.join(dir, 'kube-apiserver');
  fs.writeFileSync(wrapper, `#!/bin/sh\ncd ${JSON.stringify(ROOT)} && exec ${JSON.stringify(process.execPath)} --import tsx src/cli/main.ts kube-apiserver "$@"\n`, { mode: 0o755 });
  const { binary, packageDir } = suite();

  await t.test('on apiary', async (st) => {
    const { code, out } = await run(binary, packageDir, wrapper);
    st.diagnostic(summary(out));
    assert.equal(code, 0, out.slice(-20_000));
    assert.match(out, /SUCCESS! -- 249 Passed \| 0 Failed \| 22 Pending \| 0 Skipped/, out.slice(-20_000));
  });

  await t.test('on kube-apiserver 1.32.4', { skip: fs.existsSync(KUBE_APISERVER) ? false : 'kube-apiserver 1.32.4 not built (the differential pass builds it)' }, async (st) => {
    const { code, out } = await run(binary, packageDir, KUBE_APISERVER);
    st.diagnostic(summary(out));
    assert.equal(code, 0, out.slice(-20_000));
    assert.match(out, /SUCCESS! -- 249 Passed \| 0 Failed/, out.slice(-20_000));
  });
});
