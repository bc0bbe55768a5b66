// `kubectl top` through apiary's aggregator: the real metrics-server v0.7
// (test/compat/metrics-server, nothing patched) serves metrics.k8s.io,
// registered through an APIService and an ExternalName Service to
// `localhost`, and scrapes kwok's simulated kubelet (test/compat/kwok).
//
// kwok runs with its server on 127.0.0.1 (the nodes' InternalIP and kubelet
// port), its Metric and ClusterResourceUsage CRDs applied from its module
// (kustomize/crd/bases) with the two objects its `metrics-usage` chart
// ships: `/metrics/nodes/{nodeName}/metrics/resource` in the kubelet's
// format, and usage taken from the pods' kwok.x-k8s.io/usage-* annotations.
// The node carries `metrics.k8s.io/resource-metrics-path`, which
// metrics-server 0.7 scrapes instead of /metrics/resource.
// apiary runs in-process (TLS, authentication, RBAC) with its namespace
// defaults controller (the `default` service accounts pods need).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { startControllerManager, type RunningControllerManager } from '../../src/controllers/manager.js';
import { runKubectl } from '../helpers/kubectl.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';
import { KWOK_ANNOTATION, kwokNode } from '../compat/controlplane/cluster.js';
import { BINARIES, extensionManifests, launch, missing, servingCertificate, type Program } from './extension-process.js';
import { freePort } from '../helpers/free-port.js';

const NODE = 'kwok-node-0';
const NS = 'busy';
const API_SERVICE = 'v1beta1.metrics.k8s.io';

