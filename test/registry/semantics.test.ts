// Optimistic concurrency, finalizers, the status subresource, generation,
// selectors, pagination under concurrent writes and watch translation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTestRegistry, sample, statusOf } from './helpers.js';
import { until } from '../helpers/wait.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { WatchEvent } from '../../src/registry/rest.js';

test('optimistic concurrency: a stale resourceVersion is a 409, a missing one overwrites', async () => {
  const t = newTestRegistry();
  try {
    const cm = t.store('', 'configmaps');
    const v1 = await cm.create('default', { metadata: { name: 'c' }, data: { a: '1' } }, {});
    await cm.update('default', 'c', { ...v1, data: { a: '2' } }, {});
    const stale = await statusOf(cm.update('default', 'c', { ...v1, data: { a: '3' } }, {}));
    assert.deepEqual(stale, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Operation cannot be fulfilled on configmaps "c": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'c', kind: 'configmaps' },
      code: 409,
    });
    const { resourceVersion: _rv, ...meta } = v1.metadata;
    const blind = await cm.update('default', 'c', { ...v1, metadata: meta, data: { a: '4' } }, {});
    assert.deepEqual(blind.object.data, { a: '4' });

    // An unchanged write stores nothing and keeps the version.
    const same = await cm.update('default', 'c', blind.object, {});
    assert.equal(same.object.metadata.resourceVersion, blind.object.metadata.resourceVersion);

    // Update of a missing object: NotFound for configmaps, created for leases.
    assert.equal((await statusOf(cm.update('default', 'nope', { metadata: { name: 'nope' } }, {}))).code, 404);
    const lease = await t.store('coordination.k8s.io', 'leases').update('default', 'l', sample('coordination.k8s.io', 'leases', 'l'), {});
    assert.equal(lease.created, true);

    // A patch that pins an old resourceVersion conflicts; concurrent patches all land.
    const pinned = await statusOf(cm.patch('default', 'c', (cur) => ({ ...cur, metadata: { ...cur.metadata, resourceVersion: v1.metadata.resourceVersion! } }), {}));
    assert.equal(pinned.code, 409);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => cm.patch('default', 'c', (cur) => ({ ...cur, data: { ...(cur.data as object), [`k${i}`]: 'v' } }), {})),
    );
    assert.equal(Object.keys((await cm.get('default', 'c', {})).data as object).length, 11);

    // Delete preconditions, worded as kube-apiserver 1.32's rest.BeforeDelete (on the kind, not the resource).
    const current = await cm.get('default', 'c', {});
    const uid = await statusOf(cm.delete('default', 'c', { preconditions: { uid: 'other' } }));
    assert.equal(
      uid.message,
      `Operation cannot be fulfilled on ConfigMap "c": the UID in the precondition (other) does not match the UID in record (${current.metadata.uid}). The object might have been deleted and then recreated`,
    );
    assert.deepEqual(uid.details, { name: 'c', kind: 'ConfigMap' });
    const emptyUid = await statusOf(cm.delete('default', 'c', { preconditions: { uid: '' } }));
    assert.equal(emptyUid.code, 409, 'an empty uid is a precondition too');
    const rv = await statusOf(cm.delete('default', 'c', { preconditions: { resourceVersion: '1' } }));
    assert.equal(
      rv.message,
      `Operation cannot be fulfilled on ConfigMap "c": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${current.metadata.resourceVersion}). The object might have been modified`,
    );
    assert.equal((await cm.delete('default', 'c', { preconditions: { uid: current.metadata.uid! } })).gone, true);
  } finally {
    await t.close();
  }
});

