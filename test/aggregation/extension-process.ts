// Upstream's extension API servers as child processes for the aggregation
// tests: k8s.io/sample-apiserver v0.32 (test/compat/sample-apiserver) and
// metrics-server v0.7 (test/compat/metrics-server), built by
// scripts/run-tests.mjs. Each runs on 127.0.0.1 at a free port, in its own
// process group, with its log kept in a file; it authenticates and authorizes
// through apiary (TokenReview, SubjectAccessReview, the
// extension-apiserver-authentication ConfigMap) with the kubeconfig given.
//
// Contract:
// - BINARIES: where the binaries are ($SAMPLE_APISERVER_BIN, $METRICS_SERVER_BIN,
//   $ETCD35_BIN, $KWOK_BIN, else the modules' bin/ folders); missing(...) lists
//   the absent ones (the tests skip, saying so).
// - servingCertificate(dir, namespace, name) writes a CA and a serving
//   certificate for `<name>.<namespace>.svc` (the name the aggregator checks).
// - launch(name, binary, args, dir) starts a process; kill() is SIGKILL (a
//   crash), stop() SIGTERM then SIGKILL; both wait for the exit. log() reads the log.
// - registerExtension(kubectl, …) makes the ExternalName Service to
//   `localhost` and the APIService with the CA as caBundle.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCertificateAuthority, issueServingCertificate } from '../../src/auth/pki/pki.js';

const COMPAT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../compat');

export const BINARIES = {
  sampleApiserver: process.env['SAMPLE_APISERVER_BIN'] ?? join(COMPAT, 'sample-apiserver/bin/sample-apiserver'),
  metricsServer: process.env['METRICS_SERVER_BIN'] ?? join(COMPAT, 'metrics-server/bin/metrics-server'),
  etcd: process.env['ETCD35_BIN'] ?? join(COMPAT, 'etcd-3.5/bin/etcd'),
  kwok: process.env['KWOK_BIN'] ?? join(COMPAT, 'kwok/bin/kwok'),
};

/** The absent binaries among those named; a skip reason, or false when all are built. */
export function missing(...names: (keyof typeof BINARIES)[]): string | false {
  const absent = names.filter((n) => !existsSync(BINARIES[n])).map((n) => BINARIES[n]);
  return absent.length > 0 ? `not built: ${absent.join(', ')} (scripts/run-tests.mjs builds them with Go)` : false;
}

export interface ServingFiles {
  caPem: string;
  certFile: string;
  keyFile: string;
}

/** A CA and a serving certificate for `<name>.<namespace>.svc`, as files in dir. */
export async function servingCertificate(dir: string, namespace: string, name: string): Promise<ServingFiles> {
  const ca = await createCertificateAuthority(`${name}-ca`);
  const serving = await issueServingCertificate(ca, [`${name}.${namespace}.svc`, 'localhost']);
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  writeFileSync(certFile, serving.certPem);
  writeFileSync(keyFile, serving.keyPem, { mode: 0o600 });
  return { caPem: ca.certPem, certFile, keyFile };
}

export interface Program {
  process: ChildProcess;
  logPath: string;
  log(): string;
  exited(): boolean;
  /** SIGKILL, as a crash; resolves once it exited. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after 5 s. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) signal(child, 'SIGKILL');
});

function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    // Already gone.
  }
}

export function launch(name: string, binary: string, args: string[], dir: string): Program {
  const logPath = join(dir, `${name}.log`);
  const log = createWriteStream(logPath);
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exit = new Promise<void>((done) => {
    const finish = (): void => {
      live.delete(child);
      log.end(() => done());
    };
    child.once('exit', finish);
    child.once('error', (err) => {
      log.write(`\nspawn ${binary} failed: ${err.message}\n`);
      finish();
    });
  });
  const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
  return {
    process: child,
    logPath,
    log: () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : ''),
    exited,
    async kill() {
      signal(child, 'SIGKILL');
      await exit;
    },
    async stop() {
      signal(child, 'SIGTERM');
      const killer = setTimeout(() => signal(child, 'SIGKILL'), 5000);
      await exit;
      clearTimeout(killer);
    },
  };
}

/**
 * The ExternalName Service `<name>` in `namespace` to `localhost` on `port`
 * (upstream refuses loopback addresses in Endpoints) and the APIService of
 * group/version pointing at it, its CA as caBundle. Applied with kubectl.
 */
export function extensionManifests(options: { namespace: string; name: string; port: number; group: string; version: string; caPem: string; groupPriorityMinimum?: number; versionPriority?: number }): string {
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: options.namespace, name: options.name },
    spec: { type: 'ExternalName', externalName: 'localhost', ports: [{ port: options.port }] },
  };
  const apiService = {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: { name: `${options.version}.${options.group}` },
    spec: {
      group: options.group,
      version: options.version,
      service: { namespace: options.namespace, name: options.name, port: options.port },
      caBundle: Buffer.from(options.caPem).toString('base64'),
      groupPriorityMinimum: options.groupPriorityMinimum ?? 1000,
      versionPriority: options.versionPriority ?? 15,
    },
  };
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [service, apiService] });
}
