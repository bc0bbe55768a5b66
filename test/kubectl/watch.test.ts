// Real kubectl 1.32 against apiary: `get -w` (a Table watch: kubectl prints the
// initial table, then one row per change without repeating the header) and
// `wait --for=delete`.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kubectl, kubectlAgainstNewServer, startKubectl } from './helpers.js';

let k: Kubectl;
before(async () => {
  k = await kubectlAgainstNewServer();
});
after(() => k.server.stop());

test('kubectl get -w prints the table, then each change as a row', async (t) => {
  await k.ok(['create', 'configmap', 'first', '--from-literal=a=1']);
  const watch = startKubectl(k.server.kubeconfigPath, ['get', 'cm', '-w']);
  t.after(() => watch.stop());
  await watch.waitFor(/^first\s+1\s+\d+s\n/m);
  await k.ok(['create', 'configmap', 'second', '--from-literal=a=1', '--from-literal=b=2']);
  await watch.waitFor(/^second\s+2\s+\d+s\n/m);
  await k.ok(['label', 'cm', 'first', 'x=y']);
  await k.ok(['delete', 'cm', 'second']);
  const out = await watch.waitFor(/(^second.*\n[^]*){2}/m);
  const lines = out.trim().split('\n');
  assert.match(lines[0]!, /^NAME\s+DATA\s+AGE$/);
  assert.equal(lines.filter((l) => l.startsWith('NAME')).length, 1, 'the header is printed once');
  assert.match(lines[1]!, /^first\s+1\s+\d+s$/);
  assert.match(lines[2]!, /^second\s+2\s+\d+s$/);
});

test('kubectl get -w --output-watch-events names each event', async (t) => {
  const watch = startKubectl(k.server.kubeconfigPath, ['get', 'cm', '-w', '--output-watch-events', '--watch-only']);
  t.after(() => watch.stop());
  // --watch-only prints nothing until a change; give the watch a moment to be established.
  await new Promise((r) => setTimeout(r, 500));
  await k.ok(['create', 'configmap', 'third']);
  await watch.waitFor(/^ADDED\s+third\s+0\s+\d+s$/m);
  await k.ok(['delete', 'cm', 'third']);
  await watch.waitFor(/^DELETED\s+third\s+0\s+\d+s$/m);
});

test('kubectl wait --for=delete returns once the object is gone', async () => {
  await k.ok(['create', 'configmap', 'doomed']);
  const waiting = k.run(['wait', '--for=delete', 'cm/doomed', '--timeout=20s']);
  await new Promise((r) => setTimeout(r, 300));
  await k.ok(['delete', 'cm', 'doomed', '--wait=false']);
  const result = await waiting;
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, 'configmap/doomed condition met\n');
  // Nothing to wait for: an object that does not exist has met the condition.
  const gone = await k.run(['wait', '--for=delete', 'cm/never', '--timeout=5s']);
  assert.equal(gone.code, 0, gone.stderr);
});
