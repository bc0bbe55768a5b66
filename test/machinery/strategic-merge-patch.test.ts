import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyStrategicMergePatch, schemalessSmp, type SmpSchema } from '../../src/machinery/strategic-merge-patch.js';
import { smpSchemaFor } from '../../src/api/strategic-merge-schema.js';
import { StatusError } from '../../src/machinery/errors.js';

const POD = smpSchemaFor('', 'v1', 'Pod')!;
const DEPLOYMENT = smpSchemaFor('apps', 'v1', 'Deployment')!;
const SERVICE = smpSchemaFor('', 'v1', 'Service')!;
const CONFIGMAP = smpSchemaFor('', 'v1', 'ConfigMap')!;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

interface Case {
  name: string;
  schema: SmpSchema;
  original: Record<string, unknown>;
  patch: unknown;
  want: unknown;
}

const pod = (containers: unknown[], extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers, ...extra },
});

const cases: Case[] = [
  {
    name: 'maps merge recursively; null deletes a key',
    schema: CONFIGMAP,
    original: { metadata: { name: 'c', labels: { a: '1', b: '2' } }, data: { x: '1', y: '2' } },
    patch: { metadata: { labels: { b: null, c: '3' } }, data: { y: null, z: '3' } },
    want: { metadata: { name: 'c', labels: { a: '1', c: '3' } }, data: { x: '1', z: '3' } },
  },
  {
    name: 'null for a missing key is ignored',
    schema: CONFIGMAP,
    original: { metadata: { name: 'c' } },
    patch: { metadata: { labels: null }, data: null },
    want: { metadata: { name: 'c' } },
  },
  {
    name: 'containers merge by name, keeping fields the patch does not name',
    schema: POD,
    original: pod([
      { name: 'a', image: 'a:1', imagePullPolicy: 'Always' },
      { name: 'b', image: 'b:1' },
    ]),
    patch: { spec: { containers: [{ name: 'b', image: 'b:2' }] } },
    want: pod([
      { name: 'a', image: 'a:1', imagePullPolicy: 'Always' },
      { name: 'b', image: 'b:2' },
    ]),
  },
  {
    name: 'a container the server lacks is added ahead of server-only ones',
    schema: POD,
    original: pod([{ name: 'a', image: 'a:1' }]),
    patch: { spec: { containers: [{ name: 'c', image: 'c:1' }] } },
    want: pod([
      { name: 'c', image: 'c:1' },
      { name: 'a', image: 'a:1' },
    ]),
  },
  {
    name: 'env merges by name inside the matched container',
    schema: POD,
    original: pod([{ name: 'a', env: [{ name: 'X', value: '1' }, { name: 'Y', value: 'y' }] }]),
    patch: { spec: { containers: [{ name: 'a', env: [{ name: 'X', value: '2' }] }] } },
    want: pod([{ name: 'a', env: [{ name: 'X', value: '2' }, { name: 'Y', value: 'y' }] }]),
  },
  {
    name: 'ports merge by containerPort (a number)',
    schema: POD,
    original: pod([{ name: 'a', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }]),
    patch: { spec: { containers: [{ name: 'a', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
    want: pod([{ name: 'a', ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }, { containerPort: 443 }] }]),
  },
  {
    name: 'service ports merge by port',
    schema: SERVICE,
    original: { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 8443 }], selector: { app: 'a' } } },
    patch: { spec: { ports: [{ port: 443, targetPort: 9443 }], selector: { app: 'b' } } },
    want: { spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443, targetPort: 9443 }], selector: { app: 'b' } } },
  },
  {
    name: 'finalizers (primitive merge list) are a union',
    schema: POD,
    original: { metadata: { finalizers: ['a', 'b'] } },
    patch: { metadata: { finalizers: ['b', 'c'] } },
    want: { metadata: { finalizers: ['a', 'b', 'c'] } },
  },
  {
    name: '$deleteFromPrimitiveList removes values from a primitive merge list',
    schema: POD,
    original: { metadata: { finalizers: ['a', 'b', 'c'] } },
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['b', 'zz'] } },
    want: { metadata: { finalizers: ['a', 'c'] } },
  },
  {
    name: 'lists without a merge strategy are replaced (tolerations, args)',
    schema: POD,
    original: pod([{ name: 'a', args: ['x', 'y'] }], { tolerations: [{ key: 'k1' }, { key: 'k2' }] }),
    patch: { spec: { containers: [{ name: 'a', args: ['z'] }], tolerations: [{ key: 'k3' }] } },
    want: pod([{ name: 'a', args: ['z'] }], { tolerations: [{ key: 'k3' }] }),
  },
  {
    name: '$patch: delete removes a container',
    schema: POD,
    original: pod([{ name: 'a' }, { name: 'b' }]),
    patch: { spec: { containers: [{ name: 'a', $patch: 'delete' }] } },
    want: pod([{ name: 'b' }]),
  },
  {
    name: '$patch: replace in a list makes the patch elements the whole list',
    schema: POD,
    original: pod([{ name: 'a', image: 'a' }, { name: 'b' }]),
    patch: { spec: { containers: [{ name: 'z', image: 'z' }, { $patch: 'replace' }] } },
    want: pod([{ name: 'z', image: 'z' }]),
  },
  {
    name: '$patch: replace on a map replaces it whole',
    schema: POD,
    original: { metadata: { labels: { a: '1', b: '2' } } },
    patch: { metadata: { labels: { $patch: 'replace', c: '3' } } },
    want: { metadata: { labels: { c: '3' } } },
  },
  {
    name: '$patch: delete on a map empties it',
    schema: POD,
    original: pod([], { securityContext: { runAsUser: 1000 } }),
    patch: { spec: { securityContext: { $patch: 'delete' } } },
    want: pod([], { securityContext: {} }),
  },
  {
    name: '$retainKeys on a deployment strategy drops the keys not listed',
    schema: DEPLOYMENT,
    original: { spec: { replicas: 2, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
    want: { spec: { replicas: 2, strategy: { type: 'Recreate' } } },
  },
  {
    name: '$retainKeys on a volume (merge,retainKeys) switches its source',
    schema: POD,
    original: pod([], { volumes: [{ name: 'v', emptyDir: {} }, { name: 'w', emptyDir: {} }] }),
    patch: { spec: { volumes: [{ name: 'v', $retainKeys: ['configMap', 'name'], configMap: { name: 'cm' } }] } },
    want: pod([], { volumes: [{ name: 'v', configMap: { name: 'cm' } }, { name: 'w', emptyDir: {} }] }),
  },
  {
    name: '$setElementOrder reorders a merge list',
    schema: POD,
    original: pod([{ name: 'a' }, { name: 'b', image: 'b:1' }]),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'b', image: 'b:2' }] } },
    want: pod([{ name: 'b', image: 'b:2' }, { name: 'a' }]),
  },
  {
    name: '$setElementOrder on a primitive list',
    schema: POD,
    original: { metadata: { finalizers: ['a', 'b', 'c'] } },
    patch: { metadata: { '$setElementOrder/finalizers': ['c', 'a', 'd'], finalizers: ['d'], '$deleteFromPrimitiveList/finalizers': ['b'] } },
    want: { metadata: { finalizers: ['c', 'a', 'd'] } },
  },
  {
    name: 'a value of another type replaces the original',
    schema: POD,
    original: { spec: { x: { a: 1 }, y: [1], z: 'str' } },
    patch: { spec: { x: 'now a string', y: { k: 'v' }, z: 5 } },
    want: { spec: { x: 'now a string', y: { k: 'v' }, z: 5 } },
  },
  {
    name: 'directives never reach the result when a field is new',
    schema: POD,
    original: { spec: {} },
    patch: { spec: { containers: [{ name: 'a', env: [{ name: 'E', value: null }], '$setElementOrder/env': [{ name: 'E' }] }] } },
    want: { spec: { containers: [{ name: 'a', env: [{ name: 'E' }] }] } },
  },
  {
    name: 'without a schema lists are replaced and maps merged',
    schema: schemalessSmp,
    original: { spec: { containers: [{ name: 'a' }], m: { a: 1 } } },
    patch: { spec: { containers: [{ name: 'b' }], m: { b: 2 } } },
    want: { spec: { containers: [{ name: 'b' }], m: { a: 1, b: 2 } } },
  },
  {
    name: 'a null patch changes nothing',
    schema: POD,
    original: pod([{ name: 'a' }]),
    patch: null,
    want: pod([{ name: 'a' }]),
  },
];

