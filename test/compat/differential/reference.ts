// The reference side of the differential test: a real kube-apiserver 1.32 on
// etcd 3.5 with a kube-controller-manager beside it, on free 127.0.0.1 ports,
// everything in one temporary directory that stop() removes.
//
// - etcd: test/helpers/etcd.ts with the etcd 3.5 binary.
// - kube-apiserver: a static token file gives the user `differential` the
//   group system:masters; service-account signing keys are made here; its
//   serving certificate is self-signed in its own --cert-dir; the default
//   admission plugins (what a user of a fresh cluster gets).
// - kube-controller-manager, with a kubeconfig for that token, runs only the
//   controllers that keep the reference a plain cluster without racing the
//   cases: namespace (deletion), serviceaccount and serviceaccount-token (the
//   `default` account the ServiceAccount admission plugin needs for pods),
//   garbage-collector, and pvc-protection (it only removes the
//   kubernetes.io/pvc-protection finalizer from deleted claims no pod uses, and
//   adds it to claims without it; the cases wait for it, as apiary runs its own). The workload controllers (deployment, replicaset,
//   replication controller, endpoints, resource quota, root-CA publisher…)
//   are left out: they would write into the objects the cases make, at times
//   no case can predict.
//
// Binaries: $KUBE_APISERVER_BIN / $KUBE_CONTROLLER_MANAGER_BIN / $ETCD35_BIN,
// else the bin/ folders of test/compat/kubernetes and test/compat/etcd-3.5
// (scripts/run-tests.mjs builds them).

import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEtcd, type EtcdCluster } from '../../helpers/etcd.js';
import { send, type Target } from './client.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export const REFERENCE_BINARIES = {
  kubeApiserver: process.env['KUBE_APISERVER_BIN'] ?? resolve(HERE, '../kubernetes/bin/kube-apiserver'),
  kubeControllerManager: process.env['KUBE_CONTROLLER_MANAGER_BIN'] ?? resolve(HERE, '../kubernetes/bin/kube-controller-manager'),
  etcd: process.env['ETCD35_BIN'] ?? resolve(HERE, '../etcd-3.5/bin/etcd'),
};

/** The controllers the reference's kube-controller-manager runs (see above for why only these). */
export const REFERENCE_CONTROLLERS = [
  'namespace-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'garbage-collector-controller',
  'persistentvolumeclaim-protection-controller',
];

export interface ReferenceCluster {
  target: Target;
  stop(): Promise<void>;
  /** The kube-apiserver's process id and etcd's data directories (benchmarks read their CPU and memory). */
  apiserverPid?: number;
  etcdDataDirs?: string[];
  /** etcd's client URLs (benchmarks read what it stores). */
  etcdEndpoints?: string[];
  /** A kubeconfig for the admin token (system:masters). */
  kubeconfig?: string;
  /** Stops kube-apiserver and starts it again on the same etcd and port; resolves once /readyz answers 200 (benchmarks time it). */
  restartApiserver?: () => Promise<void>;
}

interface Child {
  name: string;
  process: ChildProcess;
  logTail: string;
  exited: Promise<void>;
}

const live = new Set<ChildProcess>();
let hookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function launch(name: string, binary: string, args: string[]): Child {
  if (!hookInstalled) {
    hookInstalled = true;
    process.on('exit', () => {
      for (const c of live) killGroup(c, 'SIGKILL');
    });
  }
  const proc = spawn(binary, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(proc);
  const child: Child = { name, process: proc, logTail: '', exited: Promise.resolve() };
  proc.stderr?.setEncoding('utf8');
  proc.stderr?.on('data', (chunk: string) => {
    child.logTail = (child.logTail + chunk).slice(-6000);
  });
  child.exited = new Promise((done) => {
    proc.on('exit', () => {
      live.delete(proc);
      done();
    });
    proc.on('error', (err) => {
      live.delete(proc);
      child.logTail += `\nspawn ${binary} failed: ${err.message}`;
      done();
    });
  });
  return child;
}

async function stopChild(child: Child): Promise<void> {
  killGroup(child.process, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child.process, 'SIGKILL'), 5000);
  await child.exited;
  clearTimeout(timer);
}

