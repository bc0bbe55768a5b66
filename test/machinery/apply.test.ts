// Server-side apply's merge, table-driven: each case runs a sequence of
// applies and updates by named managers from an empty object and states the
// object, every manager's owned paths and (for a failing last step) the
// conflicts. The behaviours are those of structured-merge-diff's merge tests
// (multiple appliers, sets, associative lists with compound keys, atomic and
// granular maps and structs, nested removal, updaters taking fields), written
// anew against a small schema of our own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FieldSet } from '../../src/machinery/apply/fieldset.js';
import { scalar, untyped, type TypeNode } from '../../src/machinery/apply/schema.js';
import { ConflictsError, Updater, type Managers } from '../../src/machinery/apply/updater.js';
import { pathString } from '../../src/machinery/apply/path.js';
import { FieldManager, decodeManagedFields } from '../../src/machinery/apply/field-manager.js';
import { conflictsStatusError } from '../../src/machinery/apply/conflicts.js';
import { applySchemaFor } from '../../src/api/schema/apply-schema.js';

function struct(fields: Record<string, TypeNode>, atomic = false): TypeNode {
  return { kind: 'map', atomic, closed: true, field: (n) => fields[n], elements: () => untyped };
}
const map = (values: TypeNode, atomic = false): TypeNode => ({ kind: 'map', atomic, field: () => undefined, elements: () => values });
const atomicList = (items: TypeNode): TypeNode => ({ kind: 'list', atomic: true, listType: 'atomic', field: () => undefined, elements: () => items });
const setList = (items: TypeNode): TypeNode => ({ kind: 'list', atomic: false, listType: 'set', keys: [], field: () => undefined, elements: () => items });
const mapList = (keys: string[], items: TypeNode, defaults: Record<string, unknown> = {}): TypeNode => ({
  kind: 'list',
  atomic: false,
  listType: 'map',
  keys,
  field: () => undefined,
  elements: () => items,
  keyDefault: (k) => defaults[k],
});

const schema = struct({
  numeric: scalar,
  string: scalar,
  atomicList: atomicList(scalar),
  setList: setList(scalar),
  mapList: mapList(['name', 'port'], struct({ name: scalar, port: scalar, protocol: scalar, value: scalar }), { protocol: 'TCP' }),
  byName: mapList(['name'], struct({ name: scalar, value: scalar, other: scalar })),
  granularMap: map(scalar),
  atomicMap: map(scalar, true),
  struct: struct({ a: scalar, b: scalar, nested: struct({ x: scalar, y: scalar }) }),
  atomicStruct: struct({ a: scalar, b: scalar }, true),
});

type Step =
  | { apply: string; object: Record<string, unknown>; force?: boolean }
  | { update: string; object: Record<string, unknown> };

interface Case {
  name: string;
  steps: Step[];
  object?: Record<string, unknown>;
  managed?: Record<string, string[]>;
  conflicts?: string[];
}

