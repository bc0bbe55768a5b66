// What one controller-runtime envtest environment costs, apiary against the
// real binaries: envtest starts etcd, waits for its /health, starts the API
// server with envtest's flags and waits for /healthz over TLS. This script
// does the same steps with the same flags (certificates made beforehand, as
// envtest makes its own before starting anything), for
//   - kube-apiserver 1.32.4 + etcd 3.5 (test/compat/*/bin; the ceiling),
//   - apiary kube-apiserver (dist/, as npm installs it) + the same etcd,
//   - apiary with --storage memory (envtest's etcd still started, unused),
// interleaved run by run so each gets the same machine. Figures, medians of
// N runs after one warm-up round: start = spawn of etcd until the API server
// answers /healthz 200 (polled every 10 ms; envtest polls every 100 ms), RSS =
// API server (with its children) + etcd once ready, and the ratio to
// kube-apiserver's.
//
//   node --import tsx bench/envtest-start.ts [--runs N]

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildOnce, childPids, fmt, median, readRss } from './lib.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(values.runs);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const ETCD = path.join(REPO, 'test/compat/etcd-3.5/bin/etcd');
const KUBE_APISERVER = path.join(REPO, 'test/compat/kubernetes/bin/kube-apiserver');
for (const bin of [ETCD, KUBE_APISERVER]) {
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run the differential pass once (node scripts/run-tests.mjs test/compat/differential) to build it`);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** envtest's cert dir: a serving CA and apiserver.crt/.key, a client CA, the service-account signer (openssl, not timed). */
function certDir(): { dir: string; servingCa: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-bench-envtest-'));
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'serving-ca.key', '-out', 'serving-ca.crt', '-days', '1', '-subj', '/CN=serving-ca');
  ssl('req', ...ec, '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=localhost');
  fs.writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  ssl('x509', '-req', '-in', 'apiserver.csr', '-CA', 'serving-ca.crt', '-CAkey', 'serving-ca.key', '-CAcreateserial', '-out', 'apiserver.crt', '-days', '1', '-extfile', 'san.ext');
  ssl('req', '-x509', ...ec, '-keyout', 'client-ca.key', '-out', 'client-cert-auth-ca.crt', '-days', '1', '-subj', '/CN=client-ca');
  ssl('req', '-x509', ...ec, '-keyout', 'sa-signer.key', '-out', 'sa-signer.crt', '-days', '1', '-subj', '/CN=sa-signer');
  return { dir, servingCa: fs.readFileSync(path.join(dir, 'serving-ca.crt'), 'utf8') };
}

function healthz(url: string, ca: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca, agent: false, timeout: 1000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

async function etcdHealthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/health`);
    await res.text();
    return res.ok;
  } catch {
    return false;
  }
}

async function poll(what: string, check: () => Promise<boolean>, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (child.exitCode !== null) throw new Error(`${what}: the process exited (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error(`${what}: not ready in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const rssTree = (pid: number): number => [pid, ...childPids(pid)].reduce((sum, p) => sum + (Number.isNaN(readRss(p)) ? 0 : readRss(p)), 0);

interface Target {
  name: string;
  command: (flags: string[]) => { file: string; args: string[] };
}

/** One envtest-style start: etcd, then the API server; returns ms to ready and RSS once ready. */
async function once(target: Target): Promise<{ startMs: number; apiserverRss: number; etcdRss: number }> {
  const certs = certDir();
  const [etcdPort, peerPort, apiPort] = [await freePort(), await freePort(), await freePort()];
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  const children: ChildProcess[] = [];
  try {
    const t0 = performance.now();
    const etcd = spawn(ETCD, [
      `--advertise-client-urls=${etcdUrl}`,
      `--data-dir=${path.join(certs.dir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      '--unsafe-no-fsync=true',
    ], { stdio: 'ignore' });
    children.push(etcd);
    await poll('etcd', () => etcdHealthy(etcdUrl), etcd);
    const flags = [
      '--allow-privileged=true',
      '--authorization-mode=RBAC',
      '--bind-address=127.0.0.1',
      `--cert-dir=${certs.dir}`,
      `--client-ca-file=${path.join(certs.dir, 'client-cert-auth-ca.crt')}`,
      '--disable-admission-plugins=ServiceAccount',
      `--etcd-servers=${etcdUrl}`,
      `--secure-port=${apiPort}`,
      `--service-account-issuer=https://127.0.0.1:${apiPort}/`,
      `--service-account-key-file=${path.join(certs.dir, 'sa-signer.crt')}`,
      `--service-account-signing-key-file=${path.join(certs.dir, 'sa-signer.key')}`,
      '--service-cluster-ip-range=10.0.0.0/24',
    ];
    const { file, args } = target.command(flags);
    const apiserver = spawn(file, args, { stdio: 'ignore' });
    children.push(apiserver);
    await poll(target.name, async () => (await healthz(`https://127.0.0.1:${apiPort}/healthz`, certs.servingCa)) === 200, apiserver);
    const startMs = performance.now() - t0;
    return { startMs, apiserverRss: rssTree(apiserver.pid!), etcdRss: readRss(etcd.pid!) };
  } finally {
    for (const child of children.reverse()) await stop(child);
    fs.rmSync(certs.dir, { recursive: true, force: true });
  }
}

buildOnce();
const apiaryMain = path.join(REPO, 'dist/cli/kube-apiserver-main.js');
const targets: Target[] = [
  { name: 'kube-apiserver 1.32.4 + etcd 3.5 (ceiling)', command: (flags) => ({ file: KUBE_APISERVER, args: flags }) },
  { name: 'apiary kube-apiserver + etcd 3.5', command: (flags) => ({ file: process.execPath, args: [apiaryMain, ...flags] }) },
  { name: 'apiary kube-apiserver --storage memory', command: (flags) => ({ file: process.execPath, args: [apiaryMain, ...flags, '--storage=memory'] }) },
];
const results = new Map<string, { startMs: number[]; rss: number[]; etcdRss: number[] }>(targets.map((t) => [t.name, { startMs: [], rss: [], etcdRss: [] }]));
for (let i = 0; i <= runs; i++) {
  for (const target of targets) {
    const r = await once(target);
    if (i === 0) continue; // warm-up round: page cache, Go and Node start-up files
    const row = results.get(target.name)!;
    row.startMs.push(r.startMs);
    row.rss.push(r.apiserverRss);
    row.etcdRss.push(r.etcdRss);
  }
}
const ceiling = results.get(targets[0]!.name)!;
const MiB = 1024 * 1024;
console.log(`runs: ${runs} (median, after one warm-up round); start = etcd spawned → API server /healthz 200; RSS once ready`);
for (const target of targets) {
  const r = results.get(target.name)!;
  const start = median(r.startMs);
  const rss = median(r.rss);
  const total = median(r.rss.map((v, i) => v + r.etcdRss[i]!));
  console.log(
    `${target.name.padEnd(44)} start ${fmt(start).padStart(6)} ms (${fmt(start / median(ceiling.startMs), 2)}x)` +
      `  API server RSS ${fmt(rss / MiB).padStart(4)} MiB (${fmt(rss / median(ceiling.rss), 2)}x)` +
      `  with etcd ${fmt(total / MiB).padStart(4)} MiB (${fmt(total / median(ceiling.rss.map((v, i) => v + ceiling.etcdRss[i]!)), 2)}x)`,
  );
}
