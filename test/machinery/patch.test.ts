import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyJsonPatch, applyMergePatch } from '../../src/machinery/patch.js';
import { StatusError } from '../../src/machinery/errors.js';

const doc = () => ({
  metadata: { name: 'a', labels: { app: 'web', tier: 'front' } },
  spec: { replicas: 1, ports: [{ port: 80 }, { port: 443 }] },
});

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
  assert.fail('expected a StatusError');
}

test('JSON patch: add, remove, replace, move, copy, test; escapes; inputs untouched', () => {
  const target = doc();
  const before = structuredClone(target);
  const ops = [
    { op: 'test', path: '/spec/replicas', value: 1 },
    { op: 'replace', path: '/spec/replicas', value: 3 },
    { op: 'add', path: '/metadata/labels/example.com~1role', value: 'x' },
    { op: 'remove', path: '/metadata/labels/tier' },
    { op: 'add', path: '/spec/ports/-', value: { port: 8080 } },
    { op: 'copy', from: '/metadata/name', path: '/metadata/annotations' },
    { op: 'move', from: '/spec/ports/0', path: '/spec/first' },
  ];
  const opsBefore = structuredClone(ops);
  const out = applyJsonPatch(target, ops) as ReturnType<typeof doc> & Record<string, any>;
  assert.deepEqual(out, {
    metadata: { name: 'a', labels: { app: 'web', 'example.com/role': 'x' }, annotations: 'a' },
    spec: { replicas: 3, ports: [{ port: 443 }, { port: 8080 }], first: { port: 80 } },
  });
  assert.deepEqual(target, before);
  assert.deepEqual(ops, opsBefore);
  // the result shares nothing with the patch body
  (out.spec.ports[1] as { port: number }).port = 1;
  assert.equal(ops[4]!.value && (ops[4]!.value as { port: number }).port, 8080);
  // a null body is an empty patch
  assert.deepEqual(applyJsonPatch(target, null), target);
});

test('JSON patch: failures while applying are 422 with upstream generic message', () => {
  const failing: unknown[][] = [
    [{ op: 'test', path: '/spec/replicas', value: 2 }],
    [{ op: 'remove', path: '/spec/missing' }],
    [{ op: 'replace', path: '/nope/x', value: 1 }],
    [{ op: 'add', path: '/a/b/c', value: 1 }],
    [{ op: 'frobnicate', path: '/spec' }],
    [{ op: 'move', from: '/missing', path: '/x' }],
    [{ op: 'add', path: '/spec/ports/5', value: 1 }],
    [null],
  ];
  for (const ops of failing) {
    const err = statusOf(() => applyJsonPatch(doc(), ops));
    assert.equal(err.code, 422, JSON.stringify(ops));
    assert.equal(err.reason, 'Invalid');
    assert.equal(err.message, 'the server rejected our request due to an error in our request');
    assert.deepEqual(err.status.details, {});
  }
});

test('JSON patch: malformed bodies are 400, too many operations 413', () => {
  let err = statusOf(() => applyJsonPatch(doc(), { op: 'add' }));
  assert.equal(err.code, 400);
  assert.equal(err.message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  err = statusOf(() => applyJsonPatch(doc(), ['add']));
  assert.equal(err.message, 'json: cannot unmarshal string into Go value of type jsonpatch.Operation');
  err = statusOf(() => applyJsonPatch(doc(), 5));
  assert.equal(err.message, 'json: cannot unmarshal number into Go value of type jsonpatch.Patch');
  const many = Array.from({ length: 10001 }, () => ({ op: 'test', path: '/spec/replicas', value: 1 }));
  err = statusOf(() => applyJsonPatch(doc(), many));
  assert.equal(err.code, 413);
  assert.equal(err.reason, 'RequestEntityTooLarge');
  assert.equal(err.message, 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001');
  assert.deepEqual(applyJsonPatch(doc(), many.slice(0, 10000)), doc());
});

test('merge patch: RFC 7386 cases', () => {
  // The RFC's appendix examples.
  const cases: [unknown, unknown, unknown][] = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    [{ a: 'b' }, {}, { a: 'b' }],
  ];
  for (const [target, patch, want] of cases) {
    const t = structuredClone(target);
    const p = structuredClone(patch);
    assert.deepEqual(applyMergePatch(t, p), want, JSON.stringify([target, patch]));
    assert.deepEqual(t, target);
    assert.deepEqual(p, patch);
  }
});

test('merge patch: upstream specifics (nulls pruned inside arrays, top-level scalars rejected)', () => {
  assert.deepEqual(applyMergePatch({ a: 1 }, { list: [{ x: null, y: 1 }, null] }), { a: 1, list: [{ y: 1 }, null] });
  assert.deepEqual(applyMergePatch({ a: 1 }, [1, null]), [1, null]);
  for (const bad of [null, 'x', 3, true]) {
    const err = statusOf(() => applyMergePatch({ a: 1 }, bad));
    assert.equal(err.code, 400);
    assert.equal(err.message, 'Invalid JSON Patch');
  }
  // merging labels the way kubectl label does
  const out = applyMergePatch(doc(), { metadata: { labels: { tier: null, env: 'prod' } } });
  assert.deepEqual((out as ReturnType<typeof doc>).metadata.labels, { app: 'web', env: 'prod' });
  // results share no structure with the patch
  const patch = { spec: { nested: { v: 1 } } };
  const merged = applyMergePatch({}, patch) as { spec: { nested: { v: number } } };
  merged.spec.nested.v = 2;
  assert.equal(patch.spec.nested.v, 1);
});
