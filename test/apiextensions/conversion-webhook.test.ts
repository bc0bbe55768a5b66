// CRD webhook conversion end to end: a real apiary, a real HTTPS conversion
// webhook written here (node:https, certificate from the project's PKI via
// test/helpers/webhook-server.ts), a CRD whose v1 (storage) holds
// spec.fullName and whose v2 splits it into spec.firstName/lastName. Covers:
// validation of spec.conversion as upstream 1.32 words it, create at v2 →
// stored at v1 → read at both, list (field selectors, pages) and watch at the
// non-storage version, /status, objects already at the desired version not
// sent, metadata the webhook may not change, the failure paths with
// kube-apiserver's messages, and real kubectl reading both versions.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { WatchStream, assertStatus, get, request } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { startWebhookServer, type Review, type WebhookServer } from '../helpers/webhook-server.js';
import { convertName } from '../helpers/name-conversion.js';
import { decodeStoredValue } from '../../src/storage/managed-fields-codec.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NS = 'conv';
const V1 = `/apis/conv.example.com/v1/namespaces/${NS}/gadgets`;
const V2 = `/apis/conv.example.com/v2/namespaces/${NS}/gadgets`;

let server: TestServer;
let hook: WebhookServer;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- objects are checked field by field

/** How the test webhook answers; tests switch it and put it back. */
let fault: ((review: Review, converted: Json[]) => Json | undefined) | undefined;

/** The shared name conversion; metadata other than labels and annotations changed too (the server puts it back). */
function convertObject(obj: Json, desired: string): Json {
  const out = convertName(obj, desired);
  // Metadata other than labels and annotations is put back by the server whatever the webhook says.
  out.metadata = { ...out.metadata, generation: 99, resourceVersion: '1' };
  return out;
}

function answer(review: Review, res: ServerResponse): 'handled' {
  const converted = (review.request.objects as Json[]).map((o) => convertObject(o, review.request.desiredAPIVersion));
  const body = fault?.(review, converted) ?? {
    apiVersion: review.apiVersion,
    kind: 'ConversionReview',
    response: { uid: review.request.uid, convertedObjects: converted, result: { status: 'Success' } },
  };
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
  return 'handled';
}

function gadgetCrd(clientConfig: Json, reviewVersions = ['v1']): Json {
  const status = { type: 'object', properties: { phase: { type: 'string' }, replicas: { type: 'integer' } } };
  const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.conv.example.com' },
    spec: {
      group: 'conv.example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      conversion: { strategy: 'Webhook', webhook: { clientConfig, conversionReviewVersions: reviewVersions } },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          subresources,
          selectableFields: [{ jsonPath: '.spec.fullName' }],
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { fullName: { type: 'string' }, replicas: { type: 'integer' } } }, status } } },
        },
        {
          name: 'v2',
          served: true,
          storage: false,
          subresources,
          selectableFields: [{ jsonPath: '.spec.lastName' }],
          additionalPrinterColumns: [{ name: 'Last', type: 'string', jsonPath: '.spec.lastName' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: { spec: { type: 'object', properties: { firstName: { type: 'string' }, lastName: { type: 'string' }, replicas: { type: 'integer' } } }, status },
            },
          },
        },
      ],
    },
  };
}

const received = (): Review[] => hook.received.get('/convert') ?? [];

function gadget(name: string, firstName: string, lastName: string, labels: Record<string, string> = {}): Json {
  return { apiVersion: 'conv.example.com/v2', kind: 'Gadget', metadata: { name, labels }, spec: { firstName, lastName } };
}

before(async () => {
  hook = await startWebhookServer();
  hook.on('/convert', answer);
  server = await startTestServer();
  assert.equal((await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } } })).status, 201);
  const created = await request(server.url, 'POST', CRDS, { body: gadgetCrd({ url: hook.url('/convert'), caBundle: hook.caBundle }) });
  assert.equal(created.status, 201, created.text);
  await until('v2 served', async () => (await get(server.url, V2)).status === 200);
});

after(async () => {
  await server?.stop();
  await hook?.stop();
});

