// The real k8s.io/sample-apiserver v0.32 behind apiary's aggregator.
//
// apiary runs in-process with TLS, authentication and RBAC, its front-proxy
// CA and proxy client certificate made in DATA_DIR/pki, and its namespace
// controller. sample-apiserver (test/compat/sample-apiserver, nothing
// patched) runs as a process on 127.0.0.1 with its own etcd 3.5; it reads
// apiary's extension-apiserver-authentication ConfigMap and asks apiary for
// TokenReviews and SubjectAccessReviews, as it would in a cluster. It is
// registered through an APIService and an ExternalName Service to
// `localhost`. kubectl 1.32 is the user.
//
// What it proves: the APIService becomes Available; kubectl creates, gets,
// lists and watches flunders through apiary; discovery (`kubectl
// api-resources`, aggregated discovery), OpenAPI v3 (`kubectl explain`) and
// OpenAPI v2 carry the extension's group; deleting a namespace deletes its
// flunders through the aggregator. Then the server is killed: the
// APIService turns Available=False with upstream's reason, its group answers
// 503, everything else is still served and discovered, the garbage collector
// still collects, and a namespace deletion waits for the group (as upstream's
// namespace controller does) and finishes once the server is back.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { startControllerManager, type RunningControllerManager } from '../../src/controllers/manager.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { runKubectl } from '../helpers/kubectl.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { BINARIES, extensionManifests, launch, missing, servingCertificate, type Program } from './extension-process.js';
import { freePort } from '../helpers/free-port.js';

const GROUP = 'wardle.example.com';
const VERSION = 'v1alpha1';
const API_SERVICE = `${VERSION}.${GROUP}`;
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const skip = missing('sampleApiserver', 'etcd');

let dir: string;
let server: TestServer;
let client: RestClient;
let controllers: RunningControllerManager;
let etcd: EtcdCluster;
let sample: Program;
let sampleArgs: string[];
let kubeconfig: string;

async function kubectl(args: string[], stdin?: string): Promise<string> {
  const r = await runKubectl(kubeconfig, args, { ...(stdin !== undefined ? { stdin } : {}), timeoutMs: 60_000 });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}\n--- sample-apiserver log tail:\n${sample?.log().slice(-3000)}`);
  return r.stdout;
}

/** A GET as the admin (client certificate): status and body. */
async function raw(urlPath: string, accept?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(server.url + urlPath, { ca: server.admin.caData, cert: server.admin.certData, key: server.admin.keyData, headers: accept !== undefined ? { accept } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function available(): Promise<{ status?: string; reason?: string; message?: string }> {
  const svc = JSON.parse(await kubectl(['get', 'apiservice', API_SERVICE, '-o', 'json']));
  return (svc.status?.conditions ?? []).find((c: { type: string }) => c.type === 'Available') ?? {};
}

function flunder(name: string, namespace: string): string {
  return JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Flunder', metadata: { name, namespace }, spec: { reference: 'elsewhere' } });
}

before(async () => {
  if (skip !== false) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-sample-apiserver-'));
  server = await startTestServer({ security: { tlsTermination: 'inline' }, localApiServices: true, apiServiceAvailabilityIntervalMs: 500 });
  kubeconfig = server.kubeconfigPath;
  client = new RestClient({ ...server.admin });
  controllers = startControllerManager({
    client,
    controllers: { namespace: true, systemNamespaces: true, resourceQuota: false, crdCleanup: false, pvcProtection: false, garbageCollector: true, hncPropagation: false },
    gcDiscoveryPeriodMs: 1000,
    concurrentNamespaceSyncs: 4,
    namespaceDeletionGracePeriodMs: 100,
    finalizerEstimateSeconds: 1,
    systemNamespacesIntervalMs: 60_000,
  });
  await controllers.systemNamespacesSynced;
  etcd = await startEtcd({ binary: BINARIES.etcd });
  await kubectl(['create', 'namespace', 'wardle']);
  const cert = await servingCertificate(dir, 'wardle', 'api');
  const port = await freePort();
  sampleArgs = [
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--etcd-servers=${etcd.endpoints[0]}`,
    `--tls-cert-file=${cert.certFile}`,
    `--tls-private-key-file=${cert.keyFile}`,
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    `--cert-dir=${dir}`,
  ];
  sample = launch('sample-apiserver', BINARIES.sampleApiserver, sampleArgs, dir);
  await kubectl(['apply', '-f', '-'], extensionManifests({ namespace: 'wardle', name: 'api', port, group: GROUP, version: VERSION, caPem: cert.caPem, groupPriorityMinimum: 2000, versionPriority: 200 }));
  await until('the wardle APIService is Available', async () => {
    if (sample.exited()) throw new Error(`sample-apiserver exited:\n${sample.log().slice(-4000)}`);
    return (await available()).status === 'True';
  }, 60_000, 250);
});

