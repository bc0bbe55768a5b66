// Admission webhooks end to end: a real apiary, a real HTTPS webhook written
// here (node:https, certificates from src/auth/pki), kubectl where a user would
// see the answer. Covers: configuration validation and defaults, mutation by
// JSONPatch, denial, failurePolicy Fail/Ignore on a dead webhook, timeouts
// (and that a hanging webhook holds up nothing else), namespaceSelector,
// objectSelector, matchConditions, reinvocation, dry-run, faults (500, wrong
// uid, undecodable and unappliable patches), warnings, service references,
// and configuration changes taking effect from the watch.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../helpers/free-port.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { request, configMap } from '../helpers/http.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { endpointsServiceResolver } from '../../src/admission/webhook/service-resolver.js';
import { addLabel, allow, configMapHook, startWebhookServer, webhookConfiguration, type WebhookServer } from '../helpers/webhook-server.js';

const MWC = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const VWC = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

let server: TestServer;
let hook: WebhookServer;
let seq = 0;

before(async () => {
  hook = await startWebhookServer(['hooks.wh-svc.svc']);
  server = await startTestServer({
    // Service references resolve to the test webhook when they name wh-svc/hooks (its certificate covers hooks.wh-svc.svc).
    webhookServiceResolver: async (namespace, name, port) => {
      if (namespace === 'wh-svc' && name === 'hooks') return { host: '127.0.0.1', port: hook.port };
      throw new Error(`service "${name}" not found in ${namespace} (port ${port})`);
    },
  });
});

after(async () => {
  await server?.stop();
  await hook?.stop();
});

async function namespace(labels: Record<string, string> = {}): Promise<string> {
  const name = `wh-${++seq}`;
  const r = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } } });
  assert.equal(r.status, 201, r.text);
  return name;
}

/** Creates a configuration and waits until the webhook sees a probe object (the watch delivered it). */
async function install(path: string, body: Record<string, unknown>): Promise<() => Promise<void>> {
  const r = await request(server.url, 'POST', path, { body });
  assert.equal(r.status, 201, r.text);
  const name = (body['metadata'] as { name: string }).name;
  return async () => {
    const d = await request(server.url, 'DELETE', `${path}/${name}`);
    assert.equal(d.status, 200, d.text);
  };
}

/** Polls create of configmaps until `check` accepts a reply (configuration changes arrive through a watch). */
async function createUntil(ns: string, check: (status: number, json: any) => boolean): Promise<{ status: number; json: any }> {
  let last: { status: number; json: any } = { status: 0, json: undefined };
  await until('the webhook configuration to take effect', async () => {
    const r = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(`probe-${++seq}`) });
    last = { status: r.status, json: r.json };
    return check(r.status, r.json);
  }, 3000);
  return last;
}

