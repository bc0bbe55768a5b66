// Real kubectl against the one event store: an event written through core/v1
// and one written through events.k8s.io/v1 both show in `kubectl get events`
// and in `kubectl get events.v1.events.k8s.io`, and field selectors use each
// API's field names.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kubectl, expectTable, kubectlAgainstNewServer } from './helpers.js';
import { request } from '../helpers/http.js';

let k: Kubectl;

before(async () => {
  k = await kubectlAgainstNewServer();
  const now = new Date().toISOString();
  const core = await request(k.server.url, 'POST', '/api/v1/namespaces/default/events', {
    body: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'pulled' },
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1' },
      reason: 'Pulled',
      message: 'image pulled',
      source: { component: 'kubelet' },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: 'Normal',
    },
  });
  assert.equal(core.status, 201, core.text);
  const v1 = await request(k.server.url, 'POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
    body: {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'scaled' },
      eventTime: now.replace('Z', '000Z'),
      reportingController: 'example.com/ctl',
      reportingInstance: 'ctl-1',
      action: 'Scale',
      reason: 'Scaled',
      regarding: { kind: 'Deployment', namespace: 'default', name: 'api' },
      note: 'scaled to 3',
      type: 'Warning',
    },
  });
  assert.equal(v1.status, 201, v1.text);
});

after(async () => {
  await k?.server.stop();
});

for (const resource of ['events', 'events.v1.events.k8s.io']) {
  test(`kubectl get ${resource} shows the events of both APIs`, async () => {
    const rows = expectTable(await k.ok(['get', resource, '-n', 'default', '--sort-by=.metadata.name']), ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE']);
    assert.deepEqual(
      rows.map((r) => r.slice(1)),
      [
        ['Normal', 'Pulled', 'pod/web-1', 'image pulled'],
        ['Warning', 'Scaled', 'deployment/api', 'scaled to 3'],
      ],
    );
  });
}

test('kubectl get -o json reads each event in the asked version; field selectors use its names', async () => {
  const v1 = JSON.parse(await k.ok(['get', 'events.v1.events.k8s.io', 'pulled', '-n', 'default', '-o', 'json']));
  assert.equal(v1.apiVersion, 'events.k8s.io/v1');
  assert.equal(v1.note, 'image pulled');
  assert.deepEqual(v1.regarding, { kind: 'Pod', namespace: 'default', name: 'web-1' });
  const core = JSON.parse(await k.ok(['get', 'events', 'scaled', '-n', 'default', '-o', 'json']));
  assert.equal(core.apiVersion, 'v1');
  assert.equal(core.message, 'scaled to 3');
  assert.equal(core.reportingComponent, 'example.com/ctl');

  const byRegarding = await k.ok(['get', 'events.v1.events.k8s.io', '-n', 'default', '--field-selector', 'regarding.kind=Deployment', '-o', 'name']);
  assert.equal(byRegarding.trim(), 'event.events.k8s.io/scaled');
  const byInvolved = await k.ok(['get', 'events', '-n', 'default', '--field-selector', 'involvedObject.kind=Deployment', '-o', 'name']);
  assert.equal(byInvolved.trim(), 'event/scaled');
  const wrongName = await k.fails(['get', 'events.v1.events.k8s.io', '-n', 'default', '--field-selector', 'involvedObject.kind=Pod']);
  assert.match(wrongName, /field label not supported: involvedObject\.kind/);
});
