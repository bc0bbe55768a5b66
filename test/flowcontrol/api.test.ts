// flowcontrol.apiserver.k8s.io/v1 as clients meet it, on one server (sqlite,
// the configuration producer every 200 ms): the operations upstream's
// conformance specs "API priority and fairness should support FlowSchema /
// PriorityLevelConfiguration API operations" exercise (discovery, create with
// generateName, get, list by label, watch, merge patch, update, /status get,
// patch and update, delete, deletecollection); kubectl's table; protobuf;
// upstream's validation messages; the bootstrap objects kept as upstream keeps
// them; the X-Kubernetes-PF-* response headers.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { get, request, WatchStream } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { decodeProtobuf } from '../../src/api/schema/protobuf.js';

const GV = '/apis/flowcontrol.apiserver.k8s.io/v1';

let server: TestServer;
before(async () => {
  server = await startTestServer({ apfConfigIntervalMs: 200 });
});
after(() => server.stop());

const fsTemplate = (label: string): Record<string, unknown> => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { generateName: 'e2e-example-fs-', labels: { 'example-e2e-fs-label': label } },
  spec: {
    matchingPrecedence: 10000,
    priorityLevelConfiguration: { name: 'global-default' },
    distinguisherMethod: { type: 'ByUser' },
    rules: [{ subjects: [{ kind: 'User', user: { name: 'example-e2e-non-existent-user' } }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }],
  },
});

const plTemplate = (label: string): Record<string, unknown> => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'PriorityLevelConfiguration',
  metadata: { generateName: 'e2e-example-pl-', labels: { 'example-e2e-pl-label': label } },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 2, limitResponse: { type: 'Reject' } } },
});

