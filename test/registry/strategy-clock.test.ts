// Strategies that stamp times take them from the registry's clock (a
// StrategyContext), never from the process's: a persistent volume's phase
// transition time and a certificate signing request's condition times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTestRegistry, sample } from './helpers.js';
import type { KubeObject } from '../../src/machinery/meta.js';

test("a persistent volume's phase transition times come from the registry's clock", async () => {
  const t = newTestRegistry();
  try {
    const pvs = t.store('', 'persistentvolumes');
    const created = await pvs.create('', sample('', 'persistentvolumes', 'pv1', ''), {});
    assert.deepEqual(created.status, { phase: 'Pending', lastPhaseTransitionTime: '2026-01-02T03:04:05Z' });
    t.clock.advance(90);
    const available: KubeObject = { ...created, status: { phase: 'Available' } };
    const { object } = await pvs.update('', 'pv1', available, { subresource: 'status' });
    assert.deepEqual(object.status, { phase: 'Available', lastPhaseTransitionTime: '2026-01-02T03:05:35Z' });
  } finally {
    await t.close();
  }
});

test("a certificate signing request's approval is stamped with the registry's clock", async () => {
  const t = newTestRegistry();
  try {
    const csrs = t.store('certificates.k8s.io', 'certificatesigningrequests');
    const created = await csrs.create('', sample('certificates.k8s.io', 'certificatesigningrequests', 'csr1', ''), {});
    t.clock.advance(30);
    const approved: KubeObject = { ...created, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test' }] } };
    const { object } = await csrs.update('', 'csr1', approved, { subresource: 'approval' });
    const [condition] = (object.status as { conditions: Record<string, unknown>[] }).conditions;
    assert.equal(condition?.['lastUpdateTime'], '2026-01-02T03:04:35Z');
    assert.equal(condition?.['lastTransitionTime'], '2026-01-02T03:04:35Z');
  } finally {
    await t.close();
  }
});
