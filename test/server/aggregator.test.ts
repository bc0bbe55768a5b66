// The aggregation layer's cases the real k8s.io/sample-apiserver cannot give
// (that one runs in test/aggregation/sample-apiserver.test.ts: kubectl CRUD,
// watch, discovery, OpenAPI, namespace deletion, a killed server): apiary
// (authentication and RBAC on) with the Node stand-in of
// test/helpers/extension-server.ts, registered through an APIService and an
// ExternalName Service to `localhost`. Here: the headers the extension
// receives (front-proxy headers over the proxy client certificate, never the
// caller's own token), a proxied watch closed at the extension once its
// client leaves, a server answering 500s, a hanging one, a wrong
// caBundle, APIServices pointing at missing Services or endpoints, and the
// local APIServices of built-in and custom resource groups.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import https from 'node:https';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';
import { WARDLE_GROUP, WARDLE_VERSION, makeFrontProxyPki, startExtensionServer, type ExtensionServer, type FrontProxyPki } from '../helpers/extension-server.js';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const ADMIN_TOKEN = 'admin-token-aggregator-test';
const ALICE_TOKEN = 'alice-token-aggregator-test';

let server: TestServer;
let extension: ExtensionServer;
let pki: FrontProxyPki;
let dir: string;
let kubeconfig: string;

/** One request over HTTPS as the token's user. */
function open(method: string, urlPath: string, token: string, headers: Record<string, string>, body?: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = https.request(server.url + urlPath, { method, ca: server.admin.caData, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers } }, resolve);
    req.on('error', reject);
    req.end(body);
  });
}

async function call(method: string, urlPath: string, body?: unknown, token = ADMIN_TOKEN, headers: Record<string, string> = {}): Promise<{ status: number; text: string; json: () => any }> {
  const res = await open(method, urlPath, token, headers, body === undefined ? undefined : JSON.stringify(body));
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return { status: res.statusCode ?? 0, text, json: () => JSON.parse(text) };
}

function apiService(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec };
}