describe('validation of spec.conversion (upstream 1.32 messages)', () => {
  const cases: [Json, string][] = [
    [{ strategy: 'Webhook' }, '[spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, spec.conversion.conversionReviewVersions: Required value]'],
    [
      { strategy: 'Webhook', webhook: { clientConfig: {}, conversionReviewVersions: ['v1'] } },
      'spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required',
    ],
    [
      { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://u:p@example.com/x?q=1#f' }, conversionReviewVersions: ['v1'] } },
      `[spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path], spec.conversion.webhookClientConfig.url: Invalid value: "u:p": user information is not permitted in the URL, spec.conversion.webhookClientConfig.url: Invalid value: "f": fragments are not permitted in the URL, spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL]`,
    ],
    [
      { strategy: 'Webhook', webhook: { clientConfig: { service: { name: '', namespace: '', path: 'x//', port: 70000 } }, conversionReviewVersions: ['v1'] } },
      `[spec.conversion.webhookClientConfig.service.name: Required value: service name is required, spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required, spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive, spec.conversion.webhookClientConfig.service.path: Invalid value: "x//": must start with a '/', spec.conversion.webhookClientConfig.service.path: Invalid value: "x//": segment[0] may not be empty, spec.conversion.webhookClientConfig.service.path: Invalid value: "x//": segment[1] may not be empty]`,
    ],
    [
      { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://example.com' }, conversionReviewVersions: ['v2', 'v2', 'V3'] } },
      `[spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version, spec.conversion.conversionReviewVersions[2]: Invalid value: "V3": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), spec.conversion.conversionReviewVersions: Invalid value: []string{"v2", "v2", "V3"}: must include at least one of v1, v1beta1]`,
    ],
    [
      { strategy: 'None', webhook: { clientConfig: { url: 'https://example.com' }, conversionReviewVersions: ['v1'] } },
      '[spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook, spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook]',
    ],
  ];
  for (const [conversion, detail] of cases) {
    test(detail.slice(0, 90), async () => {
      const body = gadgetCrd({});
      body.metadata.name = 'others.conv.example.com';
      body.spec.names = { plural: 'others', singular: 'other', kind: 'Other' };
      body.spec.conversion = conversion;
      const reply = await request(server.url, 'POST', CRDS, { body });
      assertStatus(reply, 422, 'Invalid', `CustomResourceDefinition.apiextensions.k8s.io "others.conv.example.com" is invalid: ${detail}`);
    });
  }

  test('a service reference is defaulted to port 443', async () => {
    const body = gadgetCrd({ service: { namespace: 'x', name: 'y', path: '/convert' } });
    body.metadata.name = 'others.conv.example.com';
    body.spec.names = { plural: 'others', singular: 'other', kind: 'Other' };
    const reply = await request(server.url, 'POST', `${CRDS}?dryRun=All`, { body });
    assert.equal(reply.status, 201, reply.text);
    assert.deepEqual(reply.json.spec.conversion.webhook.clientConfig.service, { namespace: 'x', name: 'y', path: '/convert', port: 443 });
  });
});

describe('conversion through the webhook', () => {
  test('create at v2: stored at v1, answered at v2, read at both; metadata other than labels and annotations kept', async () => {
    const before = received().length;
    const created = await request(server.url, 'POST', V2, { body: gadget('ada', 'Ada', 'King Lovelace', { team: 'math' }) });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.json.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(created.json.spec, { firstName: 'Ada', lastName: 'King Lovelace' });
    assert.equal(created.json.metadata.generation, 1);
    assert.notEqual(created.json.metadata.resourceVersion, '1');
    // v2 → v1 to store, v1 → v2 to answer: one object per review, the request as upstream builds it.
    const reviews = received().slice(before);
    assert.equal(reviews.length, 2);
    assert.equal(reviews[0].apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(reviews[0].kind, 'ConversionReview');
    assert.equal(reviews[0].request.desiredAPIVersion, 'conv.example.com/v1');
    assert.equal(reviews[0].request.objects.length, 1);
    assert.equal(reviews[0].request.objects[0].apiVersion, 'conv.example.com/v2');
    assert.match(reviews[0].request.uid, /^[0-9a-f-]{36}$/);
    assert.equal(reviews[0].query, '?timeout=30s');
    assert.equal(reviews[1].request.desiredAPIVersion, 'conv.example.com/v2');

    const raw = await server.registry.options.backend.get(`/registry/conv.example.com/gadgets/${NS}/ada`);
    const stored = decodeStoredValue(raw.kv!.value) as Json;
    assert.equal(stored.apiVersion, 'conv.example.com/v1');
    assert.deepEqual(stored.spec, { fullName: 'Ada King Lovelace' });
    assert.equal(stored.metadata.generation, 1);

    const asV1 = await get(server.url, `${V1}/ada`);
    assert.equal(asV1.status, 200, asV1.text);
    assert.equal(asV1.json.apiVersion, 'conv.example.com/v1');
    assert.deepEqual(asV1.json.spec, { fullName: 'Ada King Lovelace' });
    const asV2 = await get(server.url, `${V2}/ada`);
    assert.deepEqual(asV2.json.spec, { firstName: 'Ada', lastName: 'King Lovelace' });
    assert.deepEqual(asV2.json.metadata.labels, { team: 'math' });
    assert.equal(asV2.json.metadata.uid, created.json.metadata.uid);
  });

  test('objects already at the desired version are not sent', async () => {
    const before = received().length;
    assert.equal((await get(server.url, `${V1}/ada`)).status, 200);
    assert.equal((await get(server.url, V1)).status, 200);
    const patched = await request(server.url, 'PATCH', `${V1}/ada`, {
      body: { metadata: { annotations: { note: 'v1 write' } } },
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(received().length, before);
  });

  test('update at v2 (generation moves); labels the webhook sets are kept', async () => {
    const current = (await get(server.url, `${V2}/ada`)).json;
    current.spec.lastName = 'Lovelace';
    const updated = await request(server.url, 'PUT', `${V2}/ada`, { body: current });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.spec, { firstName: 'Ada', lastName: 'Lovelace' });
    assert.equal(updated.json.metadata.generation, 2);
    fault = (review, converted) => {
      for (const o of converted) o.metadata.labels = { ...o.metadata.labels, converted: 'yes' };
      return { apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, convertedObjects: converted, result: { status: 'Success' } } };
    };
    try {
      const labelled = await get(server.url, `${V2}/ada`);
      assert.deepEqual(labelled.json.metadata.labels, { team: 'math', converted: 'yes' });
    } finally {
      fault = undefined;
    }
  });

  test('list at v2: converted items, field selector on a v2-only field, label selector, pages', async () => {
    for (const [name, first, last] of [['bob', 'Bob', 'Lovelace'], ['cy', 'Cy', 'Young'], ['dee', 'Dee', 'Lovelace']] as const) {
      const r = await request(server.url, 'POST', V2, { body: gadget(name, first, last, { team: name === 'cy' ? 'art' : 'math' }) });
      assert.equal(r.status, 201, r.text);
    }
    const list = await get(server.url, V2);
    assert.equal(list.json.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(list.json.items.map((i: Json) => [i.apiVersion, i.metadata.name, i.spec.lastName]), [
      ['conv.example.com/v2', 'ada', 'Lovelace'],
      ['conv.example.com/v2', 'bob', 'Lovelace'],
      ['conv.example.com/v2', 'cy', 'Young'],
      ['conv.example.com/v2', 'dee', 'Lovelace'],
    ]);
    const selected = await get(server.url, `${V2}?fieldSelector=spec.lastName%3DLovelace`);
    assert.equal(selected.status, 200, selected.text);
    assert.deepEqual(selected.json.items.map((i: Json) => i.metadata.name), ['ada', 'bob', 'dee']);
    const byV1Field = await get(server.url, `${V1}?fieldSelector=spec.fullName%3DCy%20Young`);
    assert.deepEqual(byV1Field.json.items.map((i: Json) => i.metadata.name), ['cy']);
    const labelled = await get(server.url, `${V2}?labelSelector=team%3Dmath`);
    assert.deepEqual(labelled.json.items.map((i: Json) => i.metadata.name), ['ada', 'bob', 'dee']);
    // Pages of a filtered list: limit counts matching objects, continue resumes after the last one looked at.
    const page1 = await get(server.url, `${V2}?fieldSelector=spec.lastName%3DLovelace&limit=2`);
    assert.deepEqual(page1.json.items.map((i: Json) => i.metadata.name), ['ada', 'bob']);
    assert.ok(page1.json.metadata.continue);
    const page2 = await get(server.url, `${V2}?fieldSelector=spec.lastName%3DLovelace&limit=2&continue=${page1.json.metadata.continue}`);
    assert.deepEqual(page2.json.items.map((i: Json) => i.metadata.name), ['dee']);
    assert.equal(page2.json.metadata.continue, '');
    const plain1 = await get(server.url, `${V2}?limit=3`);
    assert.deepEqual(plain1.json.items.map((i: Json) => i.spec.lastName), ['Lovelace', 'Lovelace', 'Young']);
    assert.equal(plain1.json.metadata.remainingItemCount, 1);
  });

  test('watch at v2: initial and later events converted, in order', async () => {
    const stream = await WatchStream.open(server.url, `${V2}?watch=true&labelSelector=team%3Dart`);
    try {
      const first = await stream.next();
      assert.equal(first?.type, 'ADDED');
      assert.equal(first?.object.apiVersion, 'conv.example.com/v2');
      assert.deepEqual(first?.object.spec, { firstName: 'Cy', lastName: 'Young' });
      for (const last of ['Young-1', 'Young-2', 'Young-3']) {
        const r = await request(server.url, 'PATCH', `${V1}/cy`, { body: { spec: { fullName: `Cy ${last}` } }, headers: { 'content-type': 'application/merge-patch+json' } });
        assert.equal(r.status, 200, r.text);
      }
      for (const last of ['Young-1', 'Young-2', 'Young-3']) {
        const e = await stream.next();
        assert.equal(e?.type, 'MODIFIED');
        assert.equal(e?.object.apiVersion, 'conv.example.com/v2');
        assert.deepEqual(e?.object.spec, { firstName: 'Cy', lastName: last });
      }
      assert.equal((await request(server.url, 'DELETE', `${V1}/cy`)).status, 200);
      const deleted = await stream.next();
      assert.equal(deleted?.type, 'DELETED');
      assert.equal(deleted?.object.spec.lastName, 'Young-3');
    } finally {
      stream.close();
    }
  });

  test('/status at v2: only status changes, converted both ways', async () => {
    const current = (await get(server.url, `${V2}/bob`)).json;
    current.status = { phase: 'Ready' };
    current.spec.lastName = 'ignored';
    const updated = await request(server.url, 'PUT', `${V2}/bob/status`, { body: current });
    assert.equal(updated.status, 200, updated.text);
    assert.deepEqual(updated.json.status, { phase: 'Ready' });
    assert.deepEqual(updated.json.spec, { firstName: 'Bob', lastName: 'Lovelace' });
    const asV1 = await get(server.url, `${V1}/bob/status`);
    assert.deepEqual([asV1.json.apiVersion, asV1.json.spec, asV1.json.status], ['conv.example.com/v1', { fullName: 'Bob Lovelace' }, { phase: 'Ready' }]);
  });

  test('/scale at v2: read and written through the converted object', async () => {
    const scale = await get(server.url, `${V2}/dee/scale`);
    assert.equal(scale.status, 200, scale.text);
    assert.deepEqual([scale.json.apiVersion, scale.json.kind, scale.json.spec, scale.json.status], ['autoscaling/v1', 'Scale', {}, { replicas: 0 }]);
    scale.json.spec = { replicas: 3 };
    const scaled = await request(server.url, 'PUT', `${V2}/dee/scale`, { body: scale.json });
    assert.equal(scaled.status, 200, scaled.text);
    assert.equal(scaled.json.spec.replicas, 3);
    assert.deepEqual((await get(server.url, `${V1}/dee`)).json.spec, { fullName: 'Dee Lovelace', replicas: 3 });
    assert.deepEqual((await get(server.url, `${V2}/dee`)).json.spec, { firstName: 'Dee', lastName: 'Lovelace', replicas: 3 });
  });

  test('server-side apply at v2 records its manager under v2', async () => {
    const applied = await request(server.url, 'PATCH', `${V2}/eve?fieldManager=tester`, {
      body: { apiVersion: 'conv.example.com/v2', kind: 'Gadget', metadata: { name: 'eve' }, spec: { firstName: 'Eve', lastName: 'Adams' } },
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(applied.status, 201, applied.text);
    assert.deepEqual(applied.json.spec, { firstName: 'Eve', lastName: 'Adams' });
    const entry = applied.json.metadata.managedFields.find((m: Json) => m.manager === 'tester');
    assert.equal(entry.operation, 'Apply');
    assert.equal(entry.apiVersion, 'conv.example.com/v2');
    const again = await request(server.url, 'PATCH', `${V2}/eve?fieldManager=tester`, {
      body: { apiVersion: 'conv.example.com/v2', kind: 'Gadget', metadata: { name: 'eve' }, spec: { firstName: 'Eve', lastName: 'Baker' } },
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((await get(server.url, `${V1}/eve`)).json.spec, { fullName: 'Eve Baker' });
  });
});

describe('a failing webhook fails reads and writes with kube-apiserver 1.32 messages', () => {
  const withFault = async (f: typeof fault, check: () => Promise<void>): Promise<void> => {
    fault = f;
    try {
      await check();
    } finally {
      fault = undefined;
    }
  };

  test('Failure result: its message; without one, the status', async () => {
    await withFault(
      (review) => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'cannot convert this' } } }),
      async () => {
        assertStatus(await get(server.url, `${V2}/ada`), 500, undefined, 'conversion webhook for conv.example.com/v1, Kind=Gadget failed: cannot convert this');
        assertStatus(await get(server.url, V2), 500, undefined, 'conversion webhook for conv.example.com/v1, Kind=Gadget failed: cannot convert this');
        assertStatus(
          await request(server.url, 'POST', V2, { body: gadget('nope', 'No', 'Pe') }),
          500,
          undefined,
          'conversion webhook for conv.example.com/v2, Kind=Gadget failed: cannot convert this',
        );
        assert.equal((await get(server.url, `${V1}/nope`)).status, 404);
        assertStatus(
          await request(server.url, 'PATCH', `${V2}/ada/status`, { body: { status: { phase: 'x' } }, headers: { 'content-type': 'application/merge-patch+json' } }),
          500,
          undefined,
          'conversion webhook for conv.example.com/v1, Kind=Gadget failed: cannot convert this',
        );
      },
    );
    await withFault(
      (review) => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failed' } } }),
      async () => {
        assertStatus(await get(server.url, `${V2}/ada`), 500, undefined, "conversion webhook for conv.example.com/v1, Kind=Gadget failed: response.result.status was 'Failed', not 'Success'");
      },
    );
  });

  test('wrong uid, wrong review kind, missing response', async () => {
    await withFault(
      (review, converted) => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: 'not-the-uid', convertedObjects: converted, result: { status: 'Success' } } }),
      async () => {
        const r = await get(server.url, `${V2}/ada`);
        assert.equal(r.status, 500);
        assert.match(r.json.message, /^conversion webhook for conv\.example\.com\/v1, Kind=Gadget failed: expected response\.uid="[0-9a-f-]{36}", got "not-the-uid"$/);
      },
    );
    await withFault(
      (review, converted) => ({ apiVersion: 'apiextensions.k8s.io/v1beta1', kind: 'ConversionReview', response: { uid: review.request.uid, convertedObjects: converted, result: { status: 'Success' } } }),
      async () => {
        assertStatus(
          await get(server.url, `${V2}/ada`),
          500,
          undefined,
          'conversion webhook for conv.example.com/v1, Kind=Gadget failed: expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got apiextensions.k8s.io/v1beta1, Kind=ConversionReview',
        );
      },
    );
    await withFault(
      (review) => ({ apiVersion: review.apiVersion, kind: 'ConversionReview' }),
      async () => {
        assertStatus(await get(server.url, `${V2}/ada`), 500, undefined, 'conversion webhook for conv.example.com/v1, Kind=Gadget failed: no response provided');
      },
    );
  });

  test('converted objects: count, apiVersion, name, metadata types', async () => {
    const ok = (review: Review, objects: Json[]): Json => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, convertedObjects: objects, result: { status: 'Success' } } });
    await withFault((review, converted) => ok(review, [...converted, ...converted]), async () => {
      assertStatus(await get(server.url, `${V2}/ada`), 500, undefined, 'conversion webhook for conv.example.com/v1, Kind=Gadget returned 2 objects, expected 1');
    });
    await withFault((review, converted) => ok(review, converted.map((o) => ({ ...o, apiVersion: 'conv.example.com/v3' }))), async () => {
      assertStatus(
        await get(server.url, `${V2}/ada`),
        500,
        undefined,
        'conversion webhook for conv.example.com/v1, Kind=Gadget returned invalid object at index 0: invalid groupVersion (expected conv.example.com/v2, received conv.example.com/v3)',
      );
    });
    await withFault((review, converted) => ok(review, converted.map((o) => ({ ...o, metadata: { ...o.metadata, name: 'renamed' } }))), async () => {
      assertStatus(await get(server.url, `${V2}/ada`), 500, undefined, 'conversion webhook for conv.example.com/v1, Kind=Gadget returned invalid object: must have the same name: ada != renamed');
    });
    await withFault((review, converted) => ok(review, converted.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { n: 1 } } }))), async () => {
      assertStatus(
        await get(server.url, `${V2}/ada`),
        500,
        undefined,
        'conversion webhook for conv.example.com/v1, Kind=Gadget returned invalid metadata: metadata.labels[n] must be a string, but is int64 in converted object',
      );
    });
    await withFault((review, converted) => ok(review, converted.map((o) => ({ ...o, metadata: { ...o.metadata, labels: { 'bad key!': 'x' } } }))), async () => {
      const r = await get(server.url, `${V2}/ada`);
      assert.equal(r.status, 500);
      assert.match(r.json.message, /^conversion webhook for conv\.example\.com\/v1, Kind=Gadget returned invalid metadata: metadata\.labels: Invalid value: "bad key!": name part must consist of/);
    });
  });

  test('a watch ends with the conversion error', async () => {
    const stream = await WatchStream.open(server.url, `${V2}?watch=true&labelSelector=team%3Dnobody`);
    try {
      fault = (review) => ({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'down for maintenance' } } });
      const r = await request(server.url, 'POST', V1, { body: { apiVersion: 'conv.example.com/v1', kind: 'Gadget', metadata: { name: 'watched', labels: { team: 'nobody' } }, spec: { fullName: 'W X' } } });
      assert.equal(r.status, 201, r.text);
      const e = await stream.next();
      assert.equal(e?.type, 'ERROR');
      assert.equal(e?.object.kind, 'Status');
      assert.equal(e?.object.code, 500);
      assert.equal(e?.object.message, 'conversion webhook for conv.example.com/v1, Kind=Gadget failed: down for maintenance');
      assert.equal(await stream.next(), undefined);
    } finally {
      fault = undefined;
      stream.close();
    }
  });

  test('webhook down: the dial error as client-go words it', async () => {
    const down = await startWebhookServer();
    const port = down.port;
    await down.stop();
    const crd = (await get(server.url, `${CRDS}/gadgets.conv.example.com`)).json;
    crd.spec.conversion.webhook.clientConfig.url = `https://127.0.0.1:${port}/convert`;
    assert.equal((await request(server.url, 'PUT', `${CRDS}/gadgets.conv.example.com`, { body: crd })).status, 200);
    try {
      const expected = `conversion webhook for conv.example.com/v1, Kind=Gadget failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
      await until('the new client config in use', async () => (await get(server.url, `${V2}/ada`)).json?.message === expected);
      assertStatus(await get(server.url, `${V2}/ada`), 500, undefined, expected);
      // Reads at the storage version need no conversion and keep working.
      assert.equal((await get(server.url, `${V1}/ada`)).status, 200);
    } finally {
      const back = (await get(server.url, `${CRDS}/gadgets.conv.example.com`)).json;
      back.spec.conversion.webhook.clientConfig.url = hook.url('/convert');
      assert.equal((await request(server.url, 'PUT', `${CRDS}/gadgets.conv.example.com`, { body: back })).status, 200);
      await until('the webhook back', async () => (await get(server.url, `${V2}/ada`)).status === 200);
    }
  });
});

describe('kubectl 1.32', () => {
  test('kubectl get <plural>.v2.<group> and .v1: each version as converted, printer columns of v2', async () => {
    const kubectl = (args: string[]) => runKubectl(server.kubeconfigPath, args);
    const v2 = await kubectl(['get', 'gadgets.v2.conv.example.com', '-n', NS, 'ada', '-o', 'jsonpath={.apiVersion} {.spec.firstName} {.spec.lastName}']);
    assert.equal(v2.code, 0, v2.stderr);
    assert.equal(v2.stdout, 'conv.example.com/v2 Ada Lovelace');
    const v1 = await kubectl(['get', 'gadgets.v1.conv.example.com', '-n', NS, 'ada', '-o', 'jsonpath={.apiVersion} {.spec.fullName}']);
    assert.equal(v1.code, 0, v1.stderr);
    assert.equal(v1.stdout, 'conv.example.com/v1 Ada Lovelace');
    const table = await kubectl(['get', 'gadgets.v2.conv.example.com', '-n', NS, '--field-selector', 'spec.lastName=Lovelace']);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /^NAME\s+LAST\nada\s+Lovelace\nbob\s+Lovelace\ndee\s+Lovelace\n$/);
    const applied = await runKubectl(server.kubeconfigPath, ['apply', '-n', NS, '-f', '-'], {
      stdin: 'apiVersion: conv.example.com/v2\nkind: Gadget\nmetadata:\n  name: fay\nspec:\n  firstName: Fay\n  lastName: Wray\n',
    });
    assert.equal(applied.code, 0, applied.stderr);
    assert.equal(applied.stdout.trim(), 'gadget.conv.example.com/fay created');
    const asV1 = await kubectl(['get', 'gadgets.v1.conv.example.com', '-n', NS, 'fay', '-o', 'jsonpath={.spec.fullName}']);
    assert.equal(asV1.stdout, 'Fay Wray');
  });
});
