// core/v1 and events.k8s.io/v1 Events are one store (upstream's cohabitating
// resources): whatever one API writes the other reads, lists and watches in its
// own form, under one key; selectors, errors and validation follow upstream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTestRegistry, statusOf } from './helpers.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { WatchEvent } from '../../src/registry/rest.js';
import { prefixEnd } from '../../src/storage/interface.js';

const NOW = '2026-01-02T03:04:05.000000Z';

function coreEvent(name: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name },
    involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1' },
    reason: 'Pulled',
    message: 'image pulled',
    source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2026-01-02T03:00:00Z',
    lastTimestamp: '2026-01-02T03:04:00Z',
    count: 3,
    type: 'Normal',
  };
}

function v1Event(name: string): KubeObject {
  return {
    apiVersion: 'events.k8s.io/v1',
    kind: 'Event',
    metadata: { name },
    eventTime: NOW,
    reportingController: 'example.com/ctl',
    reportingInstance: 'ctl-1',
    action: 'Reconcile',
    reason: 'Done',
    regarding: { kind: 'Deployment', namespace: 'default', name: 'api' },
    note: 'reconciled',
    type: 'Warning',
  };
}

test('an event written through one API is read through the other, in its form, under one key', async (t) => {
  const reg = newTestRegistry();
  t.after(() => reg.close());
  const core = reg.store('', 'events');
  const v1 = reg.store('events.k8s.io', 'events');

  const fromV1 = await v1.create('default', v1Event('new-style'), {});
  const seenByCore = await core.get('default', 'new-style', {});
  assert.equal(seenByCore.apiVersion, 'v1');
  assert.equal(seenByCore.metadata.resourceVersion, fromV1.metadata.resourceVersion);
  assert.equal(seenByCore.metadata.uid, fromV1.metadata.uid);
  assert.deepEqual(seenByCore.involvedObject, { kind: 'Deployment', namespace: 'default', name: 'api' });
  assert.equal(seenByCore.message, 'reconciled');
  assert.equal(seenByCore.reportingComponent, 'example.com/ctl');
  assert.equal(seenByCore.reportingInstance, 'ctl-1');
  assert.equal(seenByCore.eventTime, NOW);
  assert.equal(seenByCore.regarding, undefined);
  assert.equal(seenByCore.note, undefined);

  await core.create('default', coreEvent('old-style'), {});
  const seenByV1 = await v1.get('default', 'old-style', {});
  assert.equal(seenByV1.apiVersion, 'events.k8s.io/v1');
  assert.deepEqual(seenByV1.regarding, { kind: 'Pod', namespace: 'default', name: 'web-1' });
  assert.equal(seenByV1.note, 'image pulled');
  assert.deepEqual(seenByV1.deprecatedSource, { component: 'kubelet', host: 'node-1' });
  assert.equal(seenByV1.deprecatedFirstTimestamp, '2026-01-02T03:00:00Z');
  assert.equal(seenByV1.deprecatedLastTimestamp, '2026-01-02T03:04:00Z');
  assert.equal(seenByV1.deprecatedCount, 3);
  assert.equal(seenByV1.involvedObject, undefined);

  // One copy of each, under the core key.
  const keys = (await reg.backend.range('/registry/', prefixEnd('/registry/'))).kvs.map((kv) => kv.key);
  assert.deepEqual(keys.filter((k) => k.includes('events')), ['/registry/events/default/new-style', '/registry/events/default/old-style']);

  for (const [store, apiVersion] of [[core, 'v1'], [v1, 'events.k8s.io/v1']] as const) {
    const list = await store.list('default', {});
    assert.equal(list.apiVersion, apiVersion);
    assert.deepEqual(list.items.map((e) => e.metadata.name), ['new-style', 'old-style']);
  }

  // Updates through either API land on the one object.
  const relabelled = await v1.patch('default', 'old-style', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { seen: 'v1' } } }), {});
  assert.deepEqual((await core.get('default', 'old-style', {})).metadata.labels, { seen: 'v1' });
  assert.equal((await core.get('default', 'old-style', {})).metadata.resourceVersion, relabelled.metadata.resourceVersion);
  await v1.delete('default', 'new-style', {});
  assert.equal((await statusOf(core.get('default', 'new-style', {}))).code, 404);
});

test('field selectors take each API version\'s field names', async (t) => {
  const reg = newTestRegistry();
  t.after(() => reg.close());
  const core = reg.store('', 'events');
  const v1 = reg.store('events.k8s.io', 'events');
  await core.create('default', coreEvent('old-style'), {});
  await v1.create('default', v1Event('new-style'), {});
  const names = async (store: typeof core, fieldSelector: string): Promise<string[]> =>
    (await store.list('default', { fieldSelector })).items.map((e) => e.metadata.name ?? '');

  assert.deepEqual(await names(v1, 'regarding.name=web-1'), ['old-style']);
  assert.deepEqual(await names(v1, 'regarding.kind=Deployment'), ['new-style']);
  assert.deepEqual(await names(v1, 'reportingController=example.com/ctl'), ['new-style']);
  assert.deepEqual(await names(v1, 'type=Warning,reason=Done'), ['new-style']);
  assert.deepEqual(await names(core, 'involvedObject.name=api'), ['new-style']);
  assert.deepEqual(await names(core, 'reportingComponent=example.com/ctl'), ['new-style']);
  // `source` is the old source.component, else the new-style reporter (upstream's ToSelectableFields).
  assert.deepEqual(await names(core, 'source=kubelet'), ['old-style']);
  assert.deepEqual(await names(core, 'source=example.com/ctl'), ['new-style']);
  // events.k8s.io's field label conversion does not take `source` (kube-apiserver 1.32 answers 400).
  assert.equal((await statusOf(v1.list('default', { fieldSelector: 'source=example.com/ctl' }))).message, 'field label not supported: source');

  // Each version knows only its own names.
  const wrongForV1 = await statusOf(v1.list('default', { fieldSelector: 'involvedObject.name=web-1' }));
  assert.equal(wrongForV1.code, 400);
  assert.equal(wrongForV1.message, 'field label not supported: involvedObject.name');
  const wrongForCore = await statusOf(core.list('default', { fieldSelector: 'regarding.name=web-1' }));
  assert.equal(wrongForCore.message, 'field label not supported: regarding.name');
});