after(async () => {
  if (skip !== false) return;
  await sample?.stop();
  await controllers?.stop();
  await client?.close();
  await server?.stop();
  await etcd?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('kubectl creates, gets, lists and deletes flunders through apiary', { skip }, async () => {
  await kubectl(['create', 'namespace', 'zoo']);
  assert.match(await kubectl(['create', '-f', '-'], flunder('one', 'zoo')), /^flunder\.wardle\.example\.com\/one created$/m);
  assert.equal(await kubectl(['-n', 'zoo', 'get', 'flunder', 'one', '-o', 'jsonpath={.spec.reference}']), 'elsewhere');
  assert.match(await kubectl(['-n', 'zoo', 'get', 'flunders']), /^NAME\s+CREATED AT\none\s+\S+\n$/);
  // sample-apiserver's own admission (BanFlunder: a Fischer lists the names it refuses) runs behind the proxy; its Status comes back as it is.
  await kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: `${GROUP}/${VERSION}`, kind: 'Fischer', metadata: { name: 'strict' }, disallowedFlunders: ['banned'] }));
  const banned = await runKubectl(kubeconfig, ['create', '-f', '-'], { stdin: flunder('banned', 'zoo') });
  assert.notEqual(banned.code, 0);
  assert.match(banned.stderr, /flunders\.wardle\.example\.com "banned" is forbidden: this name may not be used, please change the resource name/);
  await kubectl(['delete', 'fischer', 'strict']);
  // Another user, with RBAC rights in zoo only: apiary authorizes, then sample-apiserver authenticates the user from the
  // front-proxy headers and asks apiary's SubjectAccessReview again; elsewhere apiary refuses before proxying.
  await kubectl(['create', 'clusterrole', 'flunder-reader', '--verb=get,list', `--resource=flunders.${GROUP}`]);
  await kubectl(['-n', 'zoo', 'create', 'rolebinding', 'bob-reads', '--clusterrole=flunder-reader', '--user=bob']);
  assert.match(await kubectl(['--as=bob', '-n', 'zoo', 'get', 'flunders', '-o', 'name']), /^flunder\.wardle\.example\.com\/one$/m);
  const denied = await runKubectl(kubeconfig, ['--as=bob', '-n', 'default', 'get', 'flunders']);
  assert.notEqual(denied.code, 0);
  assert.match(denied.stderr, /User "bob" cannot list resource "flunders" in API group "wardle\.example\.com" in the namespace "default"/);
  assert.match(await kubectl(['-n', 'zoo', 'delete', 'flunder', 'one']), /flunder\.wardle\.example\.com "one" deleted/);
  const gone = await runKubectl(kubeconfig, ['-n', 'zoo', 'get', 'flunder', 'one']);
  assert.notEqual(gone.code, 0);
  assert.match(gone.stderr, /flunders\.wardle\.example\.com "one" not found/);
});

test('kubectl get flunders -w streams through the proxy', { skip }, async () => {
  await kubectl(['create', 'namespace', 'watched']);
  const watch = spawn('kubectl', ['--kubeconfig', kubeconfig, '-n', 'watched', 'get', 'flunders', '-w', '--output-watch-events', '-o', 'jsonpath={.type} {.object.metadata.name}{"\\n"}'], { env: { ...process.env, KUBECACHEDIR: `${kubeconfig}.cache` } });
  let out = '';
  watch.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  let err = '';
  watch.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  try {
    // The watch is open once kubectl's list came back (an empty namespace prints nothing); give it a moment, then create.
    await new Promise((r) => setTimeout(r, 1500));
    await kubectl(['create', '-f', '-'], flunder('w1', 'watched'));
    await until('ADDED w1', () => /^ADDED w1$/m.test(out), 20_000, 50);
    await kubectl(['-n', 'watched', 'delete', 'flunder', 'w1']);
    await until('DELETED w1', () => /^DELETED w1$/m.test(out), 20_000, 50);
  } catch (e) {
    throw new Error(`${(e as Error).message}\nstdout: ${out}\nstderr: ${err}`);
  } finally {
    watch.kill();
  }
});