test('finalizers hold a deleted object until an update removes the last one', async () => {
  const t = newTestRegistry();
  try {
    const cm = t.store('', 'configmaps');
    await cm.create('default', { metadata: { name: 'f', finalizers: ['example.com/hold'] } }, {});
    const { result, gone } = await cm.delete('default', 'f', {});
    assert.equal(gone, false);
    const held = result as KubeObject;
    assert.equal(held.metadata.deletionTimestamp, '2026-01-02T03:04:05Z');
    assert.equal(held.metadata.deletionGracePeriodSeconds, 0);

    const added = await statusOf(
      cm.update('default', 'f', { ...held, metadata: { ...held.metadata, finalizers: ['example.com/hold', 'example.com/more'] } }, {}),
    );
    assert.equal(added.code, 422);
    assert.match(added.message ?? '', /no new finalizers can be added if the object is being deleted/);

    const labelled = await cm.patch('default', 'f', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { still: 'here' } } }), {});
    assert.equal(labelled.metadata.labels?.still, 'here');
    await cm.patch('default', 'f', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }), {});
    assert.equal((await statusOf(cm.get('default', 'f', {}))).code, 404);
  } finally {
    await t.close();
  }
});

test('status subresource, status kept on spec writes, generation bump', async () => {
  const t = newTestRegistry();
  try {
    const d = t.store('apps', 'deployments');
    const created = await d.create('default', sample('apps', 'deployments', 'web'), {});
    assert.equal(created.metadata.generation, 1);

    const statusWrite = await d.update(
      'default',
      'web',
      { ...created, spec: { ...(created.spec as object), replicas: 5 }, status: { replicas: 3 }, metadata: { ...created.metadata, labels: { x: 'y' } } },
      { subresource: 'status' },
    );
    assert.deepEqual(statusWrite.object.status, { replicas: 3 });
    assert.equal((statusWrite.object.spec as { replicas: number }).replicas, 1, '/status keeps the spec');
    assert.deepEqual(statusWrite.object.metadata.labels, { app: 'web' }, '/status keeps metadata');
    assert.equal(statusWrite.object.metadata.generation, 1);

    const specWrite = await d.update('default', 'web', { ...statusWrite.object, spec: { ...(statusWrite.object.spec as object), replicas: 2 }, status: {} }, {});
    assert.deepEqual(specWrite.object.status, { replicas: 3 }, 'spec writes keep the status');
    assert.equal(specWrite.object.metadata.generation, 2);

    const labelOnly = await d.patch('default', 'web', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } } }), {});
    assert.equal(labelOnly.metadata.generation, 2, 'metadata-only changes keep the generation');

    const badStatus = await statusOf(d.update('default', 'web', { ...labelOnly, status: { replicas: -1, updatedReplicas: -1, readyReplicas: -1, availableReplicas: -1 } }, { subresource: 'status' }));
    assert.equal(
      badStatus.message,
      'Deployment.apps "web" is invalid: [status.replicas: Invalid value: -1: must be greater than or equal to 0, status.updatedReplicas: Invalid value: -1: must be greater than or equal to 0, status.readyReplicas: Invalid value: -1: must be greater than or equal to 0, status.availableReplicas: Invalid value: -1: must be greater than or equal to 0]',
    );
    const aboveReplicas = await statusOf(d.update('default', 'web', { ...labelOnly, status: { replicas: 1, readyReplicas: 2, availableReplicas: 2 } }, { subresource: 'status' }));
    assert.equal(
      aboveReplicas.message,
      'Deployment.apps "web" is invalid: [status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas, status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas]',
    );

    assert.equal((await statusOf(t.store('', 'configmaps').update('default', 'x', { metadata: { name: 'x' } }, { subresource: 'status' }))).code, 404);
  } finally {
    await t.close();
  }
});

