// The real `kubectl hns` plugin (HNC v1.1.0's cmd/kubectl, built from its
// published module by scripts/run-tests.mjs into test/compat/hns/bin) against
// `apiary serve` with RBAC on, run as kubectl runs plugins (kubectl-hns on
// PATH, `kubectl hns …`). A tenant bound to `admin` in one namespace creates
// subnamespaces below it, sees its subtree with `tree` (by name and with -A,
// through the namespaces it may see), `describe`s them, sets
// --allowCascadingDeletion; `config set-resource` is the cluster admin's (the
// tenant gets HNC's error), and what it configures propagates, as do the
// tenant's own RoleBindings; a subnamespace deleted goes with its copies.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { spawnApiary, type ApiaryProcess } from '../helpers/apiary-process.js';
import { runKubectl } from '../helpers/kubectl.js';
import { until } from '../helpers/wait.js';

const HNS_BIN = process.env['KUBECTL_HNS_BIN'] ?? fileURLToPath(new URL('../compat/hns/bin/kubectl-hns', import.meta.url));

let dataDir: string;
let server: ApiaryProcess;
let admin: string;
let tenant: string;
let pluginPath: string;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** `kubectl hns …` with the kubeconfig, the plugin found on PATH as kubectl finds plugins. */
function hns(kubeconfig: string, args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['hns', ...args], {
      env: { ...process.env, KUBECONFIG: kubeconfig, PATH: `${pluginPath}${path.delimiter}${process.env['PATH'] ?? ''}`, KUBECACHEDIR: `${kubeconfig}.cache` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

async function kubectl(kubeconfig: string, args: string[]): Promise<string> {
  const r = await runKubectl(kubeconfig, args);
  assert.equal(r.code, 0, `kubectl ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

before(async () => {
  if (!fs.existsSync(HNS_BIN)) throw new Error(`${HNS_BIN} is missing: run the test through scripts/run-tests.mjs, which builds it from test/compat/hns`);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-hns-'));
  pluginPath = path.join(dataDir, 'plugins');
  fs.mkdirSync(pluginPath);
  fs.symlinkSync(HNS_BIN, path.join(pluginPath, 'kubectl-hns'));
  const tokens = path.join(dataDir, 'tokens.csv');
  fs.writeFileSync(tokens, 'tenant-token,tina,tina-uid\n');
  server = spawnApiary(
    ['serve', '--secure-port', '0', '--data-dir', path.join(dataDir, 'data'), '--log-level', 'silent', '--leader-elect', 'false', '--token-auth-file', tokens],
    { secure: true, urlTimeoutMs: 60_000 },
  );
  const url = await server.url;
  admin = path.join(dataDir, 'data', 'kubeconfig');
  const ca = (await kubectl(admin, ['config', 'view', '--raw', '--minify', '-o', 'jsonpath={.clusters[0].cluster.certificate-authority-data}'])).trim();
  tenant = path.join(dataDir, 'tenant.kubeconfig');
  fs.writeFileSync(
    tenant,
    `apiVersion: v1\nkind: Config\nclusters:\n- name: apiary\n  cluster: {server: "${url}", certificate-authority-data: ${ca}}\ncontexts:\n- name: tina\n  context: {cluster: apiary, user: tina}\ncurrent-context: tina\nusers:\n- name: tina\n  user: {token: tenant-token}\n`,
    { mode: 0o600 },
  );
  await kubectl(admin, ['create', 'namespace', 'acme']);
  await kubectl(admin, ['create', 'rolebinding', 'tina-admin', '--clusterrole=admin', '--user=tina', '-n', 'acme']);
});
after(async () => {
  await server?.stop('SIGKILL');
  if (dataDir !== undefined) fs.rmSync(dataDir, { recursive: true, force: true });
});

test('a tenant creates subnamespaces with kubectl hns create, and sees them with tree and describe', async () => {
  const created = await hns(tenant, ['create', 'dev', '-n', 'acme']);
  assert.equal(created.code, 0, created.stdout + created.stderr);
  assert.equal(created.stdout.trim(), 'Successfully created "dev" subnamespace anchor in "acme" namespace');
  await until('namespace dev', async () => (await runKubectl(tenant, ['get', 'namespace', 'dev'])).code === 0, 15_000, 100);
  // Admin of acme is admin of dev (inherited): it may create below dev too.
  await until('tina may create anchors in dev', async () => (await runKubectl(tenant, ['auth', 'can-i', 'create', 'subnamespaceanchors.hnc.x-k8s.io', '-n', 'dev'])).stdout.trim() === 'yes', 15_000, 100);
  const nested = await hns(tenant, ['create', 'web', '-n', 'dev']);
  assert.equal(nested.code, 0, nested.stdout + nested.stderr);
  await until('namespace web', async () => (await runKubectl(tenant, ['get', 'namespace', 'web'])).code === 0, 15_000, 100);
  await until('acme lists dev among its children', async () => (await hns(tenant, ['tree', 'acme'])).stdout.includes('[s] web'), 15_000, 200);

  const tree = await hns(tenant, ['tree', 'acme']);
  assert.equal(tree.code, 0, tree.stdout + tree.stderr);
  assert.equal(tree.stdout, 'acme\n└── [s] dev\n    └── [s] web\n\n[s] indicates subnamespaces\n');
  // -A lists the namespaces the tenant may see: its own tree only.
  const all = await hns(tenant, ['tree', '-A']);
  assert.equal(all.code, 0, all.stdout + all.stderr);
  assert.equal(all.stdout, 'acme\n└── [s] dev\n    └── [s] web\n\n[s] indicates subnamespaces\n');

  const described = await hns(tenant, ['describe', 'dev']);
  assert.equal(described.code, 0, described.stdout + described.stderr);
  assert.match(described.stdout, /^Hierarchy configuration for namespace dev\n {2}Parent: acme\n {2}Children:\n {2}- web \(subnamespace\)\n {2}No conditions\n/);

  // Outside its tree the tenant is refused, as upstream's RBAC refuses.
  const foreign = await hns(tenant, ['tree', 'kube-system']);
  assert.notEqual(foreign.code, 0);
  assert.match(foreign.stdout, /Error reading namespace kube-system: namespaces "kube-system" is forbidden: User "tina" cannot get resource "namespaces"/);
});

test('set --allowCascadingDeletion on a namespace the tenant administers', async () => {
  const set = await hns(tenant, ['set', 'acme', '--allowCascadingDeletion']);
  assert.equal(set.code, 0, set.stdout + set.stderr);
  assert.match(set.stdout, /Allowing cascading deletion on 'acme'/);
  assert.match(set.stdout, /Succesfully updated 1 property of the hierarchical configuration of acme/);
  const spec = await kubectl(admin, ['get', 'hierarchyconfigurations.hnc.x-k8s.io', 'hierarchy', '-n', 'acme', '-o', 'jsonpath={.spec.allowCascadingDeletion}']);
  assert.equal(spec, 'true');
  const again = await hns(tenant, ['set', 'acme', '--allowCascadingDeletion']);
  assert.match(again.stdout, /Cascading deletion for 'acme' is already set to true; unchanged/);
});

test('config set-resource is the cluster admin\'s; what it configures propagates through the tenant\'s tree', async () => {
  const refused = await hns(tenant, ['config', 'set-resource', 'secrets', '--mode', 'Propagate']);
  assert.notEqual(refused.code, 0);
  assert.match(refused.stdout, /hncconfigurations\.hnc\.x-k8s\.io "config" is forbidden: User "tina" cannot/);
  const set = await hns(admin, ['config', 'set-resource', 'secrets', '--mode', 'Propagate']);
  assert.equal(set.code, 0, set.stdout + set.stderr);
  await until('the config names secrets', async () => (await kubectl(admin, ['get', 'hncconfigurations.hnc.x-k8s.io', 'config', '-o', 'jsonpath={.spec.resources[0].resource}'])) === 'secrets');

  await kubectl(tenant, ['create', 'secret', 'generic', 'db', '-n', 'acme', '--from-literal=password=s3cret']);
  await until('the secret reaches web', async () => (await runKubectl(tenant, ['get', 'secret', 'db', '-n', 'web'])).code === 0, 20_000, 200);
  const copy = JSON.parse(await kubectl(tenant, ['get', 'secret', 'db', '-n', 'web', '-o', 'json']));
  assert.equal(copy.metadata.labels['hnc.x-k8s.io/inherited-from'], 'acme');
  // The tenant's RoleBinding shows in its descendants too (copied; it grants there by inheritance).
  await until('the binding copy in dev', async () => (await runKubectl(tenant, ['get', 'rolebinding', 'tina-admin', '-n', 'dev'])).code === 0, 20_000, 200);
  // A copy is the hierarchy's: the tenant cannot remove it.
  const removed = await runKubectl(tenant, ['delete', 'secret', 'db', '-n', 'web']);
  assert.notEqual(removed.code, 0);
  assert.match(removed.stderr, /secrets "db" is forbidden: cannot delete object propagated from namespace "acme"/);

  const described = await hns(admin, ['config', 'describe']);
  assert.equal(described.code, 0, described.stdout + described.stderr);
  assert.match(described.stdout, /secrets/);

  // Deleting the subnamespace (its anchor) takes its copies with it: the namespace's cleanup may delete them.
  await kubectl(tenant, ['delete', 'subnamespaceanchors.hnc.x-k8s.io', 'web', '-n', 'dev']);
  await until('namespace web gone', async () => (await runKubectl(admin, ['get', 'namespace', 'web'])).code !== 0, 40_000, 200);
  const tree = await hns(tenant, ['tree', 'acme']);
  assert.equal(tree.stdout, 'acme\n└── [s] dev\n\n[s] indicates subnamespaces\n');
});

test('an HRQ counts its subtree under apiary serve: the status is written by the HRQ controller\'s own least-privilege identity', async () => {
  await kubectl(admin, ['get', 'clusterrolebinding', 'system:controller:hierarchicalresourcequota-controller']);
  const manifest = 'apiVersion: hnc.x-k8s.io/v1alpha2\nkind: HierarchicalResourceQuota\nmetadata:\n  name: acme-cm\n  namespace: acme\nspec:\n  hard:\n    configmaps: "100"\n';
  const applied = await runKubectl(admin, ['apply', '-f', '-'], { stdin: manifest });
  assert.equal(applied.code, 0, applied.stderr);
  await kubectl(tenant, ['create', 'configmap', 'hrq-one', '-n', 'dev']);
  await kubectl(tenant, ['create', 'configmap', 'hrq-two', '-n', 'dev']);
  const count = async (): Promise<number> => {
    let n = 0;
    const subtree = (await kubectl(admin, ['get', 'namespaces', '-l', 'acme.tree.hnc.x-k8s.io/depth', '-o', 'jsonpath={.items[*].metadata.name}'])).trim().split(/\s+/);
    for (const ns of subtree) n += (await kubectl(admin, ['get', 'configmaps', '-n', ns, '-o', 'name'])).split('\n').filter((l) => l !== '').length;
    return n;
  };
  await until(
    'status.used counts the subtree',
    async () => {
      const hrq = JSON.parse(await kubectl(admin, ['get', 'hrq', 'acme-cm', '-n', 'acme', '-o', 'json'])) as { status?: { hard?: Record<string, string>; used?: Record<string, string> } };
      return hrq.status?.hard?.['configmaps'] === '100' && hrq.status?.used?.['configmaps'] === String(await count());
    },
    20_000,
    200,
  );
});
