// --controllers: kube-controller-manager's list syntax mapped onto apiary's controllers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyControllerSelection, parseControllersFlag } from '../../src/cli/controller-selection.js';

test('true, false, and lists with *, names, -names and upstream aliases', () => {
  assert.deepEqual(parseControllersFlag('true'), { run: true, controllers: {} });
  assert.deepEqual(parseControllersFlag('false'), { run: false });
  const some = parseControllersFlag('*,-namespace-controller,-garbagecollector');
  assert.ok(some.run);
  assert.deepEqual(some.controllers, {
    namespace: false, resourceQuota: true, garbageCollector: false, pvcProtection: true, serviceAccounts: true, rootCaPublisher: true,
  });
  const only = parseControllersFlag('resourcequota-controller');
  assert.ok(only.run);
  assert.equal(only.controllers.resourceQuota, true);
  assert.equal(only.controllers.namespace, false, 'without * only the named ones run');
  assert.throws(() => parseControllersFlag('*,-nope'), /"nope" is not in the list of known controllers/);
  assert.throws(() => parseControllersFlag(','), /invalid --controllers/);
});

test('the service-account and root-CA halves switch the namespace defaults controller off only together', () => {
  const base = { namespace: true, namespaceDefaults: true };
  assert.deepEqual(applyControllerSelection(base, { serviceAccounts: false }), { ...base, serviceAccounts: false });
  assert.deepEqual(applyControllerSelection(base, { serviceAccounts: false, rootCaPublisher: false }), {
    namespace: true, namespaceDefaults: false, serviceAccounts: false, rootCaPublisher: false,
  });
  assert.deepEqual(applyControllerSelection(base, { namespace: true }), base, 'a selection only turns controllers off');
});
