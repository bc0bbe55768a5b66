// Pod volume defaults and validation, as kube-apiserver 1.32 answers them
// (also compared request by request with kube-apiserver in the differential
// pass, cases/pod-defaults.ts): plugin defaults filled, a sourceless volume
// made an emptyDir, missing required fields and requests above limits refused
// with nothing written, ReplicationControllers not created by a PUT.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTestRegistry, statusOf } from './helpers.js';

const container = { name: 'main', image: 'registry.example/app:1' };

test('pod volume sources get upstream defaults; invalid sources and over-limit requests are refused and not stored', async () => {
  const t = newTestRegistry();
  try {
    const pods = t.store('', 'pods');
    const pod = await pods.create(
      'default',
      {
        metadata: { name: 'p' },
        spec: {
          containers: [container],
          volumes: [
            { name: 'bare' },
            { name: 'rbd', rbd: { monitors: ['m'], image: 'i' } },
            { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } },
            { name: 'claim', ephemeral: { volumeClaimTemplate: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } } },
          ],
        },
      },
      {},
    );
    const volumes = (pod.spec as { volumes: Record<string, Record<string, unknown>>[] }).volumes;
    assert.deepEqual(volumes[0], { name: 'bare', emptyDir: {} });
    assert.deepEqual(volumes[1]!['rbd'], { monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
    assert.deepEqual(volumes[2]!['projected'], { sources: [{ serviceAccountToken: { path: 't', expirationSeconds: 3600 } }], defaultMode: 420 });
    assert.equal((volumes[3]!['ephemeral'] as { volumeClaimTemplate: { spec: { volumeMode: string } } }).volumeClaimTemplate.spec.volumeMode, 'Filesystem');

    const invalid = await statusOf(
      pods.create('default', { metadata: { name: 'bad' }, spec: { containers: [container], volumes: [{ name: 'v', emptyDir: {}, nfs: { server: 's', path: 'relative' } }, { name: 'w', scaleIO: { gateway: 'g', system: 's' } }] } }, {}),
    );
    assert.equal(invalid.code, 422);
    assert.equal(invalid.message, 'Pod "bad" is invalid: [spec.volumes[0].nfs: Forbidden: may not specify more than 1 volume type, spec.volumes[1].scaleIO.volumeName: Required value]');

    const overLimit = await statusOf(
      pods.create('default', { metadata: { name: 'big' }, spec: { containers: [{ ...container, resources: { requests: { memory: '2Gi', 'example.com/gpu': '1' }, limits: { memory: '1Gi' } } }] } }, {}),
    );
    assert.equal(overLimit.code, 422);
    assert.deepEqual(
      overLimit.details?.causes?.map((c) => `${c.field}: ${c.message}`),
      ['spec.containers[0].resources.requests: Invalid value: "2Gi": must be less than or equal to memory limit of 1Gi', 'spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources'],
    );
    for (const name of ['bad', 'big']) assert.equal((await statusOf(pods.get('default', name, {}))).code, 404);

    const rc = t.store('', 'replicationcontrollers');
    const put = await statusOf(
      rc.update('default', 'absent', { metadata: { name: 'absent' }, spec: { selector: { a: 'b' }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [container] } } } }, {}),
    );
    assert.equal(put.code, 404);
    assert.equal(put.message, 'replicationcontrollers "absent" not found');
  } finally {
    await t.close();
  }
});
