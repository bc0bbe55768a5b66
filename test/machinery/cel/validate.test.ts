// Evaluation of x-kubernetes-validations on custom resources: what kube-apiserver 1.32 answers
// for each object below (read from the reference server by creating and patching these objects).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileValidationRules, type CompiledValidationRules } from '../../../src/machinery/cel/index.js';

const schema = {
  type: 'object',
  'x-kubernetes-validations': [
    { rule: "self.metadata.name.startsWith('g')" },
    { rule: "!has(self.spec) || !has(self.spec.mode) || self.spec.mode != 'root'", message: 'root mode is not allowed' },
  ],
  properties: {
    spec: {
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'self.replicas <= self.max' },
        { rule: 'self.replicas >= 0', message: '  replicas must be non-negative  ' },
        { rule: 'self.replicas != 13', messageExpression: "'replicas unlucky in mode ' + self.mode" },
        { rule: 'self.replicas != 14', messageExpression: "''", message: 'fallback fourteen' },
        { rule: 'self.replicas != 15', reason: 'FieldValueForbidden', fieldPath: '.replicas', message: 'fifteen forbidden' },
        { rule: 'self.replicas != 16', reason: 'FieldValueRequired', message: 'sixteen required' },
        { rule: 'self.replicas != 17', reason: 'FieldValueDuplicate', message: 'seventeen dup' },
        { rule: "self.labels['x'] == 'y'" },
        { rule: 'self.replicas / self.zero > 0' },
        { rule: "self.items[5] == 'a'" },
        { rule: 'self.replicas == oldSelf.replicas', message: 'replicas is immutable' },
        { rule: 'self.ios == 1' },
        { rule: '!oldSelf.hasValue() || self.mode == oldSelf.value().mode', optionalOldSelf: true, message: 'mode optional' },
      ],
      properties: {
        replicas: { type: 'integer' },
        max: { type: 'integer' },
        zero: { type: 'integer' },
        mode: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self.size() < 5' }] },
        ios: { 'x-kubernetes-int-or-string': true },
        labels: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 10 },
        items: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "self != 'bad'" }] } },
      },
    },
  },
};

function compiled(s: unknown = schema): CompiledValidationRules {
  const { rules, errors } = compileValidationRules(s, 'spec.validation.openAPIV3Schema');
  assert.deepEqual(errors, []);
  assert.ok(rules);
  return rules;
}

const gadget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'cel-helper.example.com/v1', kind: 'Gadget', metadata: { name, namespace: 'ns' }, spec });
const texts = (r: CompiledValidationRules, obj: unknown, old?: unknown) => r.validate(obj, old).map((e) => e.toString());

test('failed rules, runtime errors and nested scopes, with upstream\'s paths and texts', () => {
  const r = compiled();
  assert.deepEqual(texts(r, gadget('x1', { replicas: 5, max: 3, zero: 0, labels: { x: 'z' }, items: ['a', 'bad'], ios: 's', mode: 'toolong' })), [
    '<nil>: Invalid value: "object": failed rule: self.metadata.name.startsWith(\'g\')',
    'spec: Invalid value: "object": failed rule: self.replicas <= self.max',
    'spec: Invalid value: "object": failed rule: self.labels[\'x\'] == \'y\'',
    'spec: Invalid value: "object": division by zero evaluating rule: self.replicas / self.zero > 0',
    'spec: Invalid value: "object": index out of bounds: 5 evaluating rule: self.items[5] == \'a\'',
    'spec: Invalid value: "object": failed rule: self.ios == 1',
    'spec.items[1]: Invalid value: "string": failed rule: self != \'bad\'',
    'spec.mode: Invalid value: "string": failed rule: self.size() < 5',
  ]);
});