/** kwok's module folder (its CRDs and metric objects), as the build downloaded it. */
function kwokModuleDir(): string | undefined {
  const r = spawnSync('go', ['list', '-m', '-f', '{{.Dir}}', 'sigs.k8s.io/kwok'], { cwd: path.resolve(path.dirname(BINARIES.kwok), '..'), encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' } });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  return dir !== '' && fs.existsSync(path.join(dir, 'kustomize')) ? dir : undefined;
}

const skip = missing('metricsServer', 'kwok');
const kwokDir = skip === false ? kwokModuleDir() : undefined;
const skipReason = skip !== false ? skip : kwokDir === undefined ? 'kwok’s module is not in the Go module cache (scripts/run-tests.mjs builds kwok)' : false;

let dir: string;
let server: TestServer;
let client: RestClient;
let controllers: RunningControllerManager;
let kwok: Program;
let metrics: Program;
let kubeconfig: string;

async function kubectl(args: string[], stdin?: string): Promise<string> {
  const r = await runKubectl(kubeconfig, args, { ...(stdin !== undefined ? { stdin } : {}), timeoutMs: 60_000 });
  assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}\n--- metrics-server log tail:\n${metrics?.log().slice(-3000)}\n--- kwok log tail:\n${kwok?.log().slice(-2000)}`);
  return r.stdout;
}

function pod(name: string, cpu: string, memory: string): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: NS, annotations: { 'kwok.x-k8s.io/usage-cpu': cpu, 'kwok.x-k8s.io/usage-memory': memory } },
    spec: { nodeName: NODE, containers: [{ name: 'app', image: 'app:1' }] },
  };
}

before(async () => {
  if (skipReason !== false) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-metrics-server-'));
  server = await startTestServer({ security: { tlsTermination: 'inline' }, localApiServices: true, apiServiceAvailabilityIntervalMs: 500 });
  kubeconfig = server.kubeconfigPath;
  client = new RestClient({ ...server.admin });
  controllers = startControllerManager({
    client,
    controllers: { namespace: true, systemNamespaces: true, namespaceDefaults: true, resourceQuota: false, crdCleanup: false, pvcProtection: false, garbageCollector: false, hncPropagation: false },
    rootCaData: server.admin.caData ?? '',
    systemNamespacesIntervalMs: 60_000,
  });
  await controllers.systemNamespacesSynced;

  // kwok: its CRDs, its resource-metrics endpoint and usage from annotations, then the program.
  const crds = ['kwok.x-k8s.io_metrics.yaml', 'kwok.x-k8s.io_clusterresourceusages.yaml'].map((f) => path.join(kwokDir!, 'kustomize/crd/bases', f));
  await kubectl(['apply', ...crds.flatMap((f) => ['-f', f])]);
  await kubectl(['wait', '--for=condition=Established', 'crd/metrics.kwok.x-k8s.io', 'crd/clusterresourceusages.kwok.x-k8s.io', '--timeout=30s']);
  await kubectl(['apply', '-f', path.join(kwokDir!, 'kustomize/metrics/resource/metrics-resource.yaml'), '-f', path.join(kwokDir!, 'kustomize/metrics/usage/usage-from-annotation.yaml')]);
  const kubeletPort = await freePort();
  const kubeletCert = await servingCertificate(dir, 'kube-system', 'kwok');
  kwok = launch('kwok', BINARIES.kwok, [
    `--kubeconfig=${kubeconfig}`,
    `--manage-nodes-with-annotation-selector=${KWOK_ANNOTATION}=fake`,
    '--cidr=10.244.0.1/16',
    '--node-ip=127.0.0.1',
    `--node-port=${kubeletPort}`,
    `--server-address=127.0.0.1:${kubeletPort}`,
    `--tls-cert-file=${kubeletCert.certFile}`,
    `--tls-private-key-file=${kubeletCert.keyFile}`,
    '--enable-crds=Metric,ClusterResourceUsage',
    '--node-lease-duration-seconds=40',
  ], dir);
  const node = kwokNode(NODE) as { metadata: { annotations: Record<string, string> } };
  node.metadata.annotations['metrics.k8s.io/resource-metrics-path'] = `/metrics/nodes/${NODE}/metrics/resource`;
  await kubectl(['apply', '-f', '-'], JSON.stringify(node));
  await kubectl(['wait', '--for=condition=Ready', `node/${NODE}`, '--timeout=60s']);
  await kubectl(['create', 'namespace', NS]);
  await until('the default service account', async () => (await runKubectl(kubeconfig, ['-n', NS, 'get', 'serviceaccount', 'default'])).code === 0, 20_000, 200);
  await kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [pod('small', '100m', '64Mi'), pod('big', '500m', '256Mi')] }));
  await kubectl(['-n', NS, 'wait', '--for=condition=Ready', 'pod/small', 'pod/big', '--timeout=60s']);

  // metrics-server, registered as its manifests do (kube-system/metrics-server, v1beta1.metrics.k8s.io).
  const cert = await servingCertificate(dir, 'kube-system', 'metrics-server');
  const port = await freePort();
  metrics = launch('metrics-server', BINARIES.metricsServer, [
    '--bind-address=127.0.0.1',
    `--secure-port=${port}`,
    `--tls-cert-file=${cert.certFile}`,
    `--tls-private-key-file=${cert.keyFile}`,
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--kubelet-preferred-address-types=InternalIP',
    '--kubelet-use-node-status-port',
    '--kubelet-insecure-tls',
    '--metric-resolution=10s',
    '--kubelet-request-timeout=5s',
    `--cert-dir=${dir}`,
  ], dir);
  await kubectl(['apply', '-f', '-'], extensionManifests({ namespace: 'kube-system', name: 'metrics-server', port, group: 'metrics.k8s.io', version: 'v1beta1', caPem: cert.caPem, groupPriorityMinimum: 100, versionPriority: 100 }));
  await until('the metrics APIService is Available', async () => {
    if (metrics.exited()) throw new Error(`metrics-server exited:\n${metrics.log().slice(-4000)}`);
    const svc = JSON.parse(await kubectl(['get', 'apiservice', API_SERVICE, '-o', 'json']));
    return (svc.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Available' && c.status === 'True');
  }, 60_000, 250);
});

after(async () => {
  if (skipReason !== false) return;
  await metrics?.stop();
  await kwok?.stop();
  await controllers?.stop();
  await client?.close();
  await server?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('kubectl top nodes and kubectl top pods print the usage metrics-server scraped from kwok', { skip: skipReason, timeout: 120_000 }, async (t) => {
  // metrics-server needs two scrapes (10 s apart, its minimum resolution) before it has a CPU rate.
  let nodes = '';
  await until('kubectl top nodes prints the node', async () => {
    const r = await runKubectl(kubeconfig, ['top', 'nodes', '--no-headers'], { timeoutMs: 30_000 });
    nodes = r.stdout + r.stderr;
    return r.code === 0 && new RegExp(`^${NODE}\\s`, 'm').test(r.stdout);
  }, 60_000, 1000).catch((err: Error) => {
    throw new Error(`${err.message}: ${nodes}\n--- metrics-server log tail:\n${metrics.log().slice(-3000)}`);
  });
  // NAME CPU(cores) CPU% MEMORY(bytes) MEMORY%: the node's usage is its pods' (600m, 320Mi) as kwok sums them.
  assert.match(nodes, new RegExp(`^${NODE}\\s+\\d+m\\s+\\d+%\\s+\\d+Mi\\s+\\d+%\\s*$`, 'm'));
  let pods = '';
  await until('kubectl top pods prints both pods', async () => {
    const r = await runKubectl(kubeconfig, ['-n', NS, 'top', 'pods', '--no-headers'], { timeoutMs: 30_000 });
    pods = r.stdout + r.stderr;
    return r.code === 0 && /^big\s/m.test(r.stdout) && /^small\s/m.test(r.stdout);
  }, 60_000, 1000);
  t.diagnostic(`kubectl top nodes: ${nodes.trim()}`);
  t.diagnostic(`kubectl top pods: ${pods.trim().replace(/\n/g, ' | ')}`);
  assert.match(pods, /^big\s+(49\d|50\d)m\s+256Mi\s*$/m);
  assert.match(pods, /^small\s+(9\d|10\d)m\s+64Mi\s*$/m);
  // The same through the API, as kubectl read it: metrics.k8s.io served by metrics-server behind apiary.
  const list = JSON.parse(await kubectl(['get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods/small`]));
  assert.equal(list.kind, 'PodMetrics');
  assert.equal(list.containers[0].usage.memory, '64Mi');
});

test('metrics.k8s.io is discovered and documented: kubectl api-resources, /openapi/v2, kubectl explain', { skip: skipReason }, async () => {
  const resources = await kubectl(['api-resources', '--api-group=metrics.k8s.io']);
  assert.match(resources, /^nodes\s+metrics\.k8s\.io\/v1beta1\s+false\s+NodeMetrics$/m);
  assert.match(resources, /^pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics$/m);
  await until('the metrics definitions in /openapi/v2', async () => {
    const doc = JSON.parse(await kubectl(['get', '--raw', '/openapi/v2']));
    return doc.definitions['io.k8s.metrics.pkg.apis.metrics.v1beta1.NodeMetrics'] !== undefined && doc.paths['/apis/metrics.k8s.io/v1beta1/nodes'] !== undefined;
  }, 20_000, 500);
  assert.match(await kubectl(['explain', 'podmetrics.containers']), /usage\s+<map\[string\]Quantity>/);
});