for (const [resource, kind, template, labelKey, patchSpec, checkPatched, updateSpec, checkUpdated] of [
  ['flowschemas', 'FlowSchema', fsTemplate, 'example-e2e-fs-label', { matchingPrecedence: 9999 }, (o: any) => o.spec.matchingPrecedence === 9999, (o: any) => (o.spec.matchingPrecedence = 9000), (o: any) => o.spec.matchingPrecedence === 9000],
  ['prioritylevelconfigurations', 'PriorityLevelConfiguration', plTemplate, 'example-e2e-pl-label', { limited: { nominalConcurrencyShares: 4 } }, (o: any) => o.spec.limited.nominalConcurrencyShares === 4, (o: any) => (o.spec.limited.nominalConcurrencyShares = 6), (o: any) => o.spec.limited.nominalConcurrencyShares === 6],
] as const) {
  test(`${kind} API operations (the conformance spec's steps)`, async () => {
    const apis = await get(server.url, '/apis');
    const group = apis.json.groups.find((g: any) => g.name === 'flowcontrol.apiserver.k8s.io');
    assert.deepEqual(group?.versions.map((v: any) => v.version), ['v1']);
    assert.equal(group.preferredVersion.version, 'v1');
    const groupDoc = await get(server.url, '/apis/flowcontrol.apiserver.k8s.io');
    assert.equal(groupDoc.json.preferredVersion.version, 'v1');
    const resources = (await get(server.url, GV)).json.resources.map((r: any) => r.name);
    assert.ok(resources.includes(resource) && resources.includes(`${resource}/status`), resources.join(','));

    const label = `l${Date.now()}`;
    const selector = `labelSelector=${labelKey}%3D${label}`;
    const created: any[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await request(server.url, 'POST', `${GV}/${resource}`, { body: template(label) });
      assert.equal(r.status, 201, r.text);
      created.push(r.json);
    }
    const last = created[2];
    assert.equal((await get(server.url, `${GV}/${resource}/${last.metadata.name}`)).json.metadata.uid, last.metadata.uid);
    const list = await get(server.url, `${GV}/${resource}?${selector}`);
    assert.equal(list.json.items.length, 3);

    const watch = await WatchStream.open(server.url, `${GV}/${resource}?watch=1&${selector}&resourceVersion=${list.json.metadata.resourceVersion}`);
    const patched = await request(server.url, 'PATCH', `${GV}/${resource}/${last.metadata.name}`, {
      raw: JSON.stringify({ metadata: { annotations: { patched: 'true' } }, spec: patchSpec }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.json.metadata.annotations.patched, 'true');
    assert.ok(checkPatched(patched.json));

    // As the spec does (retry.RetryOnConflict): the configuration consumer writes FlowSchemas' status meanwhile.
    let updated = { status: 409 } as Awaited<ReturnType<typeof request>>;
    for (let attempt = 0; attempt < 5 && updated.status === 409; attempt++) {
      const current = (await get(server.url, `${GV}/${resource}/${last.metadata.name}`)).json;
      current.metadata.annotations.updated = 'true';
      updateSpec(current);
      updated = await request(server.url, 'PUT', `${GV}/${resource}/${last.metadata.name}`, { body: current });
    }
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.json.metadata.annotations.updated, 'true');
    assert.ok(checkUpdated(updated.json));

    for (let sawPatched = false; !sawPatched; ) {
      const e = await watch.next();
      assert.ok(e !== undefined, 'watch ended early');
      assert.equal(e.type, 'MODIFIED');
      assert.equal(e.object.kind, kind);
      sawPatched = e.object.metadata.annotations?.patched === 'true';
    }
    watch.close();

    const statusRead = await get(server.url, `${GV}/${resource}/${last.metadata.name}/status`);
    assert.equal(statusRead.json.kind, kind);
    assert.equal(statusRead.json.metadata.uid, last.metadata.uid);
    const statusPatched = await request(server.url, 'PATCH', `${GV}/${resource}/${last.metadata.name}/status`, {
      raw: JSON.stringify({ status: { conditions: [{ type: 'PatchStatusFailed', status: 'False', reason: 'e2e' }] } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(statusPatched.status, 200, statusPatched.text);
    assert.ok(statusPatched.json.status.conditions.some((c: any) => c.type === 'PatchStatusFailed'));
    let statusUpdated = { status: 409 } as Awaited<ReturnType<typeof request>>;
    for (let attempt = 0; attempt < 5 && statusUpdated.status === 409; attempt++) {
      const forStatus = (await get(server.url, `${GV}/${resource}/${last.metadata.name}`)).json;
      forStatus.status.conditions = [...(forStatus.status.conditions ?? []), { type: 'StatusUpdateFailed', status: 'False', reason: 'E2E', message: 'Set from an e2e test' }];
      statusUpdated = await request(server.url, 'PUT', `${GV}/${resource}/${last.metadata.name}/status`, { body: forStatus });
    }
    assert.equal(statusUpdated.status, 200, statusUpdated.text);
    assert.ok(statusUpdated.json.status.conditions.some((c: any) => c.type === 'StatusUpdateFailed'));

    assert.equal((await request(server.url, 'DELETE', `${GV}/${resource}/${last.metadata.name}`)).status, 200);
    assert.equal((await get(server.url, `${GV}/${resource}/${last.metadata.name}`)).status, 404);
    assert.equal((await get(server.url, `${GV}/${resource}?${selector}`)).json.items.length, 2);
    assert.equal((await request(server.url, 'DELETE', `${GV}/${resource}?${selector}`)).status, 200);
    assert.equal((await get(server.url, `${GV}/${resource}?${selector}`)).json.items.length, 0);
  });
}

describe('bootstrap configuration', () => {
  test('the mandatory and suggested objects exist, with upstream 1.32 specs', async () => {
    const fs = (await get(server.url, `${GV}/flowschemas`)).json.items.filter((o: any) => !o.metadata.name.startsWith('e2e-')).map((o: any) => `${o.metadata.name}:${o.spec.priorityLevelConfiguration.name}:${o.spec.matchingPrecedence}`);
    assert.deepEqual(fs.sort(), [
      'catch-all:catch-all:10000', 'endpoint-controller:workload-high:150', 'exempt:exempt:1', 'global-default:global-default:9900',
      'kube-controller-manager:workload-high:800', 'kube-scheduler:workload-high:800', 'kube-system-service-accounts:workload-high:900',
      'probes:exempt:2', 'service-accounts:workload-low:9000', 'system-leader-election:leader-election:100', 'system-node-high:node-high:400',
      'system-nodes:system:500', 'workload-leader-election:leader-election:200',
    ]);
    const exempt = (await get(server.url, `${GV}/prioritylevelconfigurations/exempt`)).json;
    assert.deepEqual(exempt.spec, { type: 'Exempt', exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } });
    assert.equal(exempt.metadata.annotations['apf.kubernetes.io/autoupdate-spec'], 'true');
    const catchAll = (await get(server.url, `${GV}/flowschemas/catch-all`)).json;
    assert.deepEqual(catchAll.spec.distinguisherMethod, { type: 'ByUser' });
    // The consumer records whether each schema's level exists.
    await until('the Dangling condition of catch-all', async () => (await get(server.url, `${GV}/flowschemas/catch-all`)).json.status?.conditions?.[0]?.type === 'Dangling');
    const cond = (await get(server.url, `${GV}/flowschemas/catch-all`)).json.status.conditions[0];
    assert.equal(cond.status, 'False');
    assert.equal(cond.reason, 'Found');
    assert.equal(cond.message, 'This FlowSchema references the PriorityLevelConfiguration object named "catch-all" and it exists');
  });

  test('a deleted mandatory object is created again; its spec cannot be changed', async () => {
    const before = (await get(server.url, `${GV}/flowschemas/catch-all`)).json;
    assert.equal((await request(server.url, 'DELETE', `${GV}/flowschemas/catch-all`)).status, 200);
    await until('catch-all is back', async () => (await get(server.url, `${GV}/flowschemas/catch-all`)).status === 200);
    const back = (await get(server.url, `${GV}/flowschemas/catch-all`)).json;
    assert.notEqual(back.metadata.uid, before.metadata.uid);
    assert.deepEqual(back.spec, before.spec);

    const changed = await request(server.url, 'PATCH', `${GV}/prioritylevelconfigurations/catch-all`, {
      raw: JSON.stringify({ spec: { limited: { nominalConcurrencyShares: 50 } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(changed.status, 422);
    assert.match(changed.json.message, /^PriorityLevelConfiguration\.flowcontrol\.apiserver\.k8s\.io "catch-all" is invalid: spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value$/);
    // The exempt level's spec.exempt may be tuned.
    const tuned = await request(server.url, 'PATCH', `${GV}/prioritylevelconfigurations/exempt`, {
      raw: JSON.stringify({ spec: { exempt: { nominalConcurrencyShares: 10 } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(tuned.status, 200, tuned.text);
  });

  test('a suggested object changed by its owner (autoupdate false) is left alone; a deleted one comes back', async () => {
    const patched = await request(server.url, 'PATCH', `${GV}/prioritylevelconfigurations/workload-low`, {
      raw: JSON.stringify({ metadata: { annotations: { 'apf.kubernetes.io/autoupdate-spec': 'false' } }, spec: { limited: { nominalConcurrencyShares: 77 } } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    // A suggested object changed without the annotation (generation > 1) is left alone too, and marked so.
    const global = await request(server.url, 'PATCH', `${GV}/flowschemas/global-default`, {
      raw: JSON.stringify({ metadata: { annotations: { 'apf.kubernetes.io/autoupdate-spec': null } }, spec: { matchingPrecedence: 9800 } }),
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(global.status, 200, global.text);
    await until('the producer marks global-default as not auto-updated', async () => (await get(server.url, `${GV}/flowschemas/global-default`)).json.metadata.annotations?.['apf.kubernetes.io/autoupdate-spec'] === 'false');
    assert.equal((await get(server.url, `${GV}/flowschemas/global-default`)).json.spec.matchingPrecedence, 9800);
    assert.equal((await get(server.url, `${GV}/prioritylevelconfigurations/workload-low`)).json.spec.limited.nominalConcurrencyShares, 77);

    assert.equal((await request(server.url, 'DELETE', `${GV}/prioritylevelconfigurations/workload-low`)).status, 200);
    await until('workload-low is back', async () => (await get(server.url, `${GV}/prioritylevelconfigurations/workload-low`)).status === 200);
    assert.equal((await get(server.url, `${GV}/prioritylevelconfigurations/workload-low`)).json.spec.limited.nominalConcurrencyShares, 100);
  });
});

describe('validation (upstream messages)', () => {
  const post = (resource: string, body: unknown) => request(server.url, 'POST', `${GV}/${resource}`, { body });
  test('FlowSchema', async () => {
    const r = await post('flowschemas', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'bad' },
      spec: {
        matchingPrecedence: 20000, priorityLevelConfiguration: { name: 'Not_A_Name' },
        rules: [
          { subjects: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['nope', '/a/*/b'] }] },
          { subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'x' }, user: { name: 'u' } }], resourceRules: [{ verbs: ['fly'], apiGroups: ['*'], resources: ['*', 'pods'], namespaces: ['Bad_NS'] }] },
        ],
      },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(r.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      'spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000',
      "spec.priorityLevelConfiguration.name: Invalid value: \"Not_A_Name\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
      'spec.rules[0].subjects: Required value: subjects must contain at least one value',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "nope": must start with slash',
      'spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
      'spec.rules[1].subjects[0].serviceAccount.namespace: Required value: must specify namespace for service account',
      "spec.rules[1].subjects[0].user: Forbidden: user is forbidden when subject kind is not 'User'",
      'spec.rules[1].resourceRules[0].verbs: Unsupported value: []string{"fly"}: supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"',
      "spec.rules[1].resourceRules[0].resources: Invalid value: []string{\"*\", \"pods\"}: if '*' is present, must not specify other resources",
      "spec.rules[1].resourceRules[0].namespaces[0]: Invalid value: \"Bad_NS\": each member of this list must be '*' or a DNS-1123 label; a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    assert.equal((await get(server.url, `${GV}/flowschemas/bad`)).status, 404);
  });
  test('PriorityLevelConfiguration', async () => {
    const r = await post('prioritylevelconfigurations', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'bad' },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: -1, lendablePercent: 101, borrowingLimitPercent: -2, limitResponse: { type: 'Queue', queuing: { queues: 4, handSize: 5, queueLengthLimit: -1 } } } },
    });
    assert.equal(r.status, 422);
    assert.deepEqual(r.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      'spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer',
      'spec.limited.limitResponse.queuing.queueLengthLimit: Invalid value: -1: must be positive',
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 5: should not be greater than queues (4)',
      'spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive',
      'spec.limited.borrowingLimitPercent: Invalid value: -2: if specified, must be a non-negative integer',
    ]);
    const entropy = await post('prioritylevelconfigurations', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'exempt-ish' },
      spec: { type: 'Exempt', limited: { limitResponse: { type: 'Reject' } } },
    });
    assert.deepEqual(entropy.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      "spec.type: Invalid value: \"Exempt\": type must be 'Exempt' if and only if name is 'exempt'",
      'spec.limited: Forbidden: must be nil if the type is not Limited',
    ]);
    const bits = await post('prioritylevelconfigurations', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'bits' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: { queues: 1000000, handSize: 4000 } } } },
    });
    assert.deepEqual(bits.json.details.causes.map((c: any) => `${c.field}: ${c.message}`), [
      'spec.limited.limitResponse.queuing.handSize: Invalid value: 4000: required entropy bits of deckSize 1000000 and handSize 4000 should not be greater than 60',
    ]);
  });
  test('defaults', async () => {
    const r = await post('prioritylevelconfigurations', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'defaulted' },
      spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } },
    });
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.json.spec.limited, { nominalConcurrencyShares: 30, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } }, lendablePercent: 0 });
    const fs = await post('flowschemas', {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'defaulted' },
      spec: { priorityLevelConfiguration: { name: 'defaulted' } },
    });
    assert.equal(fs.status, 201, fs.text);
    assert.equal(fs.json.spec.matchingPrecedence, 1000);
  });
});

