// A watch handler that reads its own resource while the watch cache hands out
// an event (the CRD controller writes a CRD's status from its watch event; an
// admission informer's handler reads): with watch progress pulled, that read
// brings the cache up to writes published elsewhere meanwhile and tells every
// watcher. It must not tell the watchers still waiting for the event being
// handed out that they are past it: each watcher gets every event.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRegistry } from '../../src/registry/index.js';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { until } from '../helpers/wait.js';

test('a handler reading its resource during a dispatch does not make the next watchers skip the event', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-reentrant-progress-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const backend = SqliteBackend.open(path.join(dir, 'state.db'));
  const registry = createRegistry({ backend });
  t.after(async () => {
    await registry.close();
    await backend.close();
  });
  await registry.ready;
  const store = (resource: string) => registry.storeFor('', resource)!;
  await store('namespaces').create('', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo' } } as KubeObject, {});
  const configmaps = store('configmaps');
  const secrets = store('secrets');
  const from = (await configmaps.list('', {})).metadata.resourceVersion!;

  // The first watcher reads configmaps (a consistent get) as each event reaches it; the others only record.
  const seen: string[][] = [[], [], []];
  const watches = await Promise.all(
    seen.map((names, i) =>
      configmaps.watch('', { resourceVersion: from }, {
        event: (e) => {
          if (e.type === 'BOOKMARK') return;
          const name = (e.object as KubeObject).metadata.name!;
          names.push(name);
          if (i === 0) void configmaps.get('demo', name, {}).catch(() => {});
        },
        done: () => {},
      }),
    ),
  );
  t.after(() => watches.forEach((w) => w.stop()));

  // Each round: a configmap and, in the same group commit, a secret written after it, so that
  // when the configmap's event is handed out the backend has already published a later revision.
  const names: string[] = [];
  for (let i = 0; i < 20; i++) {
    names.push(`c${i}`);
    await Promise.all([
      configmaps.create('demo', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` } } as KubeObject, {}),
      secrets.create('demo', { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } } as KubeObject, {}),
    ]);
  }
  await until('every watcher saw every configmap', () => seen.every((s) => s.length >= names.length), 2000).catch(() => {});
  for (const [i, s] of seen.entries()) assert.deepEqual(s, names, `watcher ${i} saw every configmap, in order`);
});