const cases: Case[] = [
  {
    name: 'apply creates the object; the applier owns every field it set',
    steps: [{ apply: 'a', object: { numeric: 1, string: 's' } }],
    object: { numeric: 1, string: 's' },
    managed: { a: ['.numeric', '.string'] },
  },
  {
    name: 'a field the applier stops applying is removed when nobody else owns it',
    steps: [
      { apply: 'a', object: { numeric: 1, string: 's' } },
      { apply: 'a', object: { numeric: 1 } },
    ],
    object: { numeric: 1 },
    managed: { a: ['.numeric'] },
  },
  {
    name: 'two appliers setting the same value share it; one leaving keeps the field',
    steps: [
      { apply: 'a', object: { numeric: 1, string: 's' } },
      { apply: 'b', object: { string: 's' } },
      { apply: 'a', object: { numeric: 1 } },
    ],
    object: { numeric: 1, string: 's' },
    managed: { a: ['.numeric'], b: ['.string'] },
  },
  {
    name: 'a different value for another applier\'s field is a conflict',
    steps: [
      { apply: 'a', object: { numeric: 1, string: 's' } },
      { apply: 'b', object: { string: 't', numeric: 2 } },
    ],
    object: { numeric: 1, string: 's' },
    conflicts: ['a .numeric', 'a .string'],
  },
  {
    name: 'force takes the field; the other applier loses it',
    steps: [
      { apply: 'a', object: { numeric: 1, string: 's' } },
      { apply: 'b', object: { string: 't' }, force: true },
    ],
    object: { numeric: 1, string: 't' },
    managed: { a: ['.numeric'], b: ['.string'] },
  },
  {
    name: 'an updater takes what it changes; the applier conflicts with it afterwards',
    steps: [
      { apply: 'a', object: { numeric: 1, string: 's' } },
      { update: 'u', object: { numeric: 1, string: 'changed' } },
      { apply: 'a', object: { numeric: 1, string: 's' } },
    ],
    object: { numeric: 1, string: 'changed' },
    managed: { a: ['.numeric'], u: ['.string'] },
    conflicts: ['u .string'],
  },
  {
    name: 'a field an updater took is not removed when the applier leaves it out',
    steps: [
      { apply: 'a', object: { numeric: 1, string: 's' } },
      { update: 'u', object: { numeric: 1, string: 'changed' } },
      { apply: 'a', object: { numeric: 1 } },
    ],
    object: { numeric: 1, string: 'changed' },
    managed: { a: ['.numeric'], u: ['.string'] },
  },
  {
    name: 'atomic lists are owned whole: equal values share, any difference conflicts',
    steps: [
      { apply: 'a', object: { atomicList: ['x', 'y'] } },
      { apply: 'b', object: { atomicList: ['x', 'y'] } },
      { apply: 'b', object: { atomicList: ['x', 'z'] } },
    ],
    object: { atomicList: ['x', 'y'] },
    managed: { a: ['.atomicList'], b: ['.atomicList'] },
    conflicts: ['a .atomicList'],
  },
  {
    name: 'set lists merge by value; removing one applier\'s value keeps the others\'',
    steps: [
      { apply: 'a', object: { setList: ['x', 'y'] } },
      { apply: 'b', object: { setList: ['z'] } },
      { apply: 'a', object: { setList: ['x'] } },
    ],
    object: { setList: ['x', 'z'] },
    managed: { a: ['.setList[="x"]'], b: ['.setList[="z"]'] },
  },
  {
    name: 'associative lists with compound keys: items by key, fields inside them conflict',
    steps: [
      { apply: 'a', object: { mapList: [{ name: 'n', port: 1, value: 'v1' }, { name: 'n', port: 2, value: 'v2' }] } },
      { apply: 'b', object: { mapList: [{ name: 'n', port: 2, value: 'other' }] } },
    ],
    object: { mapList: [{ name: 'n', port: 1, value: 'v1' }, { name: 'n', port: 2, value: 'v2' }] },
    managed: {
      a: [
        '.mapList[name="n",port=1]',
        '.mapList[name="n",port=2]',
        '.mapList[name="n",port=1].name',
        '.mapList[name="n",port=1].port',
        '.mapList[name="n",port=1].value',
        '.mapList[name="n",port=2].name',
        '.mapList[name="n",port=2].port',
        '.mapList[name="n",port=2].value',
      ],
    },
    conflicts: ['a .mapList[name="n",port=2].value'],
  },
  {
    name: 'associative list items from two appliers merge; an item one stops applying goes',
    steps: [
      { apply: 'a', object: { byName: [{ name: 'x', value: '1' }, { name: 'y', value: '2' }] } },
      { apply: 'b', object: { byName: [{ name: 'z', value: '3' }] } },
      { apply: 'a', object: { byName: [{ name: 'y', value: '2' }] } },
    ],
    object: { byName: [{ name: 'y', value: '2' }, { name: 'z', value: '3' }] },
    managed: { a: ['.byName[name="y"]', '.byName[name="y"].name', '.byName[name="y"].value'], b: ['.byName[name="z"]', '.byName[name="z"].name', '.byName[name="z"].value'] },
  },
  {
    name: 'associative list order: the live order, with applied items in the applied relative order',
    steps: [
      { update: 'u', object: { byName: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } },
      { apply: 'x', object: { byName: [{ name: 'c' }, { name: 'a' }] } },
    ],
    object: { byName: [{ name: 'b' }, { name: 'c' }, { name: 'a' }] },
  },
  {
    name: 'a field another applier set inside an item keeps the item when its first applier leaves',
    steps: [
      { apply: 'a', object: { byName: [{ name: 'x', value: '1' }] } },
      { apply: 'b', object: { byName: [{ name: 'x', other: 'o' }] } },
      { apply: 'a', object: {} },
    ],
    object: { byName: [{ name: 'x', other: 'o' }] },
    managed: { b: ['.byName[name="x"]', '.byName[name="x"].name', '.byName[name="x"].other'] },
  },
  {
    name: 'granular maps merge key by key; a key the applier drops is removed',
    steps: [
      { apply: 'a', object: { granularMap: { k1: 'v1' } } },
      { apply: 'b', object: { granularMap: { k2: 'v2' } } },
      { apply: 'a', object: { numeric: 1 } },
    ],
    object: { granularMap: { k2: 'v2' }, numeric: 1 },
    managed: { a: ['.numeric'], b: ['.granularMap.k2'] },
  },
  {
    name: 'atomic maps are replaced whole and conflict whole',
    steps: [
      { apply: 'a', object: { atomicMap: { k1: 'v1' } } },
      { apply: 'b', object: { atomicMap: { k2: 'v2' } } },
    ],
    object: { atomicMap: { k1: 'v1' } },
    conflicts: ['a .atomicMap'],
  },
  {
    name: 'forced atomic map: the new value replaces the old one entirely',
    steps: [
      { apply: 'a', object: { atomicMap: { k1: 'v1' } } },
      { apply: 'b', object: { atomicMap: { k2: 'v2' } }, force: true },
    ],
    object: { atomicMap: { k2: 'v2' } },
    managed: { b: ['.atomicMap'] },
  },
  {
    name: 'nested structs: removing the last applied field of a nested struct removes the struct',
    steps: [
      { apply: 'a', object: { struct: { a: 1, nested: { x: 1 } } } },
      { apply: 'a', object: { struct: { a: 1 } } },
    ],
    object: { struct: { a: 1 } },
    managed: { a: ['.struct.a'] },
  },
  {
    name: 'nested structs merge field by field between appliers',
    steps: [
      { apply: 'a', object: { struct: { nested: { x: 1 } } } },
      { apply: 'b', object: { struct: { nested: { y: 2 }, b: 3 } } },
    ],
    object: { struct: { nested: { x: 1, y: 2 }, b: 3 } },
    managed: { a: ['.struct.nested.x'], b: ['.struct.b', '.struct.nested.y'] },
  },
  {
    name: 'atomic structs are owned whole',
    steps: [
      { apply: 'a', object: { atomicStruct: { a: 1 } } },
      { apply: 'b', object: { atomicStruct: { b: 2 } } },
    ],
    object: { atomicStruct: { a: 1 } },
    conflicts: ['a .atomicStruct'],
  },
  {
    name: 'a key field left out takes its default (ports by containerPort and protocol)',
    steps: [
      { update: 'u', object: { mapList: [{ name: 'n', port: 80, protocol: 'TCP', value: 'v' }] } },
      { apply: 'a', object: { mapList: [{ name: 'n', port: 80, value: 'v' }] } },
    ],
    object: { mapList: [{ name: 'n', port: 80, protocol: 'TCP', value: 'v' }] },
  },
  {
    name: 'an update removing a field takes it from its owner',
    steps: [
      { apply: 'a', object: { numeric: 1, string: 's' } },
      { update: 'u', object: { numeric: 1 } },
    ],
    object: { numeric: 1 },
    managed: { a: ['.numeric'] },
  },
];