async function availability(name: string): Promise<{ status?: string; reason?: string; message?: string }> {
  const svc = (await call('GET', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`)).json();
  return (svc.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Available') ?? {};
}

before(async () => {
  pki = await makeFrontProxyPki();
  extension = await startExtensionServer({ frontProxyCaPem: pki.caPem });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-aggregator-'));
  fs.writeFileSync(path.join(dir, 'tokens.csv'), `${ADMIN_TOKEN},admin,admin-uid,"system:masters"\n${ALICE_TOKEN},alice,alice-uid,"devs"\n`);
  server = await startTestServer({
    security: { tlsTermination: 'inline', tokenAuthFile: path.join(dir, 'tokens.csv') },
    proxyClientCertFile: pki.clientCertFile,
    proxyClientKeyFile: pki.clientKeyFile,
    apiServiceAvailabilityIntervalMs: 500,
    localApiServices: true,
  });
  kubeconfig = server.kubeconfigPath;
  assert.equal((await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } })).status, 201);
  // The extension's Service: ExternalName to localhost, on the extension server's port.
  const svc = await call('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1', kind: 'Service', metadata: { name: 'api' }, spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ port: extension.port }] },
  });
  assert.equal(svc.status, 201, svc.text);
  const created = await call('POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService(`${WARDLE_VERSION}.${WARDLE_GROUP}`, {
    group: WARDLE_GROUP, version: WARDLE_VERSION, service: { namespace: 'default', name: 'api', port: extension.port },
    caBundle: Buffer.from(extension.caPem).toString('base64'), groupPriorityMinimum: 2000, versionPriority: 200,
  }));
  assert.equal(created.status, 201, created.text);
  await until('the wardle APIService is Available', async () => (await availability(`${WARDLE_VERSION}.${WARDLE_GROUP}`)).status === 'True', 15_000, 100);
});

after(async () => {
  await server?.stop();
  await extension?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(pki.dir, { recursive: true, force: true });
});

test('local APIServices: one per built-in group/version, Local and Available, with upstream names and priorities', async () => {
  const list = (await call('GET', '/apis/apiregistration.k8s.io/v1/apiservices')).json();
  const byName = new Map<string, any>(list.items.map((i: any) => [i.metadata.name, i]));
  for (const [name, group, version] of [['v1.', 18000, 1], ['v1.apps', 17800, 15], ['v2.autoscaling', 17500, 30], ['v1.authentication.k8s.io', 17700, 15], ['v1.flowcontrol.apiserver.k8s.io', 16100, 21]] as const) {
    const svc = byName.get(name);
    assert.ok(svc !== undefined, `${name} is listed`);
    assert.equal(svc.spec.groupPriorityMinimum, group, name);
    assert.equal(svc.spec.versionPriority, version, name);
    assert.equal(svc.spec.service, undefined);
    assert.equal(svc.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'onstart');
    const condition = svc.status.conditions.find((c: any) => c.type === 'Available');
    assert.deepEqual([condition.status, condition.reason, condition.message], ['True', 'Local', 'Local APIServices are always available']);
  }
  assert.equal(byName.has('v1.apiregistration.k8s.io'), false, 'the aggregator does not list its own group');
  const table = await runKubectl(kubeconfig, ['get', 'apiservices']);
  assert.equal(table.code, 0, table.stderr);
  assert.match(table.stdout, /^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/m);
  assert.match(table.stdout, /^v1\.apps\s+Local\s+True\s+\S+$/m);
  assert.match(table.stdout, /^v1alpha1\.wardle\.example\.com\s+default\/api\s+True\s+\S+$/m);
});

test('the extension sees the caller as front-proxy headers, never the caller’s own credentials', async () => {
  extension.requests.length = 0;
  const res = await call('GET', `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders`, undefined, ADMIN_TOKEN, {
    'x-remote-user': 'mallory', 'x-remote-group': 'system:masters', 'x-remote-extra-scopes': 'all',
  });
  assert.equal(res.status, 200, res.text);
  const seen = extension.requests.at(-1)!;
  assert.equal(seen.headers['x-remote-user'], 'admin');
  assert.deepEqual(String(seen.headers['x-remote-group']).split(', ').sort(), ['system:authenticated', 'system:masters']);
  assert.equal(seen.headers['authorization'], undefined);
  assert.equal(seen.headers['x-remote-extra-scopes'], undefined);
  // Authorization happens in apiary first: a user without rights never reaches the extension.
  extension.requests.length = 0;
  const denied = await call('GET', `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders`, undefined, ALICE_TOKEN);
  assert.equal(denied.status, 403, denied.text);
  assert.match(denied.json().message, /User "alice" cannot list resource "flunders" in API group "wardle\.example\.com" in the namespace "default"/);
  // (The availability controller's discovery checks go on meanwhile: only flunder requests count.)
  assert.equal(extension.requests.filter((r) => r.path.endsWith('/flunders')).length, 0);
});

test('a proxied watch is closed at the extension once its client leaves', async () => {
  const events: any[] = [];
  const response = await open('GET', `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders?watch=true`, ADMIN_TOKEN, {});
  assert.equal(response.statusCode, 200);
  let buffered = '';
  response.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  response.on('error', () => {});
  await until('the watch reached the extension', () => extension.watchers === 1);
  const created = await call('POST', `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders`, { apiVersion: `${WARDLE_GROUP}/${WARDLE_VERSION}`, kind: 'Flunder', metadata: { name: 'watched' } });
  assert.equal(created.status, 201, created.text);
  await until('the ADDED event came through', () => events.length === 1);
  assert.equal(events[0].type, 'ADDED');
  assert.equal(events[0].object.metadata.name, 'watched');
  response.destroy();
  await until('the proxied watch closed at the extension', () => extension.watchers === 0);
});

test('an unavailable extension: its condition says why, its group answers 503, every other group is served', async () => {
  const name = `${WARDLE_VERSION}.${WARDLE_GROUP}`;
  extension.mode = 'fail';
  try {
    await until('FailedDiscoveryCheck', async () => (await availability(name)).reason === 'FailedDiscoveryCheck', 15_000, 100);
    const condition = await availability(name);
    assert.equal(condition.status, 'False');
    assert.match(condition.message!, /^failing or missing response from https:\/\/localhost:\d+\/apis\/wardle\.example\.com\/v1alpha1: bad status from https:\/\/localhost:\d+\/apis\/wardle\.example\.com\/v1alpha1: 500$/);
    const proxied = await call('GET', `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders`);
    assert.equal(proxied.status, 503);
    assert.equal(proxied.text, 'service unavailable\n');
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
    const aggregated = (await call('GET', '/apis', undefined, ADMIN_TOKEN, { accept: AGGREGATED })).json();
    assert.equal(aggregated.items.find((i: any) => i.metadata.name === WARDLE_GROUP).versions[0].freshness, 'Stale');
    assert.ok(aggregated.items.some((i: any) => i.metadata.name === 'apps'));
  } finally {
    extension.mode = 'serve';
  }
  await until('Passed again', async () => (await availability(name)).reason === 'Passed', 15_000, 100);
  const condition = await availability(name);
  assert.deepEqual([condition.status, condition.message], ['True', 'all checks passed']);
});

test('a wrong caBundle: the proxy refuses the extension’s certificate (503); insecureSkipTLSVerify reaches it', async () => {
  const name = `${WARDLE_VERSION}.${WARDLE_GROUP}`;
  const path = `/apis/${WARDLE_GROUP}/${WARDLE_VERSION}/namespaces/default/flunders`;
  const merge = { 'content-type': 'application/merge-patch+json' };
  const otherCa = server.admin.caData!;
  const wrong = await call('PATCH', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { spec: { caBundle: Buffer.from(otherCa).toString('base64') } }, ADMIN_TOKEN, merge);
  assert.equal(wrong.status, 200, wrong.text);
  extension.requests.length = 0;
  const refused = await call('GET', path);
  assert.equal(refused.status, 503);
  assert.equal(refused.text, 'tls: failed to verify certificate: x509: certificate signed by unknown authority\n');
  assert.equal(extension.requests.filter((r) => r.path.endsWith('/flunders')).length, 0, 'nothing was sent over the unverified connection');
  const insecure = await call('PATCH', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { spec: { caBundle: null, insecureSkipTLSVerify: true } }, ADMIN_TOKEN, merge);
  assert.equal(insecure.status, 200, insecure.text);
  assert.equal((await call('GET', path)).status, 200);
  const restored = await call('PATCH', `/apis/apiregistration.k8s.io/v1/apiservices/${name}`, { spec: { caBundle: Buffer.from(extension.caPem).toString('base64'), insecureSkipTLSVerify: null } }, ADMIN_TOKEN, merge);
  assert.equal(restored.status, 200, restored.text);
  assert.equal((await call('GET', path)).status, 200);
});

test('a hanging extension: FailedDiscoveryCheck after the check’s timeout, other groups unaffected', async () => {
  const name = `${WARDLE_VERSION}.${WARDLE_GROUP}`;
  extension.mode = 'hang';
  try {
    await until('FailedDiscoveryCheck', async () => (await availability(name)).reason === 'FailedDiscoveryCheck', 20_000, 100);
    assert.match((await availability(name)).message!, /^failing or missing response from https:\/\/localhost:\d+\/apis\/wardle\.example\.com\/v1alpha1: /);
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps')).status, 200);
  } finally {
    extension.mode = 'serve';
  }
  await until('Passed again', async () => (await availability(name)).reason === 'Passed', 20_000, 100);
});

test('APIServices pointing at a missing Service, a Service without endpoints or without the port', async () => {
  const make = async (name: string, group: string, service: Record<string, unknown>): Promise<void> => {
    const r = await call('POST', '/apis/apiregistration.k8s.io/v1/apiservices', apiService(name, { group, version: 'v1', service, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 10 }));
    assert.equal(r.status, 201, r.text);
  };
  await make('v1.missing.example.com', 'missing.example.com', { namespace: 'default', name: 'nope' });
  const noEndpoints = await call('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'empty' }, spec: { ports: [{ name: 'https', port: 443 }] } });
  assert.equal(noEndpoints.status, 201, noEndpoints.text);
  await make('v1.empty.example.com', 'empty.example.com', { namespace: 'default', name: 'empty', port: 443 });
  await make('v1.port.example.com', 'port.example.com', { namespace: 'default', name: 'empty', port: 8443 });
  await until('their conditions', async () => (await availability('v1.missing.example.com')).reason !== undefined && (await availability('v1.empty.example.com')).reason !== undefined && (await availability('v1.port.example.com')).reason !== undefined, 15_000, 100);
  assert.deepEqual(await availability('v1.missing.example.com'), { ...(await availability('v1.missing.example.com')), status: 'False', reason: 'ServiceNotFound', message: 'service/nope in "default" is not present' });
  assert.deepEqual(await availability('v1.empty.example.com'), { ...(await availability('v1.empty.example.com')), status: 'False', reason: 'EndpointsNotFound', message: 'cannot find endpoints for service/empty in "default"' });
  assert.deepEqual(await availability('v1.port.example.com'), { ...(await availability('v1.port.example.com')), status: 'False', reason: 'ServicePortError', message: 'service/empty in "default" is not listening on port 8443' });
  // Endpoints without an address for the port's name.
  const eps = await call('POST', '/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'empty' }, subsets: [{ notReadyAddresses: [{ ip: '10.0.0.9' }], ports: [{ name: 'https', port: 443 }] }] });
  assert.equal(eps.status, 201, eps.text);
  await until('MissingEndpoints', async () => (await availability('v1.empty.example.com')).reason === 'MissingEndpoints', 15_000, 100);
  assert.equal((await availability('v1.empty.example.com')).message, 'endpoints for service/empty in "default" have no addresses with port name "https"');
  const proxied = await call('GET', '/apis/missing.example.com/v1/things');
  assert.deepEqual([proxied.status, proxied.text], [503, 'service unavailable\n']);
  // Every other group is still discovered and served.
  const aggregated = (await call('GET', '/apis', undefined, ADMIN_TOKEN, { accept: AGGREGATED })).json();
  assert.ok(aggregated.items.some((i: any) => i.metadata.name === WARDLE_GROUP));
  // kube-aggregator lists a group/version whose server never answered as Stale, without resources (a differential step).
  assert.deepEqual(aggregated.items.find((i: any) => i.metadata.name === 'missing.example.com'), { metadata: { name: 'missing.example.com', creationTimestamp: null }, versions: [{ version: 'v1', freshness: 'Stale' }] });
  for (const n of ['v1.missing.example.com', 'v1.empty.example.com', 'v1.port.example.com']) assert.equal((await call('DELETE', `/apis/apiregistration.k8s.io/v1/apiservices/${n}`)).status, 200);
});

test('custom resource group/versions get local APIServices, removed with their CRD', async () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.toys.example.com' },
    spec: { group: 'toys.example.com', scope: 'Namespaced', names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }] },
  };
  assert.equal((await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status, 201);
  await until('v1.toys.example.com exists', async () => (await call('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.toys.example.com')).status === 200, 15_000, 100);
  const svc = (await call('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.toys.example.com')).json();
  assert.deepEqual(svc.spec, { group: 'toys.example.com', version: 'v1', groupPriorityMinimum: 1000, versionPriority: 100 });
  assert.equal(svc.metadata.labels['kube-aggregator.kubernetes.io/automanaged'], 'true');
  await until('Local', async () => (await availability('v1.toys.example.com')).reason === 'Local', 15_000, 100);
  assert.equal((await call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.toys.example.com')).status, 200);
  // No controllers run here: the cleanup finalizer is taken off by hand, as the CRD cleanup controller would.
  const finalized = await call('PATCH', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.toys.example.com', { metadata: { finalizers: null } }, ADMIN_TOKEN, { 'content-type': 'application/merge-patch+json' });
  assert.equal(finalized.status, 200, finalized.text);
  await until('v1.toys.example.com removed', async () => (await call('GET', '/apis/apiregistration.k8s.io/v1/apiservices/v1.toys.example.com')).status === 404, 20_000, 100);
});