test('kubectl get prints upstream columns; protobuf decodes to the JSON answer', async () => {
  const pl = await runKubectl(server.kubeconfigPath, ['get', 'prioritylevelconfigurations']);
  assert.equal(pl.code, 0, pl.stderr);
  assert.match(pl.stdout.split('\n')[0]!, /^NAME\s+TYPE\s+NOMINALCONCURRENCYSHARES\s+QUEUES\s+HANDSIZE\s+QUEUELENGTHLIMIT\s+AGE$/);
  assert.match(pl.stdout, /\ncatch-all\s+Limited\s+5\s+<none>\s+<none>\s+<none>\s+/);
  assert.match(pl.stdout, /\nglobal-default\s+Limited\s+20\s+128\s+6\s+50\s+/);
  const fs = await runKubectl(server.kubeconfigPath, ['get', 'flowschemas']);
  assert.equal(fs.code, 0, fs.stderr);
  assert.match(fs.stdout.split('\n')[0]!, /^NAME\s+PRIORITYLEVEL\s+MATCHINGPRECEDENCE\s+DISTINGUISHERMETHOD\s+AGE\s+MISSINGPL$/);
  assert.match(fs.stdout, /\nexempt\s+exempt\s+1\s+<none>\s+\S+\s+False\n/);
  // Rows in matching order, as upstream's list printer sorts them.
  const order = fs.stdout.trim().split('\n').slice(1).map((line) => line.split(/\s+/)[0]);
  assert.deepEqual(order.slice(0, 4), ['exempt', 'probes', 'system-leader-election', 'endpoint-controller']);

  const pb = await fetch(`${server.url}${GV}/flowschemas/exempt`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
  assert.equal(pb.status, 200);
  const decoded = decodeProtobuf(new Uint8Array(await pb.arrayBuffer()));
  const json = (await get(server.url, `${GV}/flowschemas/exempt`)).json;
  assert.deepEqual(decoded, json);
});

test('responses carry the UIDs of the matched FlowSchema and priority level', async () => {
  const r = await fetch(`${server.url}/api/v1/namespaces/default/configmaps`);
  const fs = (await get(server.url, `${GV}/flowschemas/global-default`)).json;
  const pl = (await get(server.url, `${GV}/prioritylevelconfigurations/global-default`)).json;
  assert.equal(r.headers.get('x-kubernetes-pf-flowschema-uid'), fs.metadata.uid);
  assert.equal(r.headers.get('x-kubernetes-pf-prioritylevel-uid'), pl.metadata.uid);
  const dump = await (await fetch(`${server.url}/debug/api_priority_and_fairness/dump_priority_levels`)).text();
  assert.match(dump.split('\n')[0]!, /^PriorityLevelName, +ActiveQueues, +IsIdle, +IsQuiescing, +WaitingRequests, +ExecutingRequests, +DispatchedRequests, +RejectedRequests, +TimedoutRequests, +CancelledRequests$/);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /apiserver_flowcontrol_dispatched_requests_total\{priority_level="global-default",flow_schema="global-default"\} \d+/);
  assert.match(metrics, /apiserver_flowcontrol_nominal_limit_seats\{priority_level="workload-low"\} \d+/);
});