function run(c: Case): { object: unknown; managers: Managers; conflicts?: string[] } {
  const updater = new Updater(schema, FieldSet.empty(), FieldSet.empty());
  let object: unknown = {};
  let managers: Managers = new Map();
  for (const [i, step] of c.steps.entries()) {
    try {
      if ('apply' in step) {
        const res = updater.apply(object, step.object, managers, step.apply, step.force === true);
        if (res.object !== undefined) object = res.object;
        managers = res.managers;
      } else {
        managers = updater.update(object, step.object, managers, step.update).managers;
        object = step.object;
      }
    } catch (err) {
      if (!(err instanceof ConflictsError) || i !== c.steps.length - 1) throw err;
      return { object, managers, conflicts: err.conflicts.map((x) => `${x.manager} ${pathString(x.path)}`) };
    }
  }
  return { object, managers };
}

for (const c of cases) {
  test(`merge: ${c.name}`, () => {
    const got = run(c);
    if (c.object !== undefined) assert.deepEqual(got.object, c.object);
    if (c.managed !== undefined) {
      const managed: Record<string, string[]> = {};
      for (const [name, m] of got.managers) managed[name] = m.set.toStrings().sort();
      const want: Record<string, string[]> = {};
      for (const [name, paths] of Object.entries(c.managed)) want[name] = [...paths].sort();
      assert.deepEqual(managed, want);
    }
    assert.deepEqual(got.conflicts, c.conflicts);
  });
}