test('message, messageExpression, reason and fieldPath', () => {
  const r = compiled();
  const spec = (replicas: number) => ({ replicas, max: 30, zero: 1, items: ['a', 'b', 'c', 'd', 'e', 'f'], ios: 1, mode: 'ab' });
  const common = [
    'spec: Invalid value: "object": no such key: labels evaluating rule: self.labels[\'x\'] == \'y\'',
    'spec: Invalid value: "object": failed rule: self.items[5] == \'a\'',
  ];
  const cases: [number, string[]][] = [
    [13, ['spec: Invalid value: "object": replicas unlucky in mode ab', ...common]],
    [14, ['spec: Invalid value: "object": fallback fourteen', ...common]],
    [15, ['spec.replicas: Forbidden: fifteen forbidden', ...common]],
    [16, ['spec: Required value: sixteen required', ...common]],
    [17, ['spec: Duplicate value: "object"', ...common]],
    [-1, ['spec: Invalid value: "object": replicas must be non-negative', common[0]!, 'spec: Invalid value: "object": failed rule: self.replicas / self.zero > 0', common[1]!]],
  ];
  for (const [replicas, want] of cases) assert.deepEqual(texts(r, gadget(`g${replicas}`, spec(replicas))), want, String(replicas));
});

test('transition rules: oldSelf only on update; optionalOldSelf always', () => {
  const r = compiled();
  const ok = gadget('gok', { replicas: 1, max: 30, zero: 1, labels: { x: 'y' }, items: ['a', 'b', 'c', 'd', 'e', 'a'], ios: 1, mode: 'ab' });
  assert.deepEqual(texts(r, ok), []);
  assert.deepEqual(texts(r, ok, ok), []);
  const changed = structuredClone(ok);
  changed.spec.replicas = 2;
  changed.spec.mode = 'cd';
  assert.deepEqual(texts(r, changed, ok), ['spec: Invalid value: "object": replicas is immutable', 'spec: Invalid value: "object": mode optional']);
  const noMode = structuredClone(ok) as { spec: Record<string, unknown> };
  delete noMode.spec.mode;
  assert.deepEqual(texts(r, noMode, ok), ['spec: Invalid value: "object": no such key: mode evaluating rule: mode optional']);
});

test('map lists correlate items by key for oldSelf; other lists never do', () => {
  const s = {
    type: 'object',
    properties: {
      ports: {
        type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: {
          type: 'object', required: ['name'],
          properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } },
          'x-kubernetes-validations': [{ rule: 'self.port >= oldSelf.port', message: 'port may only grow' }],
        },
      },
    },
  };
  const r = compiled(s);
  const old = { ports: [{ name: 'a', port: 10 }, { name: 'b', port: 20 }] };
  assert.deepEqual(texts(r, { ports: [{ name: 'b', port: 5 }, { name: 'a', port: 11 }, { name: 'c', port: 1 }] }, old), [
    'ports[0]: Invalid value: "object": port may only grow',
  ]);
});

test('types from the schema: maps, int-or-string, formats, embedded resources, escaped names', () => {
  const s = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [
          { rule: "self.labels.all(k, self.labels[k].size() < 5) && 'a' in self.labels" },
          { rule: "self.when < timestamp('2030-01-01T00:00:00Z') && self.every > duration('1m')" },
          { rule: "self.day == timestamp('2024-05-06T00:00:00Z')" },
          { rule: "self.data == b'hello'" },
          { rule: "self.ios == 'x' || self.ios == 5" },
          { rule: "self.template.kind == 'Pod' && self.template.metadata.name == 'p'" },
          { rule: 'self.__namespace__ == "n" && self.my__dash__field == 1' },
          { rule: 'self.ratio > 0.5' },
        ],
        properties: {
          labels: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 10 } },
          when: { type: 'string', format: 'date-time' },
          every: { type: 'string', format: 'duration' },
          day: { type: 'string', format: 'date' },
          data: { type: 'string', format: 'byte' },
          ios: { 'x-kubernetes-int-or-string': true },
          template: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: {} },
          namespace: { type: 'string' },
          'my-field': { type: 'integer' },
          ratio: { type: 'number' },
        },
      },
    },
  };
  const r = compiled(s);
  const good = {
    spec: {
      labels: { a: 'x', b: 'yy' }, when: '2024-05-06T07:08:09Z', every: '90s', day: '2024-05-06', data: 'aGVsbG8=', ios: 5,
      template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } }, namespace: 'n', 'my-field': 1, ratio: 1,
    },
  };
  assert.deepEqual(texts(r, good), []);
  const bad = structuredClone(good);
  bad.spec.labels = { b: 'toolong' } as typeof bad.spec.labels;
  bad.spec.every = '30s';
  bad.spec.ios = 'y' as unknown as number;
  bad.spec.ratio = 0.25;
  assert.deepEqual(texts(r, bad), [
    'spec: Invalid value: "object": failed rule: self.labels.all(k, self.labels[k].size() < 5) && \'a\' in self.labels',
    'spec: Invalid value: "object": failed rule: self.when < timestamp(\'2030-01-01T00:00:00Z\') && self.every > duration(\'1m\')',
    'spec: Invalid value: "object": failed rule: self.ios == \'x\' || self.ios == 5',
    'spec: Invalid value: "object": failed rule: self.ratio > 0.5',
  ]);
});