/** Polls /readyz until it answers 200 (fails early if the process died). */
async function waitReady(target: Target, child: Child, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`${child.name} exited before it was ready:\n${child.logTail}`);
    }
    try {
      const reply = await send(target, 'GET', '/readyz', {}, undefined, 2000);
      if (reply.status === 200) return;
      last = `${reply.status} ${reply.body.toString('utf8')}`;
    } catch (err) {
      last = String(err);
    }
    if (Date.now() > deadline) throw new Error(`${child.name} not ready after ${timeoutMs} ms (${last}):\n${child.logTail}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export function referenceBinariesMissing(): string[] {
  return Object.values(REFERENCE_BINARIES).filter((path) => !existsSync(path));
}

export async function startReference(
  options: {
    startTimeoutMs?: number;
    /** More --token-auth-file lines (token,user,uid[,"groups"]). */ extraTokens?: string[];
    /** kube-controller-manager's --controllers (default REFERENCE_CONTROLLERS). */ controllers?: string[];
    /** More kube-apiserver flags. */ apiserverArgs?: string[];
    /** More kube-controller-manager flags. */ controllerManagerArgs?: string[];
    /** More etcd flags (a benchmark gives apiary's etcd the same). */ etcdArgs?: string[];
    /** Give kube-controller-manager the serving certificate as --root-ca-file (the kube-root-ca.crt publisher's CA). */ rootCaFile?: boolean;
  } = {},
): Promise<ReferenceCluster> {
  const missing = referenceBinariesMissing();
  if (missing.length > 0) throw new Error(`reference binaries missing (scripts/run-tests.mjs builds them): ${missing.join(', ')}`);
  const timeoutMs = options.startTimeoutMs ?? 90_000;
  const dir = mkdtempSync(join(tmpdir(), 'apiary-reference-'));
  const children: Child[] = [];
  let etcd: EtcdCluster | undefined;
  const stop = async (): Promise<void> => {
    for (const child of children.reverse()) await stopChild(child);
    children.length = 0;
    await etcd?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    etcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd, ...(options.etcdArgs === undefined ? {} : { extraArgs: options.etcdArgs }) });
    const token = randomBytes(24).toString('hex');
    writeFileSync(join(dir, 'tokens.csv'), [`${token},differential,differential-uid,"system:masters"`, ...(options.extraTokens ?? [])].join('\n') + '\n', { mode: 0o600 });
    const keys = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    });
    writeFileSync(join(dir, 'sa.key'), keys.privateKey, { mode: 0o600 });
    writeFileSync(join(dir, 'sa.pub'), keys.publicKey);
    const port = await freePort();
    const target: Target = { name: 'reference', base: `https://127.0.0.1:${port}`, token };
    const apiserverArgs = [
      `--etcd-servers=${etcd.endpoints.join(',')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'certs')}`,
      `--token-auth-file=${join(dir, 'tokens.csv')}`,
      '--authorization-mode=Node,RBAC',
      '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
      `--service-account-key-file=${join(dir, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      // apiary's default range, so allocated cluster IPs look alike.
      '--service-cluster-ip-range=10.0.0.0/24',
      '--profiling=false',
      '--v=0',
      ...(options.apiserverArgs ?? []),
    ];
    let apiserver = launch('kube-apiserver', REFERENCE_BINARIES.kubeApiserver, apiserverArgs);
    children.push(apiserver);
    await waitReady(target, apiserver, timeoutMs);

    const kubeconfig = join(dir, 'controller-manager.kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: reference',
        '  cluster:',
        `    server: ${target.base}`,
        '    insecure-skip-tls-verify: true',
        'contexts:',
        '- name: reference',
        '  context: {cluster: reference, user: differential}',
        'current-context: reference',
        'users:',
        '- name: differential',
        `  user: {token: ${token}}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const controllers = launch('kube-controller-manager', REFERENCE_BINARIES.kubeControllerManager, [
      `--kubeconfig=${kubeconfig}`,
      `--controllers=${(options.controllers ?? REFERENCE_CONTROLLERS).join(',')}`,
      `--service-account-private-key-file=${join(dir, 'sa.key')}`,
      ...(options.rootCaFile === true ? [`--root-ca-file=${join(dir, 'certs', 'apiserver.crt')}`] : []),
      ...(options.controllerManagerArgs ?? []),
      '--use-service-account-credentials=false',
      '--leader-elect=false',
      '--secure-port=0',
      '--v=0',
    ]);
    children.push(controllers);
    // The controller manager is ready once its service account controller has given `default` its account.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (controllers.process.exitCode !== null) throw new Error(`kube-controller-manager exited:\n${controllers.logTail}`);
      const reply = await send(target, 'GET', '/api/v1/namespaces/default/serviceaccounts/default');
      if (reply.status === 200) break;
      if (Date.now() > deadline) throw new Error(`kube-controller-manager did not create the default service account:\n${controllers.logTail}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    const cluster: ReferenceCluster = { target, stop, kubeconfig, etcdDataDirs: etcd.dataDirs, etcdEndpoints: etcd.endpoints };
    if (apiserver.process.pid !== undefined) cluster.apiserverPid = apiserver.process.pid;
    cluster.restartApiserver = async () => {
      await stopChild(apiserver);
      const next = launch('kube-apiserver', REFERENCE_BINARIES.kubeApiserver, apiserverArgs);
      children[children.indexOf(apiserver)] = next;
      apiserver = next;
      if (next.process.pid !== undefined) cluster.apiserverPid = next.process.pid;
      await waitReady(target, next, timeoutMs);
    };
    return cluster;
  } catch (err) {
    await stop();
    throw err;
  }
}