test('fieldsV1: encodes members, children and "." in upstream order, and decodes back', () => {
  const fields = {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:ports': {
        '.': {},
        'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:protocol': {} },
        'k:{"port":443,"protocol":"TCP"}': { '.': {} },
      },
      'f:finalizers': { 'v:"a"': {}, 'v:"b"': {} },
    },
  };
  const set = FieldSet.fromFieldsV1(fields);
  const encoded = set.toFieldsV1();
  assert.deepEqual(JSON.stringify(Object.keys((encoded['f:spec'] as Record<string, unknown>))), '["f:finalizers","f:ports"]');
  assert.deepEqual(
    Object.keys((encoded['f:spec'] as Record<string, Record<string, unknown>>)['f:ports']!),
    ['.', 'k:{"port":80,"protocol":"TCP"}', 'k:{"port":443,"protocol":"TCP"}'],
  );
  assert.ok(set.equals(FieldSet.fromFieldsV1(encoded)));
  // Keys sent unsorted are canonical once read.
  assert.ok(FieldSet.fromFieldsV1({ 'k:{"protocol":"TCP","port":80}': {} }).has(['k:{"port":80,"protocol":"TCP"}']));
  assert.throws(() => FieldSet.fromFieldsV1({ 'x:bad': {} }), /unknown PathElementType/);
});

test('field manager on a Deployment: create entry, apply by containers and ports, conflict Status as upstream', () => {
  const root = applySchemaFor('apps', 'v1', 'Deployment')!;
  const clock = () => new Date('2026-01-02T03:04:05.678Z');
  const fm = new FieldManager({ root, apiVersion: 'apps/v1', subresource: '', resetFields: [['status']], clock });
  const created = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns', labels: { app: 'web' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }] }] } },
    },
    status: { replicas: 5 },
  };
  fm.update(null, created, 'kubectl-create');
  const entries = created.metadata as { managedFields?: Array<Record<string, unknown>> };
  assert.equal(entries.managedFields?.length, 1);
  const entry = entries.managedFields![0]!;
  assert.deepEqual(
    { manager: entry['manager'], operation: entry['operation'], apiVersion: entry['apiVersion'], time: entry['time'], fieldsType: entry['fieldsType'] },
    { manager: 'kubectl-create', operation: 'Update', apiVersion: 'apps/v1', time: '2026-01-02T03:04:05Z', fieldsType: 'FieldsV1' },
  );
  const container = FieldSet.fromFieldsV1(entry['fieldsV1']);
  // Go always encodes a container's resources, so the creator owns `resources: {}`; status is nobody's.
  assert.ok(container.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:resources']));
  assert.ok(container.has(['f:spec', 'f:template', 'f:spec', 'f:containers', 'k:{"name":"nginx"}', 'f:ports', 'k:{"containerPort":80,"protocol":"TCP"}']));
  assert.equal(container.toStrings().some((p) => p.startsWith('.status')), false);

  const config = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 3 } };
  let conflict: unknown;
  try {
    fm.apply(created as never, config, 'ci', false);
  } catch (err) {
    conflict = err;
  }
  assert.ok(conflict instanceof ConflictsError);
  const status = conflictsStatusError(conflict.conflicts).status;
  assert.equal(status.code, 409);
  assert.equal(status.message, 'Apply failed with 1 conflict: conflict with "kubectl-create" using apps/v1: .spec.replicas');
  assert.deepEqual(status.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl-create" using apps/v1', field: '.spec.replicas' }]);

  const { object, changed } = fm.apply(created as never, config, 'ci', true);
  assert.equal(changed, true);
  assert.equal((object['spec'] as { replicas: number }).replicas, 3);
  const managed = decodeManagedFields(object.metadata.managedFields);
  assert.deepEqual([...managed.managers.keys()].map((k) => JSON.parse(k).manager), ['ci', 'kubectl-create']);
  assert.equal(object.metadata.managedFields![0]!.operation, 'Apply');
});