describe('webhook configurations', () => {
  test('defaults as upstream and a Table with WEBHOOKS', async () => {
    const body = webhookConfiguration('MutatingWebhookConfiguration', 'defaults', [
      { name: 'a.example.com', clientConfig: { url: 'https://127.0.0.1:1/x' }, sideEffects: 'None', admissionReviewVersions: ['v1'],
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
      { name: 'b.example.com', clientConfig: { service: { namespace: 'default', name: 'svc' } }, sideEffects: 'NoneOnDryRun', admissionReviewVersions: ['v1'] },
    ]);
    const r = await request(server.url, 'POST', MWC, { body });
    assert.equal(r.status, 201, r.text);
    const w = r.json.webhooks[0];
    assert.equal(w.failurePolicy, 'Fail');
    assert.equal(w.matchPolicy, 'Equivalent');
    assert.deepEqual(w.namespaceSelector, {});
    assert.deepEqual(w.objectSelector, {});
    assert.equal(w.timeoutSeconds, 10);
    assert.equal(w.reinvocationPolicy, 'Never');
    assert.equal(w.rules[0].scope, '*');
    assert.equal(r.json.webhooks[1].clientConfig.service.port, 443);
    assert.equal(r.json.metadata.generation, 1);
    const out = await runKubectl(server.kubeconfigPath, ['get', 'mutatingwebhookconfigurations', 'defaults']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^NAME\s+WEBHOOKS\s+AGE\ndefaults\s+2\s+/);
    await request(server.url, 'DELETE', `${MWC}/defaults`);
  });

  test('validation: upstream field errors, nothing stored', async () => {
    const body = webhookConfiguration('ValidatingWebhookConfiguration', 'invalid', [
      { name: 'short', clientConfig: { url: 'http://example.com/x?q=1' }, timeoutSeconds: 31,
        rules: [{ operations: ['CREATE', '*'], apiGroups: [''], apiVersions: ['v1'], resources: ['*', 'pods'] }],
        matchConditions: [{ name: 'c', expression: 'object.metadata.name' }] },
    ]);
    const r = await request(server.url, 'POST', VWC, { body });
    assert.equal(r.status, 422, r.text);
    const msg: string = r.json.message;
    for (const part of [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      `webhooks[0].rules[0].operations: Invalid value: []admissionregistration.OperationType{"CREATE", "*"}: if '*' is present, must not specify other operations`,
      `webhooks[0].rules[0].resources: Invalid value: []string{"*", "pods"}: if '*' is present, must not specify other resources without subresources`,
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      `webhooks[0].clientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
      'webhooks[0].matchConditions[0].expression: Invalid value: "object.metadata.name": must evaluate to bool but got dyn',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
    ]) {
      assert.ok(msg.includes(part), `missing ${part} in ${msg}`);
    }
    const g = await request(server.url, 'GET', `${VWC}/invalid`);
    assert.equal(g.status, 404);
  });
});

describe('mutating webhooks', () => {
  test('a JSONPatch adds a label; the AdmissionReview carries the request', async () => {
    const ns = await namespace();
    hook.on('/mutate-label', (review) => addLabel(review, 'mutated', 'yes'));
    const remove = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'label', [
      configMapHook('label.example.com', hook.url('/mutate-label'), hook.caBundle, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }),
    ]));
    try {
      const created = await createUntil(ns, (s, j) => s === 201 && j.metadata.labels?.mutated === 'yes');
      const name = created.json.metadata.name;
      const stored = await request(server.url, 'GET', `/api/v1/namespaces/${ns}/configmaps/${name}`);
      assert.equal(stored.json.metadata.labels.mutated, 'yes');
      const review = hook.received.get('/mutate-label')!.at(-1);
      assert.equal(review.apiVersion, 'admission.k8s.io/v1');
      assert.equal(review.kind, 'AdmissionReview');
      assert.equal(review.query, '?timeout=10s');
      const req = review.request;
      assert.match(req.uid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(req.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
      assert.deepEqual(req.resource, { group: '', version: 'v1', resource: 'configmaps' });
      assert.deepEqual(req.requestKind, req.kind);
      assert.deepEqual(req.requestResource, req.resource);
      assert.equal(req.operation, 'CREATE');
      assert.equal(req.namespace, ns);
      assert.equal(req.name, name);
      assert.equal(req.object.kind, 'ConfigMap');
      assert.equal(req.object.apiVersion, 'v1');
      // Admitted before the store fills system fields, as upstream.
      assert.equal(req.object.metadata.uid, undefined);
      assert.equal(req.object.metadata.creationTimestamp, null);
      assert.equal(req.object.metadata.managedFields, undefined);
      assert.match(created.json.metadata.uid, /^[0-9a-f-]{36}$/);
      assert.ok(Array.isArray(created.json.metadata.managedFields));
      assert.equal(req.oldObject, null);
      assert.equal(req.dryRun, false);
      assert.equal(req.options.kind, 'CreateOptions');

      // UPDATE sends the old object too.
      const upd = await request(server.url, 'PUT', `/api/v1/namespaces/${ns}/configmaps/${name}`, { body: { ...configMap(name, { k: 'v2' }) } });
      assert.equal(upd.status, 200, upd.text);
      assert.equal(upd.json.metadata.labels.mutated, 'yes');
      const ureq = hook.received.get('/mutate-label')!.at(-1).request;
      assert.equal(ureq.operation, 'UPDATE');
      assert.equal(ureq.oldObject.metadata.name, name);
      assert.equal(ureq.options.kind, 'UpdateOptions');
    } finally {
      await remove();
    }
    // Deleting the configuration takes effect too (from the watch).
    await createUntil(ns, (s, j) => s === 201 && j.metadata.labels?.mutated === undefined);
  });

  test('reinvocation: an IfNeeded webhook runs again after a later one changed the object', async () => {
    const ns = await namespace();
    let first = 0;
    let never = 0;
    hook.on('/reinvoke-first', () => {
      first++;
      return allow();
    });
    hook.on('/reinvoke-never', () => {
      never++;
      return allow();
    });
    hook.on('/reinvoke-changer', (review) => (review.request.object.metadata.labels?.changed ? allow() : addLabel(review, 'changed', 'true')));
    const sel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    const remove = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'reinvoke', [
      configMapHook('first.example.com', hook.url('/reinvoke-first'), hook.caBundle, { ...sel, reinvocationPolicy: 'IfNeeded' }),
      configMapHook('never.example.com', hook.url('/reinvoke-never'), hook.caBundle, { ...sel }),
      configMapHook('changer.example.com', hook.url('/reinvoke-changer'), hook.caBundle, { ...sel, reinvocationPolicy: 'IfNeeded' }),
    ]));
    try {
      await createUntil(ns, (s, j) => s === 201 && j.metadata.labels?.changed === 'true');
      first = 0;
      never = 0;
      const r = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('reinvoked') });
      assert.equal(r.status, 201, r.text);
      assert.equal(first, 2, 'the IfNeeded webhook before the change runs twice');
      assert.equal(never, 1, 'a Never webhook runs once');
    } finally {
      await remove();
    }
  });

  test('dry-run reaches a NoneOnDryRun webhook with dryRun true and stores nothing', async () => {
    const ns = await namespace();
    hook.on('/dry', (review) => addLabel(review, 'dry', String(review.request.dryRun)));
    const remove = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'dry', [
      configMapHook('dry.example.com', hook.url('/dry'), hook.caBundle, { sideEffects: 'NoneOnDryRun', namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }),
    ]));
    try {
      await createUntil(ns, (s, j) => s === 201 && j.metadata.labels?.dry === 'false');
      const r = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: configMap('dry-only') });
      assert.equal(r.status, 201, r.text);
      assert.equal(r.json.metadata.labels.dry, 'true');
      const review = hook.received.get('/dry')!.at(-1);
      assert.deepEqual(review.request.options.dryRun, ['All']);
      assert.equal((await request(server.url, 'GET', `/api/v1/namespaces/${ns}/configmaps/dry-only`)).status, 404);
    } finally {
      await remove();
    }
  });
});

describe('validating webhooks', () => {
  test('a denial with the message kubectl prints; nothing stored; warnings reach kubectl', async () => {
    const ns = await namespace();
    hook.on('/deny', (review) =>
      review.request.object.metadata.name.startsWith('bad')
        ? { allowed: false, status: { code: 403, message: 'configmaps named bad* are not allowed' }, warnings: ['checked by deny.example.com'] }
        : { allowed: true, warnings: ['checked by deny.example.com'] },
    );
    const remove = await install(VWC, webhookConfiguration('ValidatingWebhookConfiguration', 'deny', [
      configMapHook('deny.example.com', hook.url('/deny'), hook.caBundle, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }),
    ]));
    try {
      await until('denial in effect', async () => (await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps?dryRun=All`, { body: configMap('bad-probe') })).status === 403, 3000);
      const out = await runKubectl(server.kubeconfigPath, ['create', 'configmap', 'bad-one', '-n', ns, '--from-literal=a=b']);
      assert.equal(out.code, 1);
      assert.match(out.stderr, /Warning: checked by deny.example.com/);
      assert.match(out.stderr, /error: failed to create configmap: admission webhook "deny.example.com" denied the request: configmaps named bad\* are not allowed/);
      assert.equal((await request(server.url, 'GET', `/api/v1/namespaces/${ns}/configmaps/bad-one`)).status, 404);
      const ok = await runKubectl(server.kubeconfigPath, ['create', 'configmap', 'good-one', '-n', ns, '--from-literal=a=b']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.match(ok.stderr, /Warning: checked by deny.example.com/);
    } finally {
      await remove();
    }
  });

  test('denial without a message and with a code below 400', async () => {
    const ns = await namespace();
    hook.on('/deny-bare', () => ({ allowed: false, status: { code: 200 } }));
    const remove = await install(VWC, webhookConfiguration('ValidatingWebhookConfiguration', 'deny-bare', [
      configMapHook('bare.example.com', hook.url('/deny-bare'), hook.caBundle, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }),
    ]));
    try {
      const r = await createUntil(ns, (s) => s === 400);
      assert.equal(r.json.message, 'admission webhook "bare.example.com" denied the request without explanation');
    } finally {
      await remove();
    }
  });
});