test('label and field selectors, unsupported field labels', async () => {
  const t = newTestRegistry();
  try {
    const pods = t.store('', 'pods');
    for (const [name, node] of [['a', 'n1'], ['b', 'n2'], ['c', '']] as const) {
      const body = sample('', 'pods', name);
      if (node !== '') (body.spec as Record<string, unknown>).nodeName = node;
      await pods.create('default', body, {});
    }
    const names = async (o: { labelSelector?: string; fieldSelector?: string }): Promise<string[]> =>
      (await pods.list('default', o)).items.map((i) => i.metadata.name!);
    assert.deepEqual(await names({ fieldSelector: 'spec.nodeName=n1' }), ['a']);
    assert.deepEqual(await names({ fieldSelector: 'spec.nodeName=' }), ['c']);
    assert.deepEqual(await names({ fieldSelector: 'status.phase=Pending,metadata.name!=a' }), ['b', 'c']);
    assert.deepEqual(await names({ labelSelector: 'app in (a,c)' }), ['a', 'c']);
    assert.deepEqual(await names({ fieldSelector: 'spec.hostNetwork=false', labelSelector: 'app!=b' }), ['a', 'c']);
    const bad = await statusOf(pods.list('default', { fieldSelector: 'spec.foo=x' }));
    assert.equal(bad.code, 400);
    assert.match(bad.message ?? '', /field label not supported: spec\.foo/);
  } finally {
    await t.close();
  }
});

test('pagination under concurrent writes returns every object of the snapshot exactly once', async () => {
  const t = newTestRegistry();
  try {
    const cm = t.store('', 'configmaps');
    for (let i = 0; i < 25; i++) await cm.create('default', { metadata: { name: `c${String(i).padStart(2, '0')}` } }, {});
    const first = await cm.list('default', { limit: 10 });
    assert.equal(first.items.length, 10);
    assert.equal(first.metadata.remainingItemCount, 15);
    const snapshot = first.metadata.resourceVersion;
    const seen = first.items.map((i) => i.metadata.name!);
    let token = first.metadata.continue;
    let round = 0;
    while (token !== undefined) {
      // Writes between pages: new objects, deletions and updates of unseen ones.
      await cm.create('default', { metadata: { name: `new${round}` } }, {});
      await cm.delete('default', `c${20 + round}`, {});
      const page = await cm.list('default', { limit: 10, continue: token });
      assert.equal(page.metadata.resourceVersion, snapshot, 'every page is read at the first page revision');
      seen.push(...page.items.map((i) => i.metadata.name!));
      token = page.metadata.continue;
      round++;
    }
    assert.deepEqual(seen, Array.from({ length: 25 }, (_, i) => `c${String(i).padStart(2, '0')}`));

    const filtered = await cm.list('default', { limit: 2, labelSelector: 'missing' });
    assert.equal(filtered.items.length, 0);
    assert.equal(filtered.metadata.continue, undefined);
  } finally {
    await t.close();
  }
});

test('watch with selectors: leaving the selection is DELETED, entering it is ADDED', async () => {
  const t = newTestRegistry();
  try {
    const cm = t.store('', 'configmaps');
    await cm.create('default', { metadata: { name: 'pre', labels: { team: 'a' } } }, {});
    const events: WatchEvent[] = [];
    const watcher = await cm.watch('default', { labelSelector: 'team=a' }, { event: (e) => events.push(e), done: () => {} });
    const x = await cm.create('default', { metadata: { name: 'x', labels: { team: 'b' } } }, {});
    const x2 = await cm.update('default', 'x', { ...x, metadata: { ...x.metadata, labels: { team: 'a' } } }, {});
    const x3 = await cm.update('default', 'x', { ...x2.object, data: { k: 'v' } }, {});
    const x4 = await cm.update('default', 'x', { ...x3.object, metadata: { ...x3.object.metadata, labels: { team: 'c' } } }, {});
    await cm.delete('default', 'pre', {});
    await new Promise((r) => setTimeout(r, 20));
    watcher.stop();
    const seen = events.map((e) => [e.type, (e.object as KubeObject).metadata.name, (e.object as KubeObject).metadata.resourceVersion]);
    assert.deepEqual(seen, [
      ['ADDED', 'pre', '1'],
      ['ADDED', 'x', x2.object.metadata.resourceVersion],
      ['MODIFIED', 'x', x3.object.metadata.resourceVersion],
      ['DELETED', 'x', x4.object.metadata.resourceVersion],
      ['DELETED', 'pre', String(Number(x4.object.metadata.resourceVersion) + 1)],
    ]);
    const leaving = events[3]!.object as KubeObject;
    assert.deepEqual(leaving.metadata.labels, { team: 'a' }, 'DELETED carries the last matching state');
  } finally {
    await t.close();
  }
});