test('the create fast path gives the same entry as the general comparison', () => {
  const objects: Array<[string, string, string, string[][], Record<string, unknown>]> = [
    ['', 'v1', 'ConfigMap', [], { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'n', labels: { x: 'y' }, annotations: { a: 'b' }, finalizers: ['f/one'] }, data: { k: 'v', e: '' }, binaryData: {} }],
    // Nothing but stripped metadata (the walk leaves those scalars out), some null, the type fields last.
    ['', 'v1', 'ConfigMap', [], { metadata: { name: 'only', uid: 'u', selfLink: '/x', generation: null, resourceVersion: '5', creationTimestamp: null }, data: { k: 'v' }, kind: 'ConfigMap', apiVersion: 'v1' }],
    ['', 'v1', 'ConfigMap', [], { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'n', generateName: 'g-', namespace: 'n', creationTimestamp: '2026-01-01T00:00:00Z' }, immutable: false }],
    ['apps', 'v1', 'Deployment', [['status']], {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'web', namespace: 'n', uid: 'u', generation: 1, creationTimestamp: '2026-01-01T00:00:00Z', ownerReferences: [{ apiVersion: 'v1', kind: 'X', name: 'o', uid: 'ou' }] },
      spec: {
        replicas: 2, selector: { matchLabels: { app: 'web' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
        template: { metadata: { labels: { app: 'web' }, creationTimestamp: null }, spec: {
          containers: [
            { name: 'a', image: 'nginx', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP' }], env: [{ name: 'X', value: '1' }], resources: {}, terminationMessagePath: '/dev/termination-log' },
            { name: 'b', image: 'busybox', command: ['sh', '-c'], resources: { limits: { cpu: '1' } } },
          ],
          restartPolicy: 'Always', securityContext: {}, dnsPolicy: 'ClusterFirst',
        } },
      },
      status: { replicas: 5 },
    }],
    ['', 'v1', 'Service', [['status']], { apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'n' }, spec: { ports: [{ port: 80, targetPort: 8080, protocol: 'TCP' }], selector: { app: 'x' }, type: 'ClusterIP', clusterIPs: ['10.0.0.1'] } }],
    ['', 'v1', 'Pod', [['status']], { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'n' }, spec: { containers: [{ name: 'c', image: 'i', volumeMounts: [{ name: 'v', mountPath: '/x' }] }], volumes: [{ name: 'v', emptyDir: {} }], tolerations: [{ key: 'k', operator: 'Exists' }] } }],
  ];
  for (const [group, version, kind, resetFields, obj] of objects) {
    const root = applySchemaFor(group, version, kind)!;
    const clock = () => new Date('2026-01-02T03:04:05Z');
    const apiVersion = group === '' ? version : `${group}/${version}`;
    const fast = structuredClone(obj) as never as { metadata: { managedFields?: unknown } };
    const general = structuredClone(obj) as never as { metadata: { managedFields?: unknown } };
    new FieldManager({ root, apiVersion, subresource: '', resetFields, clock }).update(null, fast as never, 'creator');
    new FieldManager({ root, apiVersion, subresource: '', resetFields, clock, fastCreate: false }).update(null, general as never, 'creator');
    assert.ok(Array.isArray(general.metadata.managedFields), kind);
    assert.deepEqual(fast.metadata.managedFields, general.metadata.managedFields, kind);
    assert.equal(JSON.stringify(fast.metadata.managedFields), JSON.stringify(general.metadata.managedFields), `${kind}: same key order`);
  }
});