test('a watch through one API sees the other API\'s writes, converted, and its selectors', async (t) => {
  const reg = newTestRegistry();
  t.after(() => reg.close());
  const core = reg.store('', 'events');
  const v1 = reg.store('events.k8s.io', 'events');
  await reg.registry.ready;
  const rv = String(await reg.backend.currentRevision());

  const seenByV1: WatchEvent[] = [];
  const seenByCore: WatchEvent[] = [];
  const w1 = await v1.watch('default', { resourceVersion: rv, fieldSelector: 'regarding.name=web-1' }, { event: (e) => seenByV1.push(e), done: () => {} });
  const w2 = await core.watch('default', { resourceVersion: rv }, { event: (e) => seenByCore.push(e), done: () => {} });
  t.after(() => {
    w1.stop();
    w2.stop();
  });

  await core.create('default', coreEvent('old-style'), {});
  await v1.create('default', v1Event('new-style'), {});
  await core.patch('default', 'old-style', (cur) => ({ ...cur, count: 4 }), {});
  await v1.delete('default', 'old-style', {});
  const deadline = Date.now() + 5000;
  while ((seenByV1.length < 3 || seenByCore.length < 4) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));

  const summary = (events: WatchEvent[]): string[] =>
    events.map((e) => `${e.type} ${(e.object as KubeObject).apiVersion} ${(e.object as KubeObject).metadata.name}`);
  assert.deepEqual(summary(seenByV1), ['ADDED events.k8s.io/v1 old-style', 'MODIFIED events.k8s.io/v1 old-style', 'DELETED events.k8s.io/v1 old-style']);
  assert.equal((seenByV1[1]!.object as KubeObject).deprecatedCount, 4);
  assert.equal((seenByV1[0]!.object as KubeObject).note, 'image pulled');
  assert.deepEqual(summary(seenByCore), ['ADDED v1 old-style', 'ADDED v1 new-style', 'MODIFIED v1 old-style', 'DELETED v1 old-style']);
  assert.equal((seenByCore[1]!.object as KubeObject).message, 'reconciled');
});

test('errors through events.k8s.io name its group; validation uses upstream\'s (core) field paths', async (t) => {
  const reg = newTestRegistry();
  t.after(() => reg.close());
  const core = reg.store('', 'events');
  const v1 = reg.store('events.k8s.io', 'events');
  const first = await core.create('default', coreEvent('old-style'), {});
  await core.patch('default', 'old-style', (cur) => ({ ...cur, count: 4 }), {});

  const missing = await statusOf(v1.get('default', 'nope', {}));
  assert.equal(missing.message, 'events.events.k8s.io "nope" not found');
  assert.deepEqual(missing.details, { kind: 'events', name: 'nope', group: 'events.k8s.io' });
  const taken = await statusOf(v1.create('default', v1Event('old-style'), {}));
  assert.equal(taken.reason, 'AlreadyExists');
  assert.equal(taken.message, 'events.events.k8s.io "old-style" already exists');
  const stale = await statusOf(v1.update('default', 'old-style', { ...(await v1.get('default', 'old-style', {})), metadata: { name: 'old-style', resourceVersion: first.metadata.resourceVersion } }, {}));
  assert.equal(stale.message, 'Operation cannot be fulfilled on events.events.k8s.io "old-style": the object has been modified; please apply your changes to the latest version and try again');
  assert.equal((await statusOf(core.get('default', 'nope', {}))).message, 'events "nope" not found');

  // Strict create rules for events.k8s.io, reported on the stored fields.
  const bad = { ...v1Event('bad'), note: 'x'.repeat(1025), deprecatedCount: 2, type: 'Odd' };
  const invalid = await statusOf(v1.create('default', bad, {}));
  assert.equal(invalid.code, 422);
  assert.deepEqual(
    invalid.details?.causes?.map((c) => c.field),
    ['message', 'type', 'count'],
  );
  assert.equal(
    invalid.message,
    // Named as upstream names it: the internal kind, core Event (no group).
    'Event "bad" is invalid: [message: Invalid value: "": can have at most 1024 characters, type: Invalid value: "": has invalid value: Odd, count: Invalid value: "": needs to be unset]',
  );
  // The same old-style event is fine through core/v1 (legacy rules only) ...
  assert.equal((await core.get('default', 'old-style', {})).count, 4);
  // ... and through events.k8s.io/v1 its metadata may change but its content may not.
  const current = await v1.get('default', 'old-style', {});
  await v1.update('default', 'old-style', { ...current, metadata: { ...current.metadata, labels: { a: 'b' } } }, {});
  const immutable = await statusOf(v1.update('default', 'old-style', { ...current, metadata: { name: 'old-style' }, reason: 'Other' }, {}));
  assert.equal(immutable.message, 'Event "old-style" is invalid: reason: Invalid value: "Other": field is immutable');
  assert.equal(immutable.details?.group, undefined);
  assert.equal(immutable.details?.kind, 'Event');
});