test('admission: mutating runs before validation, a validating rejection writes nothing', async () => {
  const { forbidden } = await import('../../src/machinery/errors.js');
  const seen: string[] = [];
  const t = newTestRegistry({
    admission: [
      {
        name: 'Labeler',
        admit: async (a) => {
          seen.push(`admit ${a.operation} ${a.resource.resource} ${a.name}`);
          if (a.object) a.object.metadata.labels = { ...a.object.metadata.labels, admitted: 'yes' };
        },
      },
      {
        name: 'Denier',
        validate: async (a) => {
          seen.push(`validate ${a.operation} ${a.name}`);
          if (a.name === 'deny') throw forbidden({ group: '', resource: 'configmaps' }, a.name, 'denied by test');
        },
      },
    ],
  });
  try {
    const cm = t.store('', 'configmaps');
    const ok = await cm.create('default', { metadata: { name: 'ok' } }, {});
    assert.equal(ok.metadata.labels?.admitted, 'yes');
    const before = await t.backend.currentRevision();
    const denied = await statusOf(cm.create('default', { metadata: { name: 'deny' } }, {}));
    assert.equal(denied.code, 403);
    assert.equal(denied.message, 'configmaps "deny" is forbidden: denied by test');
    assert.equal(await t.backend.currentRevision(), before);
    await cm.delete('default', 'ok', {});
    assert.deepEqual(seen, ['admit CREATE configmaps ok', 'validate CREATE ok', 'admit CREATE configmaps deny', 'validate CREATE deny', 'admit DELETE configmaps ok', 'validate DELETE ok']);
  } finally {
    await t.close();
  }
});

test('pods: a scheduled pod is deleted gracefully, an unscheduled one at once', async () => {
  const t = newTestRegistry();
  try {
    const pods = t.store('', 'pods');
    const body = sample('', 'pods', 'bound');
    (body.spec as Record<string, unknown>).nodeName = 'n1';
    await pods.create('default', body, {});
    const graceful = await pods.delete('default', 'bound', {});
    assert.equal(graceful.gone, false);
    const held = graceful.result as KubeObject;
    assert.equal(held.metadata.deletionGracePeriodSeconds, 30);
    assert.equal(held.metadata.deletionTimestamp, '2026-01-02T03:04:35Z');
    const forced = await pods.delete('default', 'bound', { gracePeriodSeconds: 0 });
    assert.equal(forced.gone, true);
    assert.equal((forced.result as KubeObject).kind, 'Pod', 'pods answer DELETE with the pod');
    // As upstream: cutting the grace period to 0 writes it before the delete.
    assert.equal((forced.result as KubeObject).metadata.deletionGracePeriodSeconds, 0);

    // An unscheduled pod goes at once, in upstream's two phases: a write with its
    // deletion fields (grace 0), then the delete; the answer carries them.
    await pods.create('default', sample('', 'pods', 'free'), {});
    const from = String(await t.backend.currentRevision());
    const events: WatchEvent[] = [];
    const watcher = await pods.watch('default', { resourceVersion: from }, { event: (e) => events.push(e), done: () => {} });
    const free = await pods.delete('default', 'free', {});
    assert.equal(free.gone, true);
    const gone = free.result as KubeObject;
    assert.equal(gone.metadata.deletionGracePeriodSeconds, 0);
    assert.equal(gone.metadata.deletionTimestamp, '2026-01-02T03:04:05Z');
    await until('two watch events', () => events.length >= 2);
    assert.deepEqual(
      events.map((e) => [e.type, (e.object as KubeObject).metadata.deletionGracePeriodSeconds]),
      [
        ['MODIFIED', 0],
        ['DELETED', 0],
      ],
    );
    watcher.stop();
  } finally {
    await t.close();
  }
});
