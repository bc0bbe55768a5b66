import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  nameIsDNSLabel,
  pathSegmentName,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from '../../src/machinery/validation.js';
import { invalid } from '../../src/machinery/errors.js';
import type { ObjectMeta } from '../../src/machinery/meta.js';

const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

test('DNS-1123 labels', () => {
  const cases: [string, string[]][] = [
    ['a', []],
    ['my-name', []],
    ['123-abc', []],
    ['a'.repeat(63), []],
    ['a'.repeat(64), ['must be no more than 63 characters']],
    ['', [LABEL_MSG]],
    ['-a', [LABEL_MSG]],
    ['a-', [LABEL_MSG]],
    ['A', [LABEL_MSG]],
    ['a_b', [LABEL_MSG]],
    ['a.b', ['must not contain dots']],
  ];
  for (const [v, want] of cases) assert.deepEqual(isDNS1123Label(v), want, v);
});

test('DNS-1123 subdomains', () => {
  const cases: [string, string[]][] = [
    ['example.com', []],
    ['a.b-c.d', []],
    ['a'.repeat(253), []],
    ['a'.repeat(254), ['must be no more than 253 characters']],
    ['Example.com', [SUBDOMAIN_MSG]],
    ['a..b', [SUBDOMAIN_MSG]],
    ['.a', [SUBDOMAIN_MSG]],
    ['', [SUBDOMAIN_MSG]],
  ];
  for (const [v, want] of cases) assert.deepEqual(isDNS1123Subdomain(v), want, v);
});

