// Priority and fairness over HTTP, on a server whose concurrency limit is one
// seat per level (--max-requests-inflight 1, --max-mutating-requests-inflight 0)
// and a priority level of one queue holding one request. Configmap creates in
// the test namespace are held by an admission plugin (a gate the test opens)
// so that they occupy their seat for as long as the test wants:
//   - one create runs, one waits, the next is refused with 429, Retry-After
//     and upstream's text, and is not written;
//   - with flows by namespace, a namespace flooding its level does not keep
//     another namespace's request behind its backlog;
//   - a watch holds its seat only until its stream starts.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { get, request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import type { AdmissionPlugin } from '../../src/registry/admission.js';

const GV = '/apis/flowcontrol.apiserver.k8s.io/v1';

/** Holds configmap creates whose name starts with "held-" until release() (one at a time, in arrival order, or all). */
class Gate implements AdmissionPlugin {
  name = 'TestGate';
  private waiting: Array<{ name: string; open: () => void }> = [];
  entered: string[] = [];
  async validate(a: Parameters<NonNullable<AdmissionPlugin['validate']>>[0]): Promise<void> {
    if (a.resource.resource !== 'configmaps' || a.operation !== 'CREATE' || !a.name.startsWith('held-')) return;
    this.entered.push(a.name);
    await new Promise<void>((open) => this.waiting.push({ name: a.name, open }));
  }
  releaseOne(): string | undefined {
    const w = this.waiting.shift();
    w?.open();
    return w?.name;
  }
  releaseAll(): void {
    while (this.waiting.length > 0) this.releaseOne();
  }
  get held(): number {
    return this.waiting.length;
  }
}

const gate = new Gate();
let server: TestServer;

async function apply(resource: string, body: Record<string, unknown>): Promise<void> {
  const r = await request(server.url, 'POST', `${GV}/${resource}`, { body });
  assert.equal(r.status, 201, r.text);
}

before(async () => {
  server = await startTestServer({ storage: 'memory', admission: [gate], maxRequestsInflight: 1, maxMutatingRequestsInflight: 0, apfQueueWaitLimitMs: 30_000 });
  for (const ns of ['apf-a', 'apf-b', 'apf-c']) {
    assert.equal((await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } } })).status, 201);
  }
  // "tiny": one queue of one request, no lending, no borrowing; for namespace apf-a.
  await apply('prioritylevelconfigurations', {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'tiny' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 1 } } } },
  });
  // "shared": flows by namespace, many queues; for apf-b and apf-c.
  await apply('prioritylevelconfigurations', {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name: 'shared' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, lendablePercent: 0, borrowingLimitPercent: 0, limitResponse: { type: 'Queue', queuing: { queues: 64, handSize: 2, queueLengthLimit: 50 } } } },
  });
  const schema = (name: string, level: string, namespaces: string[], distinguisher?: string): Record<string, unknown> => ({
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: level }, matchingPrecedence: 100,
      ...(distinguisher !== undefined ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules: [{ subjects: [{ kind: 'Group', group: { name: 'system:unauthenticated' } }], resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['configmaps'], namespaces }] }],
    },
  });
  await apply('flowschemas', schema('tiny', 'tiny', ['apf-a']));
  await apply('flowschemas', schema('shared', 'shared', ['apf-b', 'apf-c'], 'ByNamespace'));
  const tinyUid = (await get(server.url, `${GV}/flowschemas/tiny`)).json.metadata.uid;
  await until('requests are classified by the new schemas', async () => {
    const r = await fetch(`${server.url}/api/v1/namespaces/apf-a/configmaps`);
    await r.arrayBuffer();
    return r.headers.get('x-kubernetes-pf-flowschema-uid') === tinyUid;
  });
});
after(async () => {
  gate.releaseAll();
  await server.stop();
});

const createCM = (ns: string, name: string) =>
  request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } } });

