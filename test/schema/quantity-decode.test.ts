// A quantity is decoded as resource.Quantity decodes its JSON: what does not
// parse fails the request's decode (400 "… cannot be handled as a …", checked
// against kube-apiserver by the differential pass), and what parses is kept in
// canonical form, maps of quantities included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TypedDecodeError, decodeTyped } from '../../src/api/schema/typed-decode.js';

test('quantities: canonical form kept, a malformed one fails the decode', () => {
  const pod = {
    metadata: { name: 'p' },
    spec: { overhead: { cpu: 0.25 }, containers: [{ name: 'c', resources: { limits: { cpu: '1.5', memory: '1.5Gi' }, requests: { cpu: 0.5, memory: 1e9 } } }] },
  };
  decodeTyped('', 'v1', 'Pod', pod);
  assert.deepEqual(pod.spec.overhead, { cpu: '250m' });
  assert.deepEqual(pod.spec.containers[0]!.resources, { limits: { cpu: '1500m', memory: '1536Mi' }, requests: { cpu: '500m', memory: '1G' } });
  const quota = { metadata: { name: 'q' }, spec: { hard: { pods: 'lots' } } };
  assert.throws(() => decodeTyped('', 'v1', 'ResourceQuota', quota), (err: unknown) => err instanceof TypedDecodeError && /^quantities must match the regular expression/.test(err.message));
});
