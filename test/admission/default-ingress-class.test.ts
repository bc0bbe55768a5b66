// DefaultIngressClass through a real server. A default IngressClass is
// cluster-wide, so this is not a differential case (the cases run in parallel).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../helpers/server.js';
import { request } from '../helpers/http.js';

const IC = '/apis/networking.k8s.io/v1/ingressclasses';
const ING = '/apis/networking.k8s.io/v1/namespaces/a/ingresses';
const ic = (name: string, isDefault: boolean) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'IngressClass',
  metadata: { name, ...(isDefault ? { annotations: { 'ingressclass.kubernetes.io/is-default-class': 'true' } } : {}) },
  spec: { controller: 'example.com/ingress' },
});
const ing = (name: string, extra: { spec?: Record<string, unknown>; annotations?: Record<string, string> } = {}) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name, ...(extra.annotations ? { annotations: extra.annotations } : {}) },
  spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } }, ...extra.spec },
});

test('DefaultIngressClass: ingresses without a class get the default one, the newest when several', async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const base = server.url;
  await request(base, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  const none = await request(base, 'POST', ING, { body: ing('none') });
  assert.equal(none.status, 201, none.text);
  assert.equal(none.json.spec.ingressClassName, undefined);

  assert.equal((await request(base, 'POST', IC, { body: ic('old', true) })).status, 201);
  assert.equal((await request(base, 'POST', IC, { body: ic('plain', false) })).status, 201);
  const probe = async (want: string) => {
    for (let i = 0; ; i++) {
      const r = await request(base, 'POST', `${ING}?dryRun=All`, { body: ing('probe') });
      assert.equal(r.status, 201, r.text);
      if (r.json.spec.ingressClassName === want || i > 50) return r.json.spec.ingressClassName;
      await new Promise((res) => setTimeout(res, 20));
    }
  };
  assert.equal(await probe('old'), 'old');
  const got = await request(base, 'POST', ING, { body: ing('got') });
  assert.equal(got.json.spec.ingressClassName, 'old');
  assert.equal((await request(base, 'GET', `${ING}/got`)).json.spec.ingressClassName, 'old', 'stored');
  const own = await request(base, 'POST', ING, { body: ing('own', { spec: { ingressClassName: 'plain' } }) });
  assert.equal(own.json.spec.ingressClassName, 'plain');
  const annotated = await request(base, 'POST', ING, { body: ing('annotated', { annotations: { 'kubernetes.io/ingress.class': 'nginx' } }) });
  assert.equal(annotated.status, 201, annotated.text);
  assert.equal(annotated.json.spec.ingressClassName, undefined, 'the legacy annotation names a class');
  const updated = await request(base, 'PATCH', `${ING}/none`, { body: { metadata: { labels: { x: 'y' } } }, headers: { 'content-type': 'application/merge-patch+json' } });
  assert.equal(updated.json.spec.ingressClassName, undefined, 'updates are not defaulted');

  await new Promise((res) => setTimeout(res, 1100)); // creationTimestamp has one-second resolution
  assert.equal((await request(base, 'POST', IC, { body: ic('new', true) })).status, 201);
  assert.equal(await probe('new'), 'new', 'the newest default wins');
});

test('--disable-admission-plugins DefaultIngressClass leaves ingresses without a class', async (t) => {
  const server = await startTestServer({ disableAdmissionPlugins: ['DefaultIngressClass'] });
  t.after(() => server.stop());
  await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } } });
  assert.equal((await request(server.url, 'POST', IC, { body: ic('d', true) })).status, 201);
  await new Promise((res) => setTimeout(res, 200));
  const r = await request(server.url, 'POST', ING, { body: ing('x') });
  assert.equal(r.status, 201, r.text);
  assert.equal(r.json.spec.ingressClassName, undefined);
});
