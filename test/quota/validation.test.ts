// Bad quota specs are a 422 with upstream's causes (texts as kube-apiserver
// v1.32.4 answers them, Go's formatting of odd values included), and a
// quota's status cannot be forged through the main resource.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from '../helpers/http.js';
import { createNamespace, createQuota, getQuota, startQuotaCluster, type QuotaCluster } from './helpers.js';

let c: QuotaCluster;
before(async () => {
  c = await startQuotaCluster();
  await createNamespace(c.server.url, 'v');
});
after(async () => {
  await c?.stop();
});

const create = (body: unknown) => c.post('/api/v1/namespaces/v/resourcequotas', body);

function causes(reply: { json: { details?: { causes?: { field: string; message: string }[] } } }): string[] {
  return (reply.json.details?.causes ?? []).map((x) => `${x.field}: ${x.message}`);
}

describe('ResourceQuota validation', () => {
  test('names, quantities and scopes', async () => {
    const r = await create({
      metadata: { name: 'bad4' },
      spec: { hard: { pods: '1', foo: '1' }, scopes: ['Bogus'] },
    });
    assert.equal(r.status, 422);
    assert.equal(r.json.reason, 'Invalid');
    assert.equal(
      r.json.message,
      'ResourceQuota "bad4" is invalid: [spec.hard[foo]: Invalid value: foo: must be a standard resource type or fully qualified, spec.hard[foo]: Invalid value: foo: must be a standard resource for quota, spec.scopes: Invalid value: []core.ResourceQuotaScope{"Bogus"}: unsupported scope]',
    );
    assert.deepEqual(causes(r), [
      'spec.hard[foo]: Invalid value: foo: must be a standard resource type or fully qualified',
      'spec.hard[foo]: Invalid value: foo: must be a standard resource for quota',
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"Bogus"}: unsupported scope',
    ]);

    const fractional = await create({ metadata: { name: 'bad3' }, spec: { hard: { configmaps: '1500m' } } });
    assert.equal(
      fractional.json.message,
      'ResourceQuota "bad3" is invalid: spec.hard[configmaps]: Invalid value: resource.Quantity{i:resource.int64Amount{value:1500, scale:-3}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"1500m", Format:"DecimalSI"}: must be an integer',
    );

    const mixed = await create({ metadata: { name: 'bad1' }, spec: { hard: { pods: '-1', 'requests.cpu': '1' }, scopes: ['BestEffort', 'NotBestEffort'] } });
    assert.deepEqual(causes(mixed), [
      'spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0',
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: unsupported scope applied to resource',
      'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes',
    ]);
  });

  test('scope selectors', async () => {
    const r = await create({
      metadata: { name: 'bad2' },
      spec: {
        hard: { pods: '1' },
        scopeSelector: {
          matchExpressions: [
            { scopeName: 'NotTerminating', operator: 'Foo' },
            { scopeName: 'PriorityClass', operator: 'Bar', values: ['a'] },
            { scopeName: 'PriorityClass', operator: 'In' },
            { scopeName: 'Terminating', operator: 'Exists', values: ['x'] },
          ],
        },
      },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(causes(r), [
      "spec.scopeSelector.matchExpressions.operator: Invalid value: \"Foo\": must be 'Exists' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "Foo": not a valid selector operator',
      'spec.scopeSelector.matchExpressions.operator: Invalid value: "Bar": not a valid selector operator',
      "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
      "spec.scopeSelector.matchExpressions.values: Invalid value: []string{\"x\"}: must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
      'spec.scopeSelector.matchExpressions: Invalid value: []core.ResourceQuotaScope(nil): conflicting scopes',
    ]);
  });

  test('spec.scopes cannot change', async () => {
    await createQuota(c.server.url, 'v', 'scoped', { hard: { pods: '3' }, scopes: ['BestEffort'] });
    const r = await request(c.server.url, 'PATCH', '/api/v1/namespaces/v/resourcequotas/scoped', {
      raw: JSON.stringify({ spec: { scopes: ['NotTerminating'] } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(causes(r), ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"NotTerminating"}: field is immutable']);
  });

  test('status is not forgeable through the main resource; /status validates it', async () => {
    await createQuota(c.server.url, 'v', 'honest', { hard: { pods: '3' } });
    const forged = await request(c.server.url, 'PATCH', '/api/v1/namespaces/v/resourcequotas/honest', {
      raw: JSON.stringify({ status: { used: { pods: '7' } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(forged.status, 200);
    assert.deepEqual(forged.json.status.used, { pods: '0' });
    assert.deepEqual((await getQuota(c.server.url, 'v', 'honest')).status?.used, { pods: '0' });
    const onCreate = await create({ metadata: { name: 'prefilled' }, spec: { hard: { pods: '1' } }, status: { hard: { pods: '1' }, used: { pods: '0' } } });
    assert.equal(onCreate.status, 201);
    assert.deepEqual(onCreate.json.status, {});
    const negative = await request(c.server.url, 'PATCH', '/api/v1/namespaces/v/resourcequotas/honest/status', {
      raw: JSON.stringify({ status: { used: { pods: '-1' } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(negative.status, 422);
    assert.equal(negative.json.message, 'ResourceQuota "honest" is invalid: status.used[pods]: Invalid value: "-1": must be greater than or equal to 0');
  });
});

describe('LimitRange validation', () => {
  test('min ≤ defaultRequest ≤ default ≤ max, ratios, claims need a storage bound', async () => {
    const r = await c.post('/api/v1/namespaces/v/limitranges', {
      metadata: { name: 'lr2' },
      spec: {
        limits: [
          { type: 'Container', max: { cpu: '1' }, default: { cpu: '2' } },
          { type: 'Pod', min: { memory: '2Gi' }, max: { memory: '1Gi' }, maxLimitRequestRatio: { memory: '500m' } },
          { type: 'PersistentVolumeClaim', max: { cpu: '1' } },
        ],
      },
    });
    assert.equal(r.status, 422);
    const q = (value: number, scale: number, s: string, format = 'DecimalSI') =>
      `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:"${s}", Format:"${format}"}`;
    assert.deepEqual(causes(r), [
      `spec.limits[0].defaultRequest[cpu]: Invalid value: ${q(2, 0, '2')}: default request value 2 is greater than max value 1`,
      `spec.limits[0].default[cpu]: Invalid value: ${q(1, 0, '1')}: default value 2 is greater than max value 1`,
      `spec.limits[1].min[memory]: Invalid value: ${q(2147483648, 0, '2Gi', 'BinarySI')}: min value 2Gi is greater than max value 1Gi`,
      `spec.limits[1].maxLimitRequestRatio[memory]: Invalid value: ${q(500, -3, '500m')}: ratio 500m is less than 1`,
      'spec.limits[2].limits: Required value: either minimum or maximum storage value is required, but neither was provided',
    ]);
  });
});

describe('LimitRange names', () => {
  test('types and resource names as upstream checks them; negative bounds are accepted', async () => {
    const r = await c.post('/api/v1/namespaces/v/limitranges', {
      metadata: { name: 'lr3' },
      spec: { limits: [{ type: 'Foo', max: { cpu: '1' } }, { type: 'example.com/x', max: { foo: '1' } }, { type: 'Container', max: { foo: '1' } }] },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(causes(r), [
      'spec.limits[0].type: Invalid value: "Foo": must be a standard limit type or fully qualified',
      'spec.limits[1].max[foo]: Invalid value: foo: must be a standard resource type or fully qualified',
      'spec.limits[2].max[foo]: Invalid value: foo: must be a standard resource type or fully qualified',
      'spec.limits[2].max[foo]: Invalid value: foo: must be a standard resource for containers',
      'spec.limits[2].default[foo]: Invalid value: foo: must be a standard resource type or fully qualified',
      'spec.limits[2].default[foo]: Invalid value: foo: must be a standard resource for containers',
      'spec.limits[2].defaultRequest[foo]: Invalid value: foo: must be a standard resource type or fully qualified',
      'spec.limits[2].defaultRequest[foo]: Invalid value: foo: must be a standard resource for containers',
    ]);
    const negative = await c.post('/api/v1/namespaces/v/limitranges?dryRun=All', { metadata: { name: 'lr4' }, spec: { limits: [{ type: 'Container', max: { cpu: '-1' } }] } });
    assert.equal(negative.status, 201, negative.text);
    assert.deepEqual(negative.json.spec.limits[0], { type: 'Container', max: { cpu: '-1' }, default: { cpu: '-1' }, defaultRequest: { cpu: '-1' } });
  });
});
