// The differential pass's own parts, without servers (this file runs in the
// first pass): masking keeps shapes and hides only generated values, the
// structural diff names every differing leaf, `select` finds discovery
// entries, and the allow-list report fails on unlisted differences and on
// entries that no longer match anything.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Masker } from './differential/mask.js';
import { diff } from './differential/diff.js';
import { buildReport, loadAllowList, type AllowEntry } from './differential/allow-list.js';
import { loadCases, select, type StepResult } from './differential/runner.js';

const NOW = Date.parse('2026-11-25T10:00:00Z');

test('masking: managedFields entries, whose order follows their masked times, compare in one order', () => {
  const entry = (manager: string, subresource?: string, time = '2026-11-25T09:59:58Z') => ({
    manager,
    operation: 'Update',
    apiVersion: 'v1',
    time,
    fieldsType: 'FieldsV1',
    fieldsV1: {},
    ...(subresource === undefined ? {} : { subresource }),
  });
  const one = new Masker(() => NOW).mask({ metadata: { managedFields: [entry('b'), entry('a', 'status', '2026-11-25T09:59:59Z')] } });
  const other = new Masker(() => NOW).mask({ metadata: { managedFields: [entry('a', 'status'), entry('b')] } });
  assert.deepEqual(one, other);
  assert.deepEqual(
    (one as { metadata: { managedFields: { manager: string; time: string }[] } }).metadata.managedFields.map((e) => [e.manager, e.time]),
    [['a', '<time>'], ['b', '<time>']],
  );
});

test('masking: uids, resourceVersions, server times, generated names and allocations become placeholders', () => {
  const masker = new Masker(() => NOW);
  const masked = masker.mask({
    kind: 'Service',
    metadata: {
      name: 'web-x7k2p',
      generateName: 'web-',
      uid: '6f1c8f6e-0000-4000-8000-000000000001',
      resourceVersion: '812',
      creationTimestamp: '2026-11-25T09:59:58Z',
      labels: { fixed: 'value' },
    },
    spec: { clusterIP: '10.0.0.17', clusterIPs: ['10.0.0.17'], ports: [{ port: 80, nodePort: 31234 }] },
    status: { at: '2024-01-01T00:00:00Z', micro: '2026-11-25T09:59:59.123456Z' },
  });
  assert.deepEqual(masked, {
    kind: 'Service',
    metadata: {
      name: 'web-<random>',
      generateName: 'web-',
      uid: '<uid>',
      resourceVersion: '<resourceVersion>',
      creationTimestamp: '<time>',
      labels: { fixed: 'value' },
    },
    spec: { clusterIP: '<clusterIP>', clusterIPs: ['<clusterIP>'], ports: [{ port: 80, nodePort: '<nodePort>' }] },
    // A case's own fixed time is compared as it is; a server time keeps its precision.
    status: { at: '2024-01-01T00:00:00Z', micro: '<time.000000>' },
  });
  // Values learned earlier are masked where they appear later, in messages too.
  assert.equal(
    masker.maskText('Operation cannot be fulfilled on services "web-x7k2p": UID 6f1c8f6e-0000-4000-8000-000000000001'),
    'Operation cannot be fulfilled on services "web-<random>": UID <uid>',
  );
  // A step's own patterns, for generated values the masker cannot know.
  assert.equal(masker.withPatterns(['(?<=current: )\\d+']).maskText('too large: 99, current: 812'), 'too large: 99, current: <masked>');
});

test('diff: every differing leaf with its path; absent on one side is undefined', () => {
  assert.deepEqual(diff({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 2] } }), []);
  assert.deepEqual(diff({ code: 409, body: { details: { causes: [{ field: 'a' }] } } }, { code: 422, body: { details: { causes: [{ field: 'a' }, { field: 'b' }] } } }), [
    { path: 'body.details.causes[1]', apiary: undefined, reference: { field: 'b' } },
    { path: 'code', apiary: 409, reference: 422 },
  ]);
  assert.deepEqual(diff({ x: null }, {}), [{ path: 'x', apiary: null, reference: undefined }]);
});

test('select: list entries by index or by field', () => {
  const doc = { items: [{ metadata: { name: '' }, versions: [{ version: 'v1', resources: [{ resource: 'pods' }, { resource: 'nodes' }] }] }] };
  assert.deepEqual(select(doc, 'items[metadata.name=].versions[version=v1].resources[resource=nodes]'), { resource: 'nodes' });
  assert.deepEqual(select(doc, 'items[0].versions[0].resources[1]'), { resource: 'nodes' });
  assert.equal(select(doc, 'items[metadata.name=apps]'), undefined);
});

test('the report: unlisted differences, allowed ones by entry, stale entries', () => {
  const result = (caseName: string, step: number, title: string, paths: string[]): StepResult => ({
    caseName,
    step,
    title,
    request: 'GET /x',
    differences: paths.map((path) => ({ path, apiary: 1, reference: 2 })),
  });
  const entries: AllowEntry[] = [
    { case: '*', path: '*.managedFields*', reason: 'not yet' },
    { case: 'errors', step: 'bad*', path: 'body.message', reason: 'message differs' },
    { case: 'errors', step: 3, path: 'code', reason: 'never happens' },
  ];
  const report = buildReport(
    [
      result('errors', 0, 'bad name', ['body.message', 'body.metadata.managedFields']),
      result('errors', 1, 'good name', ['body.message']),
      result('verbs', 0, 'get', []),
    ],
    entries,
  );
  assert.equal(report.steps, 3);
  assert.equal(report.same, 1);
  assert.deepEqual(report.unlisted.map((u) => `${u.result.title}:${u.difference.path}`), ['good name:body.message']);
  assert.equal(report.allowed.length, 2);
  assert.deepEqual(report.stale, [entries[2]]);
  assert.match(report.text, /^differential: 1 same of 3 steps \(2 known differences, 1 unlisted\)/);
});

test('the report: a broad entry covering more steps than its maxSteps is reported, not silently widened', () => {
  const result = (step: number, paths: string[]): StepResult => ({ caseName: 'pods', step, title: `s${step}`, request: 'GET /x', differences: paths.map((path) => ({ path, apiary: 1, reference: 2 })) });
  const broad: AllowEntry = { case: '*', path: '*.managedFields*', reason: 'not yet', maxSteps: 2 };
  const twoSteps = buildReport([result(0, ['a.managedFields']), result(1, ['b.managedFields', 'c.managedFields'])], [broad]);
  assert.deepEqual(twoSteps.overCeiling, [], 'two steps are within the ceiling, however many differences they hold');
  const threeSteps = buildReport([result(0, ['a.managedFields']), result(1, ['b.managedFields']), result(2, ['c.managedFields'])], [broad]);
  assert.deepEqual(threeSteps.overCeiling, [{ entry: broad, steps: 3 }]);
  assert.equal(threeSteps.unlisted.length, 0);
  assert.match(threeSteps.text, /3 steps > maxSteps 2: \* › \*\.managedFields\*/);
});

test('the case table and the allow-list load: unique case names, every entry with a reason', async () => {
  const cases = await loadCases();
  assert.ok(cases.length >= 25, `${cases.length} cases`);
  const steps = cases.reduce((n, c) => n + c.steps.length, 0);
  assert.ok(steps >= 400, `${steps} steps`);
  for (const entry of loadAllowList()) assert.ok(entry.reason.length > 10, JSON.stringify(entry));
});