test('strategic merge patch: classic cases', () => {
  for (const c of cases) {
    const original = deepFreeze(structuredClone(c.original));
    const patch = deepFreeze(JSON.parse(JSON.stringify(c.patch)));
    assert.deepEqual(applyStrategicMergePatch(original, patch, c.schema), c.want, c.name);
  }
});

test('the result shares nothing with the inputs', () => {
  const container = { name: 'a', env: [{ name: 'X', value: '1' }] };
  const original = pod([container]);
  const patch = { spec: { containers: [{ name: 'b', env: [{ name: 'Y', value: '2' }] }] } };
  const result = applyStrategicMergePatch(original, patch, POD) as ReturnType<typeof pod>;
  (result.spec.containers as Array<{ env: Array<{ value: string }> }>).forEach((c) => (c.env[0]!.value = 'changed'));
  assert.equal(container.env[0]!.value, '1');
  assert.equal(patch.spec.containers[0]!.env[0]!.value, '2');
});

test('client-side kubectl apply: three-way patch with $setElementOrder and deletions', () => {
  const lastApplied = '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":3}}';
  const live = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': 'old', note: 'keep' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.26',
              imagePullPolicy: 'IfNotPresent',
              env: [
                { name: 'A', value: 'a' },
                { name: 'B', value: 'b' },
              ],
              ports: [{ containerPort: 80, protocol: 'TCP' }],
            },
            { name: 'sidecar', image: 'busybox' },
          ],
          restartPolicy: 'Always',
        },
      },
    },
  };
  // What kubectl 1.32 sends for: image bumped, env A removed, env C added, sidecar removed, replicas 3.
  const patch = {
    metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied } },
    spec: {
      replicas: 3,
      template: {
        spec: {
          '$setElementOrder/containers': [{ name: 'nginx' }],
          containers: [
            {
              '$setElementOrder/env': [{ name: 'B' }, { name: 'C' }],
              env: [{ name: 'C', value: 'c' }, { $patch: 'delete', name: 'A' }],
              image: 'nginx:1.27',
              name: 'nginx',
            },
            { $patch: 'delete', name: 'sidecar' },
          ],
        },
      },
    },
  };
  const result = applyStrategicMergePatch(deepFreeze(live), deepFreeze(patch), DEPLOYMENT) as typeof live;
  assert.deepEqual(result.metadata.annotations, { 'kubectl.kubernetes.io/last-applied-configuration': lastApplied, note: 'keep' });
  assert.equal(result.spec.replicas, 3);
  assert.deepEqual(result.spec.template.spec.containers, [
    {
      name: 'nginx',
      image: 'nginx:1.27',
      imagePullPolicy: 'IfNotPresent',
      env: [
        { name: 'B', value: 'b' },
        { name: 'C', value: 'c' },
      ],
      ports: [{ containerPort: 80, protocol: 'TCP' }],
    },
  ]);
  assert.equal(result.spec.template.spec.restartPolicy, 'Always');
});

