// The policy evaluator and matcher alone (src/admission/policy/compiled.ts,
// matching.ts): match conditions, lazy variables, messages and their
// fallbacks, failurePolicy on runtime errors, the cost budget, audit
// annotation values, and rule/selector matching. Texts as upstream's
// validator.go and cel filter word them.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CompiledPolicy } from '../../src/admission/policy/compiled.js';
import { matchResources, type MatchEnvironment } from '../../src/admission/policy/matching.js';
import { jsonToCel } from '../../src/machinery/cel/schema-types.js';
import type { ValidatingAdmissionPolicy } from '../../src/api/admissionregistration/v1/policy-types.js';
import type { AdmissionAttributes } from '../../src/registry/admission.js';

const rules = { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] };
const policy = (spec: Partial<ValidatingAdmissionPolicy['spec']>): CompiledPolicy =>
  new CompiledPolicy({ metadata: { name: 'p' }, spec: { failurePolicy: 'Fail', matchConstraints: rules, ...spec } } as ValidatingAdmissionPolicy);
const input = (obj: Record<string, unknown>, params: unknown = null) => ({
  object: jsonToCel(obj),
  oldObject: null,
  request: jsonToCel({ operation: 'CREATE' }),
  params: params === null ? null : jsonToCel(params),
  namespaceObject: null,
});
const cm = { metadata: { name: 'c' }, data: { a: '1', b: '2' } };

test('messages: messageExpression, then message, then "failed expression: …"; reason defaults to Invalid', () => {
  const p = policy({
    validations: [
      { expression: 'size(object.data) < 2', messageExpression: "'has ' + string(size(object.data))", message: 'unused' },
      { expression: 'false', messageExpression: "'  '", message: 'fallback message' },
      { expression: '  object.metadata.name == "x"  ' },
      { expression: 'true', message: 'never' },
      { expression: 'false', messageExpression: "'two\\nlines'", reason: 'Forbidden' },
    ],
  });
  const r = policy({}).validate(input(cm));
  assert.deepEqual(r.decisions, []);
  assert.deepEqual(p.validate(input(cm)).decisions, [
    { action: 'deny', evaluation: 'deny', message: 'has 2', reason: 'Invalid' },
    { action: 'deny', evaluation: 'deny', message: 'fallback message', reason: 'Invalid' },
    { action: 'deny', evaluation: 'deny', message: 'failed expression: object.metadata.name == "x"', reason: 'Invalid' },
    { action: 'admit', evaluation: 'admit', message: '' },
    { action: 'deny', evaluation: 'deny', message: 'failed expression: false', reason: 'Forbidden' },
  ]);
});

test('runtime errors follow failurePolicy: Fail denies with the cel error, Ignore admits', () => {
  const spec = { validations: [{ expression: 'object.data.missing == "x"' }] };
  assert.deepEqual(policy(spec).validate(input(cm)).decisions, [
    { action: 'deny', evaluation: 'error', message: "expression 'object.data.missing == \"x\"' resulted in error: no such key: missing" },
  ]);
  assert.equal(policy({ ...spec, failurePolicy: 'Ignore' }).validate(input(cm)).decisions[0]!.action, 'admit');
});

test('match conditions: false skips the policy, an error fails it, all true evaluates', () => {
  const v = [{ expression: 'false', message: 'denied' }];
  assert.deepEqual(policy({ matchConditions: [{ name: 'a', expression: 'true' }, { name: 'b', expression: "object.metadata.name == 'other'" }], validations: v }).validate(input(cm)).decisions, []);
  assert.equal(policy({ matchConditions: [{ name: 'a', expression: 'true' }], validations: v }).validate(input(cm)).decisions[0]!.message, 'denied');
  assert.deepEqual(policy({ matchConditions: [{ name: 'a', expression: 'object.nope' + ' == 1' }], validations: v }).validate(input(cm)).decisions, [
    { action: 'deny', evaluation: 'error', message: "expression 'object.nope == 1' resulted in error: no such key: nope" },
  ]);
});