test('qualified names', () => {
  assert.deepEqual(isQualifiedName('app'), []);
  assert.deepEqual(isQualifiedName('example.com/My_Name.1'), []);
  assert.deepEqual(isQualifiedName('kubernetes.io/metadata.name'), []);
  assert.deepEqual(isQualifiedName(''), ['name part must be non-empty', NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('/a'), ['prefix part must be non-empty']);
  assert.deepEqual(isQualifiedName('a/'), ['name part must be non-empty', NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('Bad_Prefix/a'), [`prefix part ${SUBDOMAIN_MSG}`]);
  assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
  assert.deepEqual(isQualifiedName('-a'), [NAME_PART_MSG]);
  assert.deepEqual(isQualifiedName('a/b/c'), [
    "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  ]);
});

test('label values', () => {
  assert.deepEqual(isValidLabelValue(''), []);
  assert.deepEqual(isValidLabelValue('MyValue_1.x-y'), []);
  assert.deepEqual(isValidLabelValue('a b'), [LABEL_VALUE_MSG]);
  assert.deepEqual(isValidLabelValue('-x'), [LABEL_VALUE_MSG]);
  assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
  // Go counts bytes: 32 two-byte characters are 64 bytes.
  assert.deepEqual(isValidLabelValue('é'.repeat(32)), ['must be no more than 63 characters', LABEL_VALUE_MSG]);
});

test('name validators: prefixes may end in a dash; path segment names', () => {
  assert.deepEqual(nameIsDNSSubdomain('web-', true), []);
  assert.deepEqual(nameIsDNSSubdomain('web-', false), [SUBDOMAIN_MSG]);
  assert.deepEqual(nameIsDNSLabel('ns-', true), []);
  assert.deepEqual(pathSegmentName('..', false), ["may not be '..'"]);
  assert.deepEqual(pathSegmentName('.', false), ["may not be '.'"]);
  assert.deepEqual(pathSegmentName('..', true), []);
  assert.deepEqual(pathSegmentName('a/b%c', false), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(pathSegmentName('Any Thing:ok', false), []);
});

function messages(errs: { toString(): string }[]): string[] {
  return errs.map((e) => e.toString());
}

test('validateObjectMeta: name, namespace by scope', () => {
  assert.deepEqual(messages(validateObjectMeta({}, true, nameIsDNSSubdomain)), [
    'metadata.name: Required value: name or generateName is required',
    'metadata.namespace: Required value',
  ]);
  assert.deepEqual(messages(validateObjectMeta({ name: 'a', namespace: 'default' }, false, nameIsDNSSubdomain)), [
    'metadata.namespace: Forbidden: not allowed on this type',
  ]);
  assert.deepEqual(messages(validateObjectMeta({ name: 'a', namespace: 'Bad' }, true, nameIsDNSSubdomain)), [
    `metadata.namespace: Invalid value: "Bad": ${LABEL_MSG}`,
  ]);
  assert.deepEqual(messages(validateObjectMeta({ name: 'ok', namespace: 'default' }, true, nameIsDNSSubdomain)), []);
  const err = invalid('', 'ConfigMap', 'Bad', validateObjectMeta({ name: 'Bad', namespace: 'default' }, true, nameIsDNSSubdomain));
  assert.equal(err.message, `ConfigMap "Bad" is invalid: metadata.name: Invalid value: "Bad": ${SUBDOMAIN_MSG}`);
});

test('validateObjectMeta: labels, annotations, finalizers, owners, generation', () => {
  const meta: ObjectMeta = {
    name: 'a',
    generation: -1,
    labels: { 'ok/key': 'v', 'bad key': 'x y' },
    annotations: { 'Upper.Case/OK': 'fine' },
    finalizers: ['kubernetes.io/pv-protection', 'bad/fin/alizer', 'orphan', 'foregroundDeletion'],
    ownerReferences: [
      { apiVersion: 'v1', kind: 'Event', name: 'e', uid: 'u' },
      { apiVersion: '', kind: '', name: '', uid: '', controller: true },
    ],
  };
  const got = messages(validateObjectMeta(meta, false, nameIsDNSSubdomain));
  assert.ok(got.includes('metadata.generation: Invalid value: -1: must be greater than or equal to 0'));
  assert.ok(got.includes(`metadata.labels: Invalid value: "bad key": ${NAME_PART_MSG}`));
  assert.ok(got.includes(`metadata.labels: Invalid value: "x y": ${LABEL_VALUE_MSG}`));
  assert.ok(got.some((m) => m.startsWith('metadata.finalizers: Invalid value: "bad/fin/alizer": a qualified name')));
  assert.ok(got.some((m) => m.includes('finalizer orphan and foregroundDeletion cannot be both set')));
  assert.ok(got.some((m) => m.endsWith('/v1, Kind=Event is disallowed from being an owner')));
  assert.ok(got.includes('metadata.ownerReferences.apiVersion: Invalid value: "": version must not be empty'));
  assert.ok(got.includes('metadata.ownerReferences.uid: Invalid value: "": uid must not be empty'));
  // annotation keys are checked case-insensitively
  assert.ok(!got.some((m) => m.startsWith('metadata.annotations')));
});

test('validateObjectMeta: annotations over 256 KiB in total', () => {
  const big = 'x'.repeat(256 * 1024);
  assert.deepEqual(messages(validateObjectMeta({ name: 'a', annotations: { k: big } }, false, nameIsDNSSubdomain)), [
    'metadata.annotations: Too long: may not be more than 262144 bytes',
  ]);
  const fits = 'x'.repeat(256 * 1024 - 1);
  assert.deepEqual(messages(validateObjectMeta({ name: 'a', annotations: { k: fits } }, false, nameIsDNSSubdomain)), []);
});

test('validateObjectMetaUpdate: immutable identity, resourceVersion, finalizers while deleting', () => {
  const old: ObjectMeta = {
    name: 'a',
    namespace: 'ns',
    uid: 'u1',
    resourceVersion: '5',
    creationTimestamp: '2026-01-01T00:00:00Z',
    generation: 3,
    finalizers: ['a.io/x'],
    deletionTimestamp: '2026-01-02T00:00:00Z',
    deletionGracePeriodSeconds: 30,
  };
  assert.deepEqual(messages(validateObjectMetaUpdate({ ...old }, old)), []);
  const changed: ObjectMeta = {
    ...old,
    name: 'b',
    uid: 'u2',
    resourceVersion: '',
    generation: 2,
    finalizers: ['a.io/x', 'b.io/y'],
    deletionTimestamp: undefined,
    deletionGracePeriodSeconds: undefined,
  };
  assert.deepEqual(messages(validateObjectMetaUpdate(changed, old)), [
    'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/y"}',
    'metadata.resourceVersion: Invalid value: "": must be specified for an update',
    'metadata.generation: Invalid value: 2: must not be decremented',
    'metadata.name: Invalid value: "b": field is immutable',
    'metadata.uid: Invalid value: "u2": field is immutable',
    'metadata.deletionTimestamp: Invalid value: null: field is immutable',
    'metadata.deletionGracePeriodSeconds: Invalid value: null: field is immutable',
  ]);
});