test('a full queue: 429 with Retry-After and upstream text; the refused create writes nothing', async () => {
  const first = createCM('apf-a', 'held-1');
  await until('the first create holds the seat', () => gate.held === 1);
  const second = createCM('apf-a', 'held-2');
  await until('the second create waits in the queue', async () => (await (await fetch(`${server.url}/debug/api_priority_and_fairness/dump_priority_levels`)).text()).match(/\ntiny,\s+1,\s+false,\s+false,\s+1,/) !== null);
  const third = await fetch(`${server.url}/api/v1/namespaces/apf-a/configmaps`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'refused' }, data: { a: 'b' } }),
  });
  assert.equal(third.status, 429);
  assert.equal(third.headers.get('retry-after'), '1');
  assert.equal(third.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(await third.text(), 'Too many requests, please try again later.\n');
  assert.ok(third.headers.get('x-kubernetes-pf-flowschema-uid'));
  gate.releaseOne();
  assert.equal((await first).status, 201);
  await until('the second create is admitted', () => gate.held === 1);
  gate.releaseOne();
  assert.equal((await second).status, 201);
  assert.equal((await get(server.url, '/api/v1/namespaces/apf-a/configmaps/refused')).status, 404);
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  assert.match(metrics, /apiserver_flowcontrol_rejected_requests_total\{priority_level="tiny",flow_schema="tiny",reason="queue-full"\} 1/);
  // The queued create's wait and both creates' execution, under upstream's names and labels.
  assert.match(metrics, /apiserver_flowcontrol_request_queue_length_after_enqueue_bucket\{priority_level="tiny",flow_schema="tiny",le="0"\} 0/);
  assert.match(metrics, /apiserver_flowcontrol_request_queue_length_after_enqueue_count\{priority_level="tiny",flow_schema="tiny"\} 1/);
  assert.match(metrics, /apiserver_flowcontrol_request_wait_duration_seconds_count\{priority_level="tiny",flow_schema="tiny",execute="true"\} \d+/);
  assert.match(metrics, /apiserver_flowcontrol_request_execution_seconds_count\{priority_level="tiny",flow_schema="tiny",type="regular"\} \d+/);
  assert.match(metrics, /apiserver_flowcontrol_current_inqueue_requests\{priority_level="tiny",flow_schema="tiny"\} 0/);
  assert.match(metrics, /apiserver_flowcontrol_current_limit_seats\{priority_level="tiny"\} 1/);
  assert.match(metrics, /apiserver_flowcontrol_seat_fair_frac \d/);
  assert.match(metrics, /apiserver_flowcontrol_demand_seats_smoothed\{priority_level="tiny"\} /);
});

test('a namespace flooding its level does not starve another namespace', async () => {
  // apf-b sends 12 creates: one runs (the level has one seat), 11 queue.
  const flood = Array.from({ length: 12 }, (_, i) => createCM('apf-b', `held-b-${i}`));
  await until('the flood holds the seat', () => gate.held === 1);
  await until('the flood is queued', async () => (await (await fetch(`${server.url}/debug/api_priority_and_fairness/dump_priority_levels`)).text()).match(/\nshared,\s+\d+,\s+false,\s+false,\s+11,/) !== null);
  const other = createCM('apf-c', 'held-c');
  await until('the other namespace waits too', async () => (await (await fetch(`${server.url}/debug/api_priority_and_fairness/dump_priority_levels`)).text()).match(/\nshared,\s+\d+,\s+false,\s+false,\s+12,/) !== null);
  // Release the running requests one by one: apf-c's must run within the next two.
  for (let i = 0; i < 3 && !gate.entered.includes('held-c'); i++) {
    gate.releaseOne();
    await until('the next request is admitted', () => gate.held === 1);
  }
  const position = gate.entered.filter((n) => n.startsWith('held-b-') || n === 'held-c').indexOf('held-c');
  assert.ok(position >= 0 && position <= 2, `apf-c ran after ${position} of apf-b's requests (order ${gate.entered.join(',')})`);
  gate.releaseAll();
  while (gate.entered.length < 2 + 12 + 1) {
    await new Promise((r) => setTimeout(r, 10));
    gate.releaseAll();
  }
  const results = await Promise.all([...flood, other]);
  assert.ok(results.every((r) => r.status === 201), results.map((r) => r.status).join(','));
});

test('a watch holds its seat only while it starts', async () => {
  // tiny has one seat: an open watch in apf-a must not block the next request.
  const controller = new AbortController();
  const watch = await fetch(`${server.url}/api/v1/namespaces/apf-a/configmaps?watch=1`, { signal: controller.signal });
  assert.equal(watch.status, 200);
  const list = await get(server.url, '/api/v1/namespaces/apf-a/configmaps');
  assert.equal(list.status, 200);
  controller.abort();
});