test("implicit fields carry Go's zero values: a nil time is null, so a template's creationTimestamp: null is not owned", () => {
  const deployment = applySchemaFor('apps', 'v1', 'Deployment')!;
  const template = deployment.field('spec')!.field('template')!;
  const meta = template.field('metadata')!;
  const implicit = new Map(meta.implicit?.() ?? []);
  assert.equal(implicit.get('creationTimestamp'), null);
  const fm = new FieldManager({ root: deployment, apiVersion: 'apps/v1', subresource: '', resetFields: [['status']], clock: () => new Date('2026-11-25T00:00:00Z') });
  const obj = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { creationTimestamp: null, labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  };
  fm.update(null, obj, 'kubectl-create');
  const fields = (obj.metadata as { managedFields?: Array<{ fieldsV1?: unknown }> }).managedFields![0]!.fieldsV1 as Record<string, Record<string, Record<string, Record<string, unknown>>>>;
  const templateMeta = fields['f:spec']!['f:template']!['f:metadata']!;
  assert.equal('f:creationTimestamp' in templateMeta, false, JSON.stringify(templateMeta));
});

test('entries of an apiVersion the kind does not convert from are dropped by the next write; convertible ones keep their paths', () => {
  const root = struct({ apiVersion: scalar, kind: scalar, metadata: struct({ name: scalar, labels: map(scalar) }), spec: struct({ a: scalar, b: scalar, c: scalar }) });
  const clock = () => new Date('2026-11-25T00:00:00Z');
  // A custom resource served as v2 whose CRD also lists v1 (conversion None): v0 is no longer listed.
  const fm = new FieldManager({ root, apiVersion: 'g.io/v2', subresource: '', clock, convertsFrom: (v) => v === 'g.io/v1' });
  const entry = (manager: string, operation: 'Apply' | 'Update', apiVersion: string, field: string) => ({ manager, operation, apiVersion, fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { [`f:${field}`]: {} } } });
  const live = () => ({
    apiVersion: 'g.io/v2',
    kind: 'K',
    metadata: { name: 'x', managedFields: [entry('old', 'Update', 'g.io/v0', 'a'), entry('kept', 'Update', 'g.io/v1', 'b'), entry('applier', 'Apply', 'g.io/v0', 'c')] },
    spec: { a: 1, b: 2, c: 3 },
  });
  const managers = (obj: { metadata: { managedFields?: Array<{ manager?: string; apiVersion?: string }> } }) => (obj.metadata.managedFields ?? []).map((e) => `${e.manager}@${e.apiVersion}`);

  // An update that changes nothing still drops the v0 entries; the v1 one stays as recorded.
  const next = live();
  fm.update(live() as never, next as never, 'writer');
  assert.deepEqual(managers(next), ['kept@g.io/v1']);

  // The v1 entry still conflicts on its path.
  assert.throws(() => fm.apply(live() as never, { apiVersion: 'g.io/v2', kind: 'K', metadata: { name: 'x' }, spec: { b: 9 } }, 'other', false), ConflictsError);

  // The applier's own v0 set prunes nothing: spec.c stays though it applies only spec.a now (nobody owns c any more).
  const { object } = fm.apply(live() as never, { apiVersion: 'g.io/v2', kind: 'K', metadata: { name: 'x' }, spec: { a: 5 } }, 'applier', true);
  assert.deepEqual(object['spec'], { a: 5, b: 2, c: 3 });
  assert.deepEqual(managers(object as never), ['applier@g.io/v2', 'kept@g.io/v1']);
});
