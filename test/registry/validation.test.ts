// Defaults and validation failures with their exact Status; nothing is written
// after a rejected request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newTestRegistry, sample, statusOf } from './helpers.js';
import type { KubeObject } from '../../src/machinery/meta.js';

test('defaults are applied on create', async () => {
  const t = newTestRegistry();
  try {
    const secret = await t.store('', 'secrets').create('default', { metadata: { name: 's' }, stringData: { user: 'admin' } }, {});
    assert.equal(secret.type, 'Opaque');
    assert.deepEqual(secret.data, { user: Buffer.from('admin').toString('base64') });
    assert.equal(secret.stringData, undefined);

    const svc = await t.store('', 'services').create('default', { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } }, {});
    const spec = svc.spec as Record<string, unknown>;
    assert.equal(spec.type, 'ClusterIP');
    assert.equal(spec.sessionAffinity, 'None');
    assert.deepEqual(spec.ports, [{ port: 80, protocol: 'TCP', targetPort: 80 }]);

    const pod = await t.store('', 'pods').create(
      'default',
      { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx:1.25' }] }, status: { phase: 'Running' } },
      {},
    );
    const ps = pod.spec as { containers: Record<string, unknown>[] } & Record<string, unknown>;
    assert.equal(ps.restartPolicy, 'Always');
    assert.equal(ps.dnsPolicy, 'ClusterFirst');
    assert.equal(ps.terminationGracePeriodSeconds, 30);
    assert.equal(ps.schedulerName, 'default-scheduler');
    assert.equal(ps.containers[0]!.imagePullPolicy, 'Always');
    assert.equal(ps.containers[1]!.imagePullPolicy, 'IfNotPresent');
    assert.equal(ps.containers[0]!.terminationMessagePath, '/dev/termination-log');
    assert.equal(ps.containers[0]!.terminationMessagePolicy, 'File');
    assert.deepEqual(pod.status, { phase: 'Pending', qosClass: 'BestEffort' }, 'status is reset on create');

    const deploy = await t.store('apps', 'deployments').create('default', sample('apps', 'deployments', 'd'), {});
    const ds = deploy.spec as Record<string, unknown>;
    assert.equal(ds.replicas, 1);
    assert.deepEqual(ds.strategy, { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(ds.revisionHistoryLimit, 10);
    assert.equal(ds.progressDeadlineSeconds, 600);
    assert.equal(deploy.metadata.generation, 1);

    const rc = await t.store('', 'replicationcontrollers').create('default', sample('', 'replicationcontrollers', 'r'), {});
    assert.equal((rc.spec as Record<string, unknown>).replicas, 1);
  } finally {
    await t.close();
  }
});

test('a bad configmap key is a 422 with upstream message and causes, and nothing is written', async () => {
  const t = newTestRegistry();
  try {
    const before = await t.backend.currentRevision();
    const status = await statusOf(t.store('', 'configmaps').create('default', { metadata: { name: 'c' }, data: { 'a b': 'x' } }, {}));
    const detail =
      "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
    assert.deepEqual(status, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `ConfigMap "c" is invalid: data[a b]: Invalid value: "a b": ${detail}`,
      reason: 'Invalid',
      details: { name: 'c', kind: 'ConfigMap', causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "a b": ${detail}`, field: 'data[a b]' }] },
      code: 422,
    });
    assert.equal(await t.backend.currentRevision(), before);
  } finally {
    await t.close();
  }
});

test('validation failures per type carry upstream paths and messages', async () => {
  const t = newTestRegistry();
  const cases: { group: string; resource: string; body: KubeObject; message: string }[] = [
    {
      group: '',
      resource: 'secrets',
      body: { metadata: { name: 's' }, type: 'kubernetes.io/tls', data: {} },
      message: 'Secret "s" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]',
    },
    {
      group: '',
      resource: 'pods',
      body: { metadata: { name: 'p' }, spec: { containers: [] } },
      message: 'Pod "p" is invalid: spec.containers: Required value',
    },
    {
      group: '',
      resource: 'pods',
      body: { metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }] } },
      message: 'Pod "p" is invalid: spec.containers[0].image: Required value',
    },
    {
      group: '',
      resource: 'services',
      body: { metadata: { name: 's' }, spec: { ports: [{ port: 70000 }] } },
      // targetPort defaults to port, so it is reported too, as upstream does.
      message:
        'Service "s" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]',
    },
    {
      group: '',
      resource: 'services',
      body: { metadata: { name: '1svc' }, spec: { ports: [{ port: 80 }] } },
      message:
        'Service "1svc" is invalid: metadata.name: Invalid value: "1svc": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
    },
    {
      group: 'apps',
      resource: 'deployments',
      body: { metadata: { name: 'd' }, spec: { template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'a', image: 'x' }] } } } },
      message: 'Deployment.apps "d" is invalid: spec.selector: Required value',
    },
    {
      group: 'apps',
      resource: 'deployments',
      body: {
        metadata: { name: 'd' },
        spec: { selector: { matchLabels: { a: 'c' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'a', image: 'x' }] } } },
      },
      message: 'Deployment.apps "d" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"a":"b"}: `selector` does not match template `labels`',
    },
    {
      group: 'coordination.k8s.io',
      resource: 'leases',
      body: { metadata: { name: 'l' }, spec: { leaseDurationSeconds: 0 } },
      message: 'Lease.coordination.k8s.io "l" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
    },
    {
      group: '',
      resource: 'events',
      body: { metadata: { name: 'e' }, involvedObject: { namespace: 'other' } },
      message: 'Event "e" is invalid: involvedObject.namespace: Invalid value: "other": does not match event.namespace',
    },
  ];
  try {
    for (const c of cases) {
      const before = await t.backend.currentRevision();
      const status = await statusOf(t.store(c.group, c.resource).create('default', c.body, {}));
      assert.equal(status.code, 422, c.message);
      assert.equal(status.reason, 'Invalid');
      assert.equal(status.message, c.message);
      assert.equal(await t.backend.currentRevision(), before, 'nothing written');
    }
  } finally {
    await t.close();
  }
});

test('request checks: namespace mismatch, kind and apiVersion, name on the URL, strict unknown fields', async () => {
  const t = newTestRegistry();
  try {
    const cm = t.store('', 'configmaps');
    const mismatch = await statusOf(cm.create('default', { metadata: { name: 'a', namespace: 'other' } }, {}));
    assert.equal(mismatch.code, 400);
    assert.equal(mismatch.reason, 'BadRequest');
    assert.equal(mismatch.message, 'the namespace of the provided object does not match the namespace sent on the request');

    const version = await statusOf(cm.create('default', { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'a' } }, {}));
    assert.equal(version.message, 'the API version in the data (apps/v1) does not match the expected API version (v1)');
    const kind = await statusOf(cm.create('default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'a' } }, {}));
    assert.equal(kind.code, 400);

    await cm.create('default', { metadata: { name: 'a' } }, {});
    const name = await statusOf(cm.update('default', 'a', { metadata: { name: 'b' } }, {}));
    assert.equal(name.message, 'the name of the object (b) does not match the name on the URL (a)');

    const strict = await statusOf(cm.create('default', { metadata: { name: 'z' }, spec: { x: 1 } }, { fieldValidation: 'Strict' }));
    assert.equal(strict.code, 400);
    assert.equal(strict.message, 'strict decoding error: unknown field "spec"');
    const pruned = await cm.create('default', { metadata: { name: 'z' }, spec: { x: 1 } }, {});
    assert.equal(pruned.spec, undefined);

    const exists = await statusOf(cm.create('default', { metadata: { name: 'a' } }, {}));
    assert.equal(exists.code, 409);
    assert.equal(exists.reason, 'AlreadyExists');
    assert.equal(exists.message, 'configmaps "a" already exists');

    const generated = await cm.create('default', { metadata: { generateName: 'gen-' } }, {});
    assert.match(generated.metadata.name ?? '', /^gen-[a-z0-9]{5}$/);

    const dry = await cm.create('default', { metadata: { name: 'dry' } }, { dryRun: true });
    assert.equal(dry.metadata.name, 'dry');
    assert.equal((await statusOf(cm.get('default', 'dry', {}))).code, 404);
  } finally {
    await t.close();
  }
});

test('finalizer names: built-in kinds take standard or fully qualified ones; none may be added while deleting', async () => {
  const t = newTestRegistry();
  try {
    const cm = t.store('', 'configmaps');
    const bad = await statusOf(cm.create('default', { metadata: { name: 'f', finalizers: ['example.com/ok', 'no-slash-and-Caps'] } }, {}));
    assert.equal(bad.code, 422);
    assert.equal(
      bad.message,
      'ConfigMap "f" is invalid: metadata.finalizers[1]: Invalid value: "no-slash-and-Caps": name is neither a standard finalizer name nor is it fully qualified',
    );
    // Standard names and qualified ones pass.
    await cm.create('default', { metadata: { name: 'held', finalizers: ['orphan', 'example.com/hold'] } }, {});
    await cm.delete('default', 'held', {});
    // Creating it again while it is being deleted: AlreadyExists, says so first.
    const again = await statusOf(cm.create('default', { metadata: { name: 'held' } }, {}));
    assert.equal(again.code, 409);
    assert.equal(again.message, 'object is being deleted: configmaps "held" already exists');
    const more = await statusOf(
      cm.patch('default', 'held', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: ['orphan', 'example.com/hold', 'example.com/more'] } }), {}),
    );
    assert.equal(more.code, 422);
    const forbidden = 'Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/more"}';
    assert.equal(more.message, `ConfigMap "held" is invalid: metadata.finalizers: ${forbidden}`);
    // Reported twice, as upstream's two passes of ObjectMeta update validation do.
    assert.deepEqual(
      more.details?.causes?.map((c) => [c.field, c.message]),
      [
        ['metadata.finalizers', forbidden],
        ['metadata.finalizers', forbidden],
      ],
    );
    await cm.patch('default', 'held', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: [] } }), {});
  } finally {
    await t.close();
  }
});