test('discovery: kubectl api-resources, /apis and aggregated discovery list the extension group; kubectl explain reads its OpenAPI v3', { skip }, async () => {
  const resources = await kubectl(['api-resources', `--api-group=${GROUP}`]);
  assert.match(resources, /^fischers\s+wardle\.example\.com\/v1alpha1\s+false\s+Fischer$/m);
  assert.match(resources, /^flunders\s+wardle\.example\.com\/v1alpha1\s+true\s+Flunder$/m);
  const groups = JSON.parse((await raw('/apis')).text).groups as { name: string }[];
  const gv = { groupVersion: `${GROUP}/${VERSION}`, version: VERSION };
  assert.deepEqual(groups.find((g) => g.name === GROUP), { name: GROUP, versions: [gv], preferredVersion: gv });
  assert.equal(groups[0]!.name, 'apiregistration.k8s.io');
  assert.deepEqual(JSON.parse((await raw(`/apis/${GROUP}`)).text), { kind: 'APIGroup', apiVersion: 'v1', name: GROUP, versions: [gv], preferredVersion: gv });
  // /apis/GROUP/VERSION is the extension's own document, proxied.
  const own = JSON.parse((await raw(`/apis/${GROUP}/${VERSION}`)).text);
  assert.deepEqual(own.resources.map((r: { name: string }) => r.name).sort(), ['fischers', 'flunders']);
  assert.match(await kubectl(['get', 'apiservices']), /^v1alpha1\.wardle\.example\.com\s+wardle\/api\s+True\s+\S+$/m);
  const aggregated = JSON.parse((await raw('/apis', AGGREGATED)).text);
  const item = aggregated.items.find((i: { metadata: { name: string } }) => i.metadata.name === GROUP);
  assert.equal(item.versions[0].freshness, 'Current');
  assert.deepEqual(item.versions[0].resources.map((r: { resource: string; scope: string }) => `${r.resource}:${r.scope}`), ['fischers:Cluster', 'flunders:Namespaced']);
  const v3 = JSON.parse((await raw('/openapi/v3')).text);
  assert.match(v3.paths[`apis/${GROUP}/${VERSION}`].serverRelativeURL, /^\/openapi\/v3\/apis\/wardle\.example\.com\/v1alpha1\?hash=[0-9A-F]+$/);
  assert.ok(v3.paths['apis/apps/v1'] !== undefined, 'our own group/versions stay listed');
  assert.match(await kubectl(['explain', 'flunders.spec']), /FIELDS:[\s\S]*reference\s+<string>/);
});

test('/openapi/v2 merges the extension server’s spec: its paths and definitions beside ours', { skip }, async () => {
  // The aggregator downloads it after the first passed check; it may take one pass.
  let doc: { paths: Record<string, unknown>; definitions: Record<string, unknown> } = { paths: {}, definitions: {} };
  await until('the wardle definitions in /openapi/v2', async () => {
    doc = JSON.parse((await raw('/openapi/v2', 'application/json')).text);
    return doc.definitions['io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.Flunder'] !== undefined;
  }, 20_000, 250).catch((err: Error) => {
    throw new Error(`${err.message}: ${Object.keys(doc.definitions).filter((k) => /wardle/.test(k)).join(', ')}; ${Object.keys(doc.definitions).length} definitions`);
  });
  assert.ok(doc.paths['/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders'] !== undefined);
  assert.ok(doc.paths['/apis/wardle.example.com/v1alpha1/fischers/{name}'] !== undefined);
  assert.ok(doc.definitions['io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.FischerList'] !== undefined);
  assert.ok(doc.paths['/api/v1/namespaces/{namespace}/configmaps'] !== undefined, 'our own paths stay');
  assert.ok(doc.definitions['io.k8s.api.core.v1.ConfigMap'] !== undefined, 'our own definitions stay');
  // Every reference resolves: a definition whose text differs from ours (ObjectMeta, …) was renamed with its references.
  const refs = new Set<string>();
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) k === '$ref' && typeof x === 'string' ? refs.add(x) : collect(x);
  };
  collect(doc);
  const dangling = [...refs].filter((r) => r.startsWith('#/definitions/') && doc.definitions[r.slice('#/definitions/'.length)] === undefined);
  assert.deepEqual(dangling, []);
  // The protobuf form (kubectl's and client-go's openapi v2 client ask for it) carries the merged document too.
  const proto = await raw('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf');
  assert.equal(proto.status, 200, proto.text.slice(0, 300));
  assert.ok(proto.text.includes('io.k8s.sample-apiserver.pkg.apis.wardle.v1alpha1.Flunder'));
  // kubectl's client-side validation (it reads /openapi/v3, else v2) accepts a Flunder.
  await kubectl(['create', 'namespace', 'validated']);
  await kubectl(['create', '--validate=strict', '-f', '-'], flunder('checked', 'validated'));
});

test('deleting a namespace deletes its flunders through the aggregator', { skip }, async () => {
  await kubectl(['create', 'namespace', 'doomed']);
  await kubectl(['create', '-f', '-'], flunder('f1', 'doomed'));
  await kubectl(['create', '-f', '-'], flunder('f2', 'doomed'));
  await kubectl(['delete', 'namespace', 'doomed', '--wait=false']);
  await until('namespace doomed is gone', async () => (await runKubectl(kubeconfig, ['get', 'namespace', 'doomed'])).code !== 0, 30_000, 200);
  // sample-apiserver's own store no longer holds them.
  const left = JSON.parse((await raw(`/apis/${GROUP}/${VERSION}/namespaces/doomed/flunders`)).text);
  assert.deepEqual(left.items, []);
});