test('object equality compares fields; objects of two schema nodes are two types, as upstream', () => {
  const obj = { type: 'object', properties: { x: { type: 'integer' }, y: { type: 'string' } } };
  const list = { type: 'array', maxItems: 3, items: { type: 'object', properties: { x: { type: 'integer' } } } };
  const s = (rules: { rule: string; message?: string }[]) => ({
    type: 'object',
    properties: { spec: { type: 'object', 'x-kubernetes-validations': rules, properties: { a: obj, b: obj, list, list2: list } } },
  });
  const r = compiled(s([{ rule: 'self.a == oldSelf.a', message: 'a is immutable' }, { rule: 'self.list == oldSelf.list', message: 'list is immutable' }]));
  const v1 = { spec: { a: { x: 1, y: 'q' }, list: [{ x: 1 }] } };
  assert.deepEqual(texts(r, v1, structuredClone(v1)), []);
  assert.deepEqual(texts(r, { spec: { a: { x: 1 }, list: [{ x: 2 }] } }, v1), [
    'spec: Invalid value: "object": a is immutable',
    'spec: Invalid value: "object": list is immutable',
  ]);
  // kube-apiserver: found no matching overload for '_==_' applied to '(selfType755874978.a, selfType755874978.b)'
  const { errors } = compileValidationRules(s([{ rule: 'self.a == self.b' }]), 'spec.validation.openAPIV3Schema');
  assert.match(errors[0]!.detail, /^compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to '\(selfType\S*\.a, selfType\S*\.b\)'/);
});

test('ratcheting: a failed rule on a value the update did not change is a warning', () => {
  // kube-apiserver: the CRD's rules tightened after r1 was created, then r1 patched.
  const r = compiled({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          a: { type: 'object', properties: { x: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.x > 5' }] },
          b: { type: 'integer' },
          l: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: "self != 'p'" }] } },
        },
      },
    },
  });
  const old = { spec: { a: { x: 1 }, b: 1, l: ['p', 'q'] } };
  const run = (spec: Record<string, unknown>) => {
    const warnings: import('../../../src/machinery/field-errors.js').FieldError[] = [];
    const errors = r.validate({ spec: { ...old.spec, ...spec } }, old, warnings).map((e) => e.toString());
    return { errors, warnings: warnings.map((e) => e.toString()) };
  };
  const a = 'spec.a: Invalid value: "object": failed rule: self.x > 5';
  const l0 = 'spec.l[0]: Invalid value: "string": failed rule: self != \'p\'';
  assert.deepEqual(run({ b: 2 }), { errors: [], warnings: [a, l0] });
  assert.deepEqual(run({ a: { x: 2 } }), { errors: [a], warnings: [l0] });
  assert.deepEqual(run({ l: ['p', 'r'] }), { errors: [l0], warnings: [a] });
  assert.deepEqual(run({ l: ['p', 'q'], b: 3 }), { errors: [], warnings: [a, l0] });
  // on create nothing ratchets
  assert.deepEqual(r.validate(old, undefined).map((e) => e.toString()), [a, l0]);
});

test('runtime cost: a rule over its per-call limit stops validation with upstream\'s message', () => {
  // kube-apiserver accepts the CRD (the estimate is under its limit) and refuses 1000 items at run time.
  const r = compiled({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        'x-kubernetes-validations': [{ rule: 'self.l.all(a, self.l.all(b, a + b > -1))', message: 'pairs' }, { rule: 'self.l.size() >= 0' }],
        properties: { l: { type: 'array', maxItems: 1000, items: { type: 'integer' } } },
      },
    },
  });
  const list = (n: number) => ({ spec: { l: Array.from({ length: n }, (_, i) => i) } });
  assert.deepEqual(texts(r, list(1000)), [
    "spec: Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: pairs",
  ]);
  assert.deepEqual(texts(r, list(100)), []);
});