describe('faults', () => {
  test('failurePolicy Fail vs Ignore on a dead webhook', async () => {
    const ns = await namespace();
    const port = await freePort();
    const url = `https://127.0.0.1:${port}/dead`;
    const sel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    const removeFail = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'dead-fail', [configMapHook('dead.example.com', url, hook.caBundle, sel)]));
    const r = await createUntil(ns, (s) => s === 500);
    assert.equal(r.json.reason, 'InternalError');
    assert.equal(r.json.code, 500);
    assert.equal(
      r.json.message,
      `Internal error occurred: failed calling webhook "dead.example.com": failed to call webhook: Post "${url}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    const list = await request(server.url, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
    assert.equal(list.json.items.length, 0, 'nothing stored on failure');
    await removeFail();
    const removeIgnore = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'dead-ignore', [
      configMapHook('dead.example.com', url, hook.caBundle, { ...sel, failurePolicy: 'Ignore' }),
    ]));
    try {
      await createUntil(ns, (s) => s === 201);
    } finally {
      await removeIgnore();
    }
  });

  test('a hanging webhook times out after timeoutSeconds and holds up no other request', async () => {
    const ns = await namespace();
    let released = false;
    hook.on('/hang', (_review, res) => {
      res.on('close', () => (released = true));
      return 'handled';
    });
    const remove = await install(VWC, webhookConfiguration('ValidatingWebhookConfiguration', 'hang', [
      configMapHook('hang.example.com', hook.url('/hang'), hook.caBundle, { timeoutSeconds: 1, namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }),
    ]));
    try {
      await createUntil(ns, (s) => s === 500);
      const started = Date.now();
      const slow = request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('slow') });
      // Meanwhile, other writes are served at once (many of them).
      const others = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          request(server.url, 'POST', `/api/v1/namespaces/${ns}/secrets`, { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` } } }),
        ),
      );
      assert.ok(others.every((o) => o.status === 201));
      assert.ok(Date.now() - started < 900, `other requests took ${Date.now() - started} ms`);
      const r = await slow;
      const took = Date.now() - started;
      assert.ok(took >= 950 && took < 3000, `timed out after ${took} ms`);
      assert.equal(r.status, 500);
      assert.equal(
        r.json.message,
        `Internal error occurred: failed calling webhook "hang.example.com": failed to call webhook: Post "${hook.url('/hang')}?timeout=1s": context deadline exceeded`,
      );
      await until('the hung call to be closed', () => released, 2000);
    } finally {
      await remove();
    }
  });

  test('500, wrong uid, undecodable patch, unappliable patch, bad CA', async () => {
    const ns = await namespace();
    const sel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    hook.on('/fault', (review, res) => {
      const name: string = review.request.object.metadata.name;
      if (name.startsWith('e500')) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('boom\n');
        return 'handled';
      }
      if (name.startsWith('uid')) return { allowed: true, uid: 'not-the-uid' };
      if (name.startsWith('undecodable')) return { allowed: true, rawPatch: Buffer.from('{"op":').toString('base64'), patchType: 'JSONPatch' };
      if (name.startsWith('unappliable')) return { allowed: true, patch: [{ op: 'replace', path: '/metadata/nothere/x', value: 1 }] };
      return allow();
    });
    const remove = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'faults', [configMapHook('fault.example.com', hook.url('/fault'), hook.caBundle, sel)]));
    try {
      await createUntil(ns, (s) => s === 201);
      const create = (name: string) => request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap(name) });
      const prefix = 'Internal error occurred: failed calling webhook "fault.example.com": ';
      let r = await create('e500');
      assert.equal(r.status, 500);
      assert.equal(r.json.message, `${prefix}failed to call webhook: an error on the server ("boom") has prevented the request from succeeding`);
      r = await create('uid');
      assert.equal(r.json.message, `${prefix}received invalid webhook response: expected response.uid="${hook.received.get('/fault')!.at(-1).request.uid}", got "not-the-uid"`);
      // As kube-apiserver 1.32 answers these two (not subject to the failure policy).
      r = await create('undecodable');
      assert.equal(r.status, 500);
      assert.equal(r.json.message, 'Internal error occurred: unexpected end of JSON input');
      r = await create('unappliable');
      assert.equal(r.status, 500);
      assert.equal(r.json.message, 'Internal error occurred: replace operation does not apply: doc is missing path: /metadata/nothere/x: missing value');
      const list = await request(server.url, 'GET', `/api/v1/namespaces/${ns}/configmaps`);
      assert.deepEqual(list.json.items.map((i: any) => i.metadata.name).filter((n: string) => !n.startsWith('probe')), []);
    } finally {
      await remove();
    }
    // A CA that did not sign the webhook's certificate.
    const other = await startWebhookServer();
    const removeBadCa = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'bad-ca', [configMapHook('ca.example.com', hook.url('/fault'), other.caBundle, sel)]));
    try {
      const r = await createUntil(ns, (s) => s === 500);
      assert.equal(
        r.json.message,
        `Internal error occurred: failed calling webhook "ca.example.com": failed to call webhook: Post "${hook.url('/fault')}?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
      );
    } finally {
      await removeBadCa();
      await other.stop();
    }
  });
});

describe('matching', () => {
  test('namespaceSelector limits a webhook to the labelled namespace', async () => {
    const tenant = await namespace({ tier: 'restricted' });
    const other = await namespace();
    hook.on('/ns-label', (review) => addLabel(review, 'seen', 'true'));
    const remove = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'ns-selector', [
      configMapHook('ns.example.com', hook.url('/ns-label'), hook.caBundle, { namespaceSelector: { matchLabels: { tier: 'restricted' } } }),
    ]));
    try {
      await createUntil(tenant, (s, j) => s === 201 && j.metadata.labels?.seen === 'true');
      const r = await request(server.url, 'POST', `/api/v1/namespaces/${other}/configmaps`, { body: configMap('untouched') });
      assert.equal(r.status, 201);
      assert.equal(r.json.metadata.labels, undefined);
    } finally {
      await remove();
    }
  });

  test('objectSelector, matchConditions and subresource rules', async () => {
    const ns = await namespace();
    const sel = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } };
    hook.on('/obj', (review) => addLabel(review, 'obj', 'true'));
    hook.on('/cond', (review) => addLabel(review, 'cond', 'true'));
    const remove = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'selectors', [
      configMapHook('obj.example.com', hook.url('/obj'), hook.caBundle, { ...sel, objectSelector: { matchExpressions: [{ key: 'pick', operator: 'Exists' }] } }),
      configMapHook('cond.example.com', hook.url('/cond'), hook.caBundle, {
        ...sel,
        matchConditions: [{ name: 'named', expression: "object.metadata.name.startsWith('cond-') && request.operation == 'CREATE'" }],
      }),
    ]));
    try {
      await createUntil(ns, (s, j) => s === 201 && j.metadata.labels === undefined);
      const picked = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('picked', { a: 'b' }, { labels: { pick: '1' } }) });
      assert.deepEqual(picked.json.metadata.labels, { pick: '1', obj: 'true' });
      const cond = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('cond-1') });
      assert.deepEqual(cond.json.metadata.labels, { cond: 'true' });
      const plain = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/configmaps`, { body: configMap('plain') });
      assert.equal(plain.json.metadata.labels, undefined);
    } finally {
      await remove();
    }
  });

  test('a service reference is resolved and called, TLS verified for <service>.<namespace>.svc', async () => {
    const ns = await namespace();
    hook.on('/svc', (review) => addLabel(review, 'via', 'service'));
    const remove = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'svc', [
      {
        ...configMapHook('svc.example.com', '', hook.caBundle, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }),
        clientConfig: { service: { namespace: 'wh-svc', name: 'hooks', path: '/svc', port: 8443 }, caBundle: hook.caBundle },
      },
    ]));
    try {
      await createUntil(ns, (s, j) => s === 201 && j.metadata.labels?.via === 'service');
    } finally {
      await remove();
    }
    const removeMissing = await install(MWC, webhookConfiguration('MutatingWebhookConfiguration', 'svc-missing', [
      {
        ...configMapHook('missing.example.com', '', hook.caBundle, { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } }),
        clientConfig: { service: { namespace: 'wh-svc', name: 'absent' }, caBundle: hook.caBundle },
      },
    ]));
    try {
      const r = await createUntil(ns, (s) => s === 500);
      assert.equal(r.json.message, 'Internal error occurred: failed calling webhook "missing.example.com": failed to call webhook: Post "https://absent.wh-svc.svc:443/?timeout=10s": service "absent" not found in wh-svc (port 443)');
    } finally {
      await removeMissing();
    }
  });

  test('the default resolver picks an address of the Service\'s Endpoints', async () => {
    const ns = await namespace();
    const svc = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/services`, {
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 9443 }] } },
    });
    assert.equal(svc.status, 201, svc.text);
    const ep = await request(server.url, 'POST', `/api/v1/namespaces/${ns}/endpoints`, {
      body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hook' }, subsets: [{ addresses: [{ ip: '127.0.0.7' }], ports: [{ name: 'https', port: 9443 }] }] },
    });
    assert.equal(ep.status, 201, ep.text);
    const resolve = endpointsServiceResolver((resource) => server.registry.storeFor('', resource));
    assert.deepEqual(await resolve(ns, 'hook', 443), { host: '127.0.0.7', port: 9443 });
    await assert.rejects(resolve(ns, 'hook', 80), /no service port 80 found for service "hook"/);
    await assert.rejects(resolve(ns, 'nope', 443), /service "nope" not found/);
  });
});