test('the extension server dies: Available=False with upstream’s reason, 503 for its group only, discovery of the rest and the garbage collector intact; a namespace deletion waits for it, then finishes', { skip }, async () => {
  await kubectl(['create', 'namespace', 'orphan']);
  await kubectl(['create', 'configmap', 'c', '-n', 'orphan']);
  await kubectl(['create', '-f', '-'], flunder('stranded', 'orphan'));
  await sample.kill();
  await until('FailedDiscoveryCheck', async () => (await available()).reason === 'FailedDiscoveryCheck', 30_000, 250);
  const condition = await available();
  assert.equal(condition.status, 'False');
  // Go's words, as kube-aggregator's check writes them.
  const url = `https://localhost:${sampleArgs.find((a) => a.startsWith('--secure-port='))!.split('=')[1]}/apis/${GROUP}/${VERSION}`;
  assert.match(condition.message!, new RegExp(`^failing or missing response from ${url}: Get "${url}": dial tcp (127\\.0\\.0\\.1|\\[::1\\]):\\d+: connect: connection refused$`));
  const flunders = await raw(`/apis/${GROUP}/${VERSION}/namespaces/zoo/flunders`);
  assert.deepEqual([flunders.status, flunders.text], [503, 'service unavailable\n']);
  assert.equal((await raw('/api/v1/namespaces/zoo/configmaps')).status, 200);
  const aggregated = JSON.parse((await raw('/apis', AGGREGATED)).text);
  assert.equal(aggregated.items.find((i: { metadata: { name: string } }) => i.metadata.name === GROUP).versions[0].freshness, 'Stale');
  assert.ok(aggregated.items.some((i: { metadata: { name: string } }) => i.metadata.name === 'apps'));
  const configmaps = await runKubectl(kubeconfig, ['get', 'configmaps', '-n', 'orphan']);
  assert.equal(configmaps.code, 0, configmaps.stderr);
  const apiResources = await runKubectl(kubeconfig, ['api-resources']);
  // As against kube-apiserver: client-go leaves a Stale group/version out of what it discovers, without an error.
  assert.equal(apiResources.code, 0, apiResources.stderr);
  assert.match(apiResources.stdout, /^deployments\s+deploy\s+apps\/v1\s+true\s+Deployment$/m);
  assert.doesNotMatch(apiResources.stdout, /wardle/);
  // The garbage collector goes on with the groups it can discover (its discovery is re-read every second here).
  await new Promise((r) => setTimeout(r, 1500));
  const owner = JSON.parse(await kubectl(['create', 'configmap', 'owner', '-n', 'zoo', '-o', 'json']));
  await kubectl(['create', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'dependent', namespace: 'zoo', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid }] } }));
  await kubectl(['delete', 'configmap', 'owner', '-n', 'zoo']);
  await until('the dependent is collected', async () => (await runKubectl(kubeconfig, ['get', 'configmap', 'dependent', '-n', 'zoo'])).code !== 0, 30_000, 250);
  // A namespace deletion empties what it can and waits for the missing group, as upstream's namespace
  // controller does (its flunders cannot be deleted while their server is down): Terminating, with the discovery failure.
  await kubectl(['delete', 'namespace', 'orphan', '--wait=false']);
  await until('NamespaceDeletionDiscoveryFailure', async () => {
    const ns = JSON.parse(await kubectl(['get', 'namespace', 'orphan', '-o', 'json']));
    const c = (ns.status?.conditions ?? []).find((x: { type: string }) => x.type === 'NamespaceDeletionDiscoveryFailure');
    return ns.status?.phase === 'Terminating' && c?.status === 'True' && /wardle\.example\.com\/v1alpha1/.test(c.message);
  }, 30_000, 250);
  assert.equal((await runKubectl(kubeconfig, ['get', 'configmap', 'c', '-n', 'orphan'])).code, 1, 'the rest is emptied meanwhile');
  // The server comes back (same etcd): Available again, the flunder is deleted and the namespace goes.
  sample = launch('sample-apiserver-again', BINARIES.sampleApiserver, sampleArgs, dir);
  await until('Passed again', async () => (await available()).reason === 'Passed', 60_000, 250);
  await until('namespace orphan is gone', async () => (await runKubectl(kubeconfig, ['get', 'namespace', 'orphan'])).code !== 0, 40_000, 250);
  assert.deepEqual(JSON.parse((await raw(`/apis/${GROUP}/${VERSION}/namespaces/orphan/flunders`)).text).items, []);
});
