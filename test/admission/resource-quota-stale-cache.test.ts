// ResourceQuota admission when this server's cache lags storage: a quota whose
// status the cache does not yet show filled (it restricts nothing) is read
// live before a create is admitted, so a status another server's controller
// already wrote is enforced. (Seen on two servers on one etcd under load:
// 35 configmaps admitted against count/configmaps=10.) Storage is a map here
// and the cache a stale copy of it: the lag is the condition under test.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceQuotaAdmission, type QuotaAccess } from '../../src/admission/resource-quota.js';
import type { AdmissionAttributes } from '../../src/admission/interface.js';
import type { ResourceQuota } from '../../src/api/core/v1/types.js';
import { StatusError, conflict } from '../../src/machinery/errors.js';

const create = (name: string): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  namespace: 'ns',
  name,
  dryRun: false,
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns' } },
});

const quota = (rv: number, status?: ResourceQuota['status']): ResourceQuota => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'q', namespace: 'ns', uid: 'u', resourceVersion: String(rv) },
  spec: { hard: { 'count/configmaps': '2' } },
  ...(status !== undefined ? { status } : {}),
});

/** Storage holds the quota with its status filled; the cache still holds it as created. */
function lagging(): QuotaAccess & { live: ResourceQuota; liveReads: number } {
  const access = {
    live: quota(2, { hard: { 'count/configmaps': '2' }, used: { 'count/configmaps': '2' } }),
    liveReads: 0,
    listCached: async () => [quota(1)],
    peekCached: () => [quota(1)],
    listLive: async () => {
      access.liveReads++;
      return [access.live];
    },
    updateStatus: async (q: ResourceQuota) => {
      if (q.metadata.resourceVersion !== access.live.metadata.resourceVersion) throw conflict({ group: '', resource: 'resourcequotas' }, 'q', 'the object has been modified');
      access.live = { ...q, metadata: { ...q.metadata, resourceVersion: String(Number(q.metadata.resourceVersion) + 1) } };
      return access.live;
    },
  };
  return access;
}

test('a quota the cache shows unsynced is read live: its stored status refuses the create', async () => {
  const access = lagging();
  const plugin = new ResourceQuotaAdmission({ access });
  // validate may answer at once (void) or later (a promise); a refusal may be thrown or rejected.
  const err = await (async () => plugin.validate(create('c1')))().then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(err instanceof StatusError, 'refused');
  assert.equal(err.status.code, 403);
  assert.equal(err.status.message, 'configmaps "c1" is forbidden: exceeded quota: q, requested: count/configmaps=1, used: count/configmaps=2, limited: count/configmaps=2');
  assert.equal(access.liveReads, 1);
});

test('a quota still unsynced in storage restricts nothing, as upstream; a synced cache needs no live read', async () => {
  const unsynced = lagging();
  unsynced.live = quota(1);
  await new ResourceQuotaAdmission({ access: unsynced }).validate(create('c1'));
  assert.equal(unsynced.liveReads, 1);

  const synced = lagging();
  const filled = quota(2, { hard: { 'count/configmaps': '2' }, used: { 'count/configmaps': '0' } });
  synced.live = filled;
  synced.listCached = async () => [filled];
  synced.peekCached = () => [filled];
  await new ResourceQuotaAdmission({ access: synced }).validate(create('c1'));
  assert.equal(synced.liveReads, 0);
  assert.equal(synced.live.status?.used?.['count/configmaps'], '1', 'charged');
});