test('a messageExpression sees oldSelf only when a rule of its node is a transition rule', () => {
  const s = (rules: { rule: string; messageExpression?: string }[]) => ({
    type: 'object',
    properties: { spec: { type: 'object', 'x-kubernetes-validations': rules, properties: { v: { type: 'integer' }, name: { type: 'string', maxLength: 10 } } } },
  });
  // kube-apiserver: "failed rule: self.v < 10" on create and on update alike
  const alone = compiled(s([{ rule: 'self.v < 10', messageExpression: "'was ' + oldSelf.name" }]));
  assert.deepEqual(texts(alone, { spec: { v: 30, name: 'y' } }, { spec: { v: 1, name: 'x' } }), ['spec: Invalid value: "object": failed rule: self.v < 10']);
  const withTransition = compiled(s([{ rule: 'self.v < 10', messageExpression: "'was ' + oldSelf.name" }, { rule: 'self.v >= oldSelf.v' }]));
  assert.deepEqual(texts(withTransition, { spec: { v: 30, name: 'y' } }, { spec: { v: 1, name: 'x' } }), ['spec: Invalid value: "object": was x']);
});

test("runtime cost in cel-go's units: the largest list each rule accepts is kube-apiserver's", () => {
  // For each rule, n is the longest list `l` (1..n) kube-apiserver 1.32 accepted: at n + 1 the
  // rule passed its per-call limit (1,000,000). Quadratic rules make the units visible: one unit
  // more per inner step moves n by several.
  const exact: [string, number][] = [
    ['self.l.all(x, self.l.all(y, x != y || x == y))', 407],
    ['self.l.all(x, self.l.exists(y, y == x))', 532],
    ['self.l.all(x, self.l.all(y, x != 0))', 446],
    ['self.l.all(x, self.l.all(y, self.o.b.c == 1))', 353],
    ["self.l.all(x, self.l.all(y, self.s.startsWith('abc')))", 199],
    ['self.l.all(x, self.l.all(y, [1, 2].size() == 2))', 446],
    ['self.l.all(x, self.l.all(y, x > 0 && y > 0))', 377],
    ['self.l.all(x, self.l.map(y, y + x).size() > 0)', 257],
    ['self.l.all(x, self.l.exists_one(y, y == x))', 575],
  ];
  // within one element (0.6 %): the accumulator's list appends differ by a fraction of a unit
  const near: [string, number][] = [
    ['self.l.all(x, self.l.filter(y, y > x).size() >= 0)', 324],
    ['self.l.all(x, self.l.map(y, y > x, y * 2).size() >= 0)', 316],
  ];
  const compile = (rule: string) => {
    const schema = {
      type: 'object',
      properties: {
        l: { type: 'array', maxItems: 700, items: { type: 'integer' } },
        s: { type: 'string', maxLength: 100000 },
        o: { type: 'object', properties: { b: { type: 'object', properties: { c: { type: 'integer' } } } } },
      },
      'x-kubernetes-validations': [{ rule }],
    };
    const { rules, errors } = compileValidationRules(schema, 'spec.validation.openAPIV3Schema');
    assert.deepEqual(errors.map(String), [], rule);
    return rules!;
  };
  const passes = (rules: CompiledValidationRules, n: number) =>
    rules.validate({ l: Array.from({ length: n }, (_, i) => i + 1), s: 'abcdefghij'.repeat(20), o: { b: { c: 1 } } }, undefined).length === 0;
  for (const [rule, n] of exact) {
    const rules = compile(rule);
    assert.ok(passes(rules, n), `${rule} at ${n}`);
    assert.ok(!passes(rules, n + 1), `${rule} at ${n + 1}`);
  }
  for (const [rule, n] of near) {
    const rules = compile(rule);
    assert.ok(passes(rules, n - 1), `${rule} at ${n - 1}`);
    assert.ok(!passes(rules, n + 1), `${rule} at ${n + 1}`);
  }
});