interface ErrorCase {
  name: string;
  schema: SmpSchema;
  original: Record<string, unknown>;
  patch: unknown;
  code: number;
  message: string;
}

const errorCases: ErrorCase[] = [
  {
    name: 'patch body that is not an object',
    schema: POD,
    original: {},
    patch: [{ op: 'add' }],
    code: 400,
    message: 'json: cannot unmarshal array into Go value of type map[string]interface {}',
  },
  {
    name: 'unknown $patch on a list element',
    schema: POD,
    original: pod([{ name: 'a' }]),
    patch: { spec: { containers: [{ name: 'a', $patch: 'foo' }] } },
    code: 500,
    message: 'unknown patch type: foo in map: map[$patch:foo name:a]',
  },
  {
    name: 'unknown $patch on a map',
    schema: POD,
    original: { metadata: { labels: { a: '1' } } },
    patch: { metadata: { labels: { $patch: 'keep' } } },
    code: 500,
    message: 'unknown patch type: keep in map: map[$patch:keep]',
  },
  {
    name: '$patch: merge in a list',
    schema: POD,
    original: pod([{ name: 'a' }]),
    patch: { spec: { containers: [{ $patch: 'merge' }] } },
    code: 500,
    message: 'merging lists cannot yet be specified in the patch',
  },
  {
    name: 'element without the merge key',
    schema: POD,
    original: pod([{ name: 'a' }]),
    patch: { spec: { containers: [{ image: 'x' }] } },
    code: 500,
    message: 'map: map[image:x] does not contain declared merge key: name',
  },
  {
    name: '$retainKeys that is not a list',
    schema: DEPLOYMENT,
    original: { spec: { strategy: { type: 'Recreate' } } },
    patch: { spec: { strategy: { $retainKeys: 'type' } } },
    code: 400,
    message: 'invalid patch format of retainKeys',
  },
  {
    name: 'patch sets a key $retainKeys does not list',
    schema: DEPLOYMENT,
    original: { spec: { strategy: { type: 'Recreate' } } },
    patch: { spec: { strategy: { $retainKeys: ['type'], type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } } },
    code: 400,
    message: 'invalid patch format of retainKeys',
  },
  {
    name: 'malformed $deleteFromPrimitiveList',
    schema: POD,
    original: { metadata: { finalizers: ['a'] } },
    patch: { metadata: { $deleteFromPrimitiveList: ['a'] } },
    code: 400,
    message: 'invalid patch format of primitive list',
  },
  {
    name: 'malformed $setElementOrder',
    schema: POD,
    original: pod([{ name: 'a' }]),
    patch: { spec: { $setElementOrderContainers: [{ name: 'a' }] } },
    code: 400,
    message: 'invalid patch format of setElementOrder list',
  },
  {
    name: '$setElementOrder that is not a list',
    schema: POD,
    original: pod([{ name: 'a' }]),
    patch: { spec: { '$setElementOrder/containers': 'a' } },
    code: 500,
    message: 'expected a []interface {}, but received a string',
  },
  {
    name: 'patch list out of $setElementOrder order',
    schema: POD,
    original: pod([{ name: 'a' }]),
    patch: { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'b', image: 'x' }] } },
    code: 500,
    message: "The order in patch list:\n[map[image:x name:b]]\n doesn't match $setElementOrder list:\n[map[name:a]]\n",
  },
  {
    name: 'list of lists',
    schema: POD,
    original: { metadata: { finalizers: [] } },
    patch: { metadata: { finalizers: [['x']] } },
    code: 422,
    message: 'the server rejected our request due to an error in our request',
  },
  {
    name: 'mixed element types in a merge list',
    schema: POD,
    original: { metadata: { finalizers: ['a'] } },
    patch: { metadata: { finalizers: [1] } },
    code: 500,
    message: 'list element types are not identical: [[a] [1]]',
  },
];

