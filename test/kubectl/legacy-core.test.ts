// Real kubectl 1.32 against apiary: the core resources with no storage of
// their own (issue 33). `kubectl get componentstatuses` prints the store's
// health with upstream's columns and deprecation warning; `kubectl create -f`
// of a Binding binds the pod it names.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kubectl, expectTable, kubectlAgainstNewServer } from './helpers.js';

let k: Kubectl;
before(async () => {
  k = await kubectlAgainstNewServer();
});
after(() => k.server.stop());

test('kubectl get componentstatuses: the store is healthy, with the deprecation warning', async () => {
  const r = await k.run(['get', 'cs']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /Warning: v1 ComponentStatus is deprecated in v1\.19\+/);
  const rows = expectTable(r.stdout, ['NAME', 'STATUS', 'MESSAGE', 'ERROR']);
  assert.deepEqual(rows, [['etcd-0', 'Healthy', 'ok']]);
});

test('kubectl create of a Binding sets the pod\'s node; a second binding is refused', async () => {
  await k.ok(['run', 'p', '--image=nginx', '--restart=Never']);
  const binding = JSON.stringify({ apiVersion: 'v1', kind: 'Binding', metadata: { name: 'p' }, target: { kind: 'Node', name: 'n1' } });
  await k.ok(['create', '-f', '-'], { stdin: binding });
  assert.equal(await k.ok(['get', 'pod', 'p', '-o', 'jsonpath={.spec.nodeName}']), 'n1');
  const again = await k.fails(['create', '-f', '-'], { stdin: binding.replace('n1', 'n2') });
  assert.match(again, /pod p is already assigned to node "n1"/);
});