test('variables: each evaluated once, in order, an unused failing one harmless; params when a paramKind is set', () => {
  const p = policy({
    paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
    variables: [
      { name: 'keys', expression: 'size(object.data)' },
      { name: 'limit', expression: 'int(params.data.max)' },
      { name: 'broken', expression: 'object.data.missing' },
    ],
    validations: [{ expression: 'variables.keys <= variables.limit', messageExpression: "string(variables.keys) + ' > ' + string(variables.limit)" }],
  });
  assert.deepEqual(p.validate(input(cm, { data: { max: '1' } })).decisions, [{ action: 'deny', evaluation: 'deny', message: '2 > 1', reason: 'Invalid' }]);
  assert.equal(p.validate(input(cm, { data: { max: '5' } })).decisions[0]!.action, 'admit');
});

test('audit annotations: strings published (trimmed), empty and null excluded', () => {
  const p = policy({
    auditAnnotations: [
      { key: 'name', valueExpression: "' ' + object.metadata.name + ' '" },
      { key: 'empty', valueExpression: "''" },
      { key: 'none', valueExpression: 'null' },
    ],
  });
  assert.deepEqual(p.validate(input(cm)).auditAnnotations, [
    { key: 'name', action: 'publish', value: 'c' },
    { key: 'empty', action: 'exclude' },
    { key: 'none', action: 'exclude' },
  ]);
});

test('the runtime cost budget stops a policy whose expressions are too expensive', () => {
  const heavy = 'object.data.all(k, [1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, a + b + c > 0))))';
  const big = { metadata: { name: 'c' }, data: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'])) };
  const r = policy({ validations: Array.from({ length: 20 }, () => ({ expression: heavy })) }).validate(input(big));
  const last = r.decisions[r.decisions.length - 1]!;
  assert.equal(last.evaluation, 'error');
  assert.match(last.message, /running out of cost budget|actual cost limit exceeded/);
});

const attrs = (over: Partial<AdmissionAttributes> = {}): AdmissionAttributes => ({
  operation: 'CREATE',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  subresource: '',
  namespace: 'ns',
  name: 'c',
  dryRun: false,
  object: { metadata: { name: 'c', labels: { app: 'web' } } },
  ...over,
});
const env = (labels: Record<string, string> | undefined, versions: string[] = ['v1']): MatchEnvironment => ({
  namespaceLabels: async () => labels,
  servedVersions: () => versions,
});

test('matching: rules, exclusions, selectors, scope, resource names, Equivalent versions', async () => {
  const m = async (mr: Record<string, unknown>, a = attrs(), e = env({ tier: 'x' })): Promise<boolean> => matchResources(mr as never, a, e);
  assert.equal(await m({ resourceRules: rules.resourceRules }), true);
  assert.equal(await m({ resourceRules: [{ ...rules.resourceRules[0], operations: ['UPDATE'] }] }), false);
  assert.equal(await m({ resourceRules: [{ ...rules.resourceRules[0], resources: ['configmaps/*'] }] }), true, 'x/* matches x itself');
  assert.equal(await m({ resourceRules: [{ ...rules.resourceRules[0], resources: ['*'] }] }, attrs({ subresource: 'status' })), false, '* has no subresources');
  assert.equal(await m({ resourceRules: [{ ...rules.resourceRules[0], scope: 'Cluster' }] }), false);
  assert.equal(await m({ resourceRules: [{ ...rules.resourceRules[0], resourceNames: ['other'] }] }), false);
  assert.equal(await m({ resourceRules: rules.resourceRules, excludeResourceRules: [{ ...rules.resourceRules[0], resourceNames: ['c'] }] }), false);
  assert.equal(await m({ namespaceSelector: { matchLabels: { tier: 'x' } } }), true, 'no rules: everything');
  assert.equal(await m({ namespaceSelector: { matchLabels: { tier: 'y' } } }), false);
  assert.equal(await m({ namespaceSelector: { matchLabels: { tier: 'y' } } }, attrs({ namespace: '' })), true, 'cluster-scoped objects pass namespace selectors');
  assert.equal(await m({ objectSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] } }), true);
  assert.equal(await m({ objectSelector: { matchLabels: { app: 'db' } } }), false);
  const v2 = attrs({ resource: { group: 'example.com', version: 'v2', resource: 'widgets' }, kind: { group: 'example.com', version: 'v2', kind: 'Widget' } });
  const widgets = [{ apiGroups: ['example.com'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['widgets'] }];
  assert.equal(await m({ resourceRules: widgets, matchPolicy: 'Equivalent' }, v2, env({}, ['v1', 'v2'])), true);
  assert.equal(await m({ resourceRules: widgets, matchPolicy: 'Exact' }, v2, env({}, ['v1', 'v2'])), false);
});