test('strategic merge patch: errors as the apiserver reports them', () => {
  for (const c of errorCases) {
    assert.throws(
      () => applyStrategicMergePatch(c.original, c.patch, c.schema),
      (err: unknown) => {
        assert.ok(err instanceof StatusError, `${c.name}: ${String(err)}`);
        assert.equal(err.code, c.code, c.name);
        assert.equal(err.message, c.message, c.name);
        return true;
      },
      c.name,
    );
  }
  assert.throws(
    () => applyStrategicMergePatch({ metadata: { finalizers: [] } }, { metadata: { finalizers: [['x']] } }, POD),
    (err: unknown) => {
      assert.ok(err instanceof StatusError);
      assert.equal(err.reason, 'Invalid');
      // Upstream's NewGenericServerResponse(422, …, isUnexpectedResponse=false): empty details, no causes.
      assert.deepEqual(err.status.details, {});
      assert.equal((err.cause as Error).message, 'lists of lists are not supported');
      return true;
    },
  );
});

test('smpSchemaFor reads patch metadata from the schema registry', () => {
  assert.deepEqual(
    pick(POD.fieldAt(['spec', 'containers'])),
    { patchStrategy: 'merge', patchMergeKey: 'name', isList: true, isPrimitiveList: false },
  );
  assert.deepEqual(pick(DEPLOYMENT.fieldAt(['spec', 'template', 'spec', 'containers', 'env'])), {
    patchStrategy: 'merge',
    patchMergeKey: 'name',
    isList: true,
    isPrimitiveList: false,
  });
  assert.deepEqual(pick(POD.fieldAt(['spec', 'containers', 'ports'])), {
    patchStrategy: 'merge',
    patchMergeKey: 'containerPort',
    isList: true,
    isPrimitiveList: false,
  });
  assert.deepEqual(pick(POD.fieldAt(['metadata', 'finalizers'])), { patchStrategy: 'merge', patchMergeKey: undefined, isList: true, isPrimitiveList: true });
  assert.equal(POD.fieldAt(['spec', 'volumes'])?.patchStrategy, 'merge,retainKeys');
  assert.equal(DEPLOYMENT.fieldAt(['spec', 'strategy'])?.patchStrategy, 'retainKeys');
  assert.equal(POD.fieldAt(['spec', 'tolerations'])?.patchStrategy, undefined);
  assert.equal(POD.fieldAt(['metadata', 'labels'])?.isMap, true);
  assert.equal(POD.fieldAt(['spec', 'containers', 'resources', 'limits', 'cpu'])?.isList, false);
  assert.equal(POD.fieldAt(['spec', 'noSuchField']), undefined);
  assert.equal(smpSchemaFor('example.com', 'v1', 'Widget'), undefined);
});

function pick(meta: ReturnType<SmpSchema['fieldAt']>) {
  return { patchStrategy: meta?.patchStrategy, patchMergeKey: meta?.patchMergeKey, isList: meta?.isList, isPrimitiveList: meta?.isPrimitiveList };
}
