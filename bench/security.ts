// What security costs: get and create of configmaps on two apiary servers in
// one run, the same build and store (sqlite), driven by wrk over keep-alive
// connections:
//   - plain:  `serve --insecure-serving` (HTTP, no authentication, every request allowed);
//   - secure: `serve` as shipped (HTTPS, a bearer token from --token-auth-file,
//             RBAC: the user is bound to `edit` in the namespace only).
// Rounds alternate the order of the two; the table gives medians of rates and
// of the per-round ratios secure / plain (target: security costs ≤ 15 %).
// On a shared machine rates swing with the neighbours' load, so the server's
// own CPU time per request (from /proc) is reported too: its ratio
// plain / secure is what security costs the server, whatever else runs.
// Also the rate of new TLS connections (a handshake plus one GET each, from
// this process, --concurrency at a time) beside new plain connections, and
// what TLS alone costs here: a bare node:http server against node:https with
// apiary's serving certificate, each answering a canned body the size of the
// get's, in the same alternating rounds (the floor no server on Node's TLS
// goes under).
//
//   node --import tsx bench/security.ts [--seconds 3] [--rounds 3] [--concurrency 32]

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { cpuSeconds, fmt, median, startApiary, startCeiling, type ChildServer } from './lib.js';

import { requireWrk, runWrk, type WrkRequest } from './wrk.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '32' },
  },
});
const seconds = Number(values.seconds);
const rounds = Number(values.rounds);
const concurrency = Number(values.concurrency);
const REPO = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = 'bench-token-0123456789';
const NS = 'bench';

requireWrk();

async function startSecure(): Promise<ChildServer & { ca: string; admin: { cert: string; key: string }; serving: { certFile: string; keyFile: string } }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-bench-sec-'));
  const tokens = join(dataDir, 'tokens.csv');
  writeFileSync(tokens, `${TOKEN},bench-user,bench-uid\n`);
  const proc = spawnNode([join(REPO, 'dist/cli/main.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--token-auth-file', tokens, '--log-level', 'warn'], { stderr: 'inherit' });
  const origin = await proc.url;
  const ca = readFileSync(join(dataDir, 'pki/ca.crt'), 'utf8');
  const admin = { cert: readFileSync(join(dataDir, 'pki/admin.crt'), 'utf8'), key: readFileSync(join(dataDir, 'pki/admin.key'), 'utf8') };
  return {
    origin,
    process: proc.child,
    rss: () => NaN,
    stop: async () => {
      await proc.stop('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    },
    ca,
    admin,
    serving: { certFile: join(dataDir, 'pki/apiserver.crt'), keyFile: join(dataDir, 'pki/apiserver.key') },
  };
}

async function send(origin: string, method: 'POST' | 'GET', path: string, body: unknown, tls?: { ca: string; cert?: string; key?: string }): Promise<number> {
  const dispatcher = new Agent({ connect: tls ?? {} });
  try {
    const res = await request(origin + path, {
      method,
      dispatcher,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    await res.body.text();
    return res.statusCode;
  } finally {
    await dispatcher.close();
  }
}

/** New connections per second: each request on its own connection (a TLS handshake each for https). */
async function connectionRate(origin: string, ca: string | undefined, headers: Record<string, string>, ms: number): Promise<number> {
  const url = new URL('/api/v1/namespaces/bench/configmaps/probe', origin);
  const lib = url.protocol === 'https:' ? https : http;
  let done = 0;
  const end = Date.now() + ms;
  const one = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const req = lib.get(url, { agent: false, headers, ...(ca !== undefined ? { ca } : {}) }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
          else resolve();
        });
      });
      req.on('error', reject);
    });
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (Date.now() < end) {
        await one();
        done++;
      }
    }),
  );
  return done / ((Date.now() - t0) / 1000);
}

const plain = await startApiary({ storage: 'sqlite' });
const secure = await startSecure();
try {
  const adminTls = { ca: secure.ca, ...secure.admin };
  // The namespace and the tenant's binding; a configmap to read.
  for (const [origin, tls] of [[plain.origin, undefined], [secure.origin, adminTls]] as const) {
    await send(origin, 'POST', '/api/v1/namespaces', { metadata: { name: NS } }, tls);
    await send(origin, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'probe' }, data: { k: 'v' } }, tls);
  }
  const binding = {
    metadata: { name: 'bench-edit' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
    subjects: [{ kind: 'User', name: 'bench-user' }],
  };
  if ((await send(secure.origin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, binding, adminTls)) !== 201) throw new Error('binding failed');
  await new Promise((r) => setTimeout(r, 300));

  const auth = { Authorization: `Bearer ${TOKEN}` };
  // One request of each kind first: a setup that does not answer 2xx stops the run.
  for (const [origin, tls, headers] of [[plain.origin, undefined, {}], [secure.origin, { ca: secure.ca }, auth]] as const) {
    const dispatcher = new Agent({ connect: tls ?? {} });
    const res = await request(`${origin}/api/v1/namespaces/${NS}/configmaps/probe`, { dispatcher, headers });
    const text = await res.body.text();
    await dispatcher.close();
    if (res.statusCode !== 200) throw new Error(`${origin}: GET probe answered ${res.statusCode}: ${text}`);
  }
  const body = JSON.stringify({ metadata: { name: 'cm-{i}' }, data: { key: 'x'.repeat(1000) } });
  const ops: Record<string, (prefix: string) => WrkRequest> = {
    create: (prefix) => ({ method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: body.replace('cm-{i}', `${prefix}-{i}`) }),
    get: () => ({ method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps/probe` }),
  };
  const results: Record<string, { plain: number[]; secure: number[]; ratio: number[]; errors: number; cpu: { plain: number[]; secure: number[]; ratio: number[] } }> = {};
  for (const op of Object.keys(ops)) results[op] = { plain: [], secure: [], ratio: [], errors: 0, cpu: { plain: [], secure: [], ratio: [] } };
  // Warm-up (JIT), not measured.
  for (const [origin, headers] of [[plain.origin, {}], [secure.origin, auth]] as const) {
    await runWrk(origin, { concurrency, seconds: 2 }, { ...ops['get']!('w'), headers });
    await runWrk(origin, { concurrency, seconds: 2 }, { ...ops['create']!(`warm${origin.length}`), headers });
  }
  for (let round = 0; round < rounds; round++) {
    for (const op of Object.keys(ops)) {
      const order = round % 2 === 0 ? (['plain', 'secure'] as const) : (['secure', 'plain'] as const);
      const rate: Record<string, number> = {};
      const cpuPerRequest: Record<string, number> = {};
      for (const which of order) {
        const server = which === 'plain' ? plain : secure;
        const cpu0 = cpuSeconds(server.process.pid!);
        const r = await runWrk(server.origin, { concurrency, seconds }, { ...ops[op]!(`r${round}${which}`), headers: which === 'secure' ? auth : {} });
        cpuPerRequest[which] = (cpuSeconds(server.process.pid!) - cpu0) / r.requests;
        rate[which] = r.rps;
        results[op]!.errors += r.errors;
        results[op]![which].push(r.rps);
        results[op]!.cpu[which].push(cpuPerRequest[which]! * 1e6);
      }
      results[op]!.ratio.push(rate['secure']! / rate['plain']!);
      results[op]!.cpu.ratio.push(cpuPerRequest['plain']! / cpuPerRequest['secure']!);
    }
  }
  // TLS alone: bare servers, a canned body the size of the get's answer.
  const getBytes = Buffer.byteLength(
    await (await request(`${plain.origin}/api/v1/namespaces/${NS}/configmaps/probe`, { dispatcher: new Agent() })).body.text(),
  );
  const bare = { http: await startCeiling(getBytes), https: await startCeiling(getBytes, secure.serving) };
  const floor = { http: [] as number[], https: [] as number[], ratio: [] as number[], cpu: { http: [] as number[], https: [] as number[] } };
  try {
    for (let round = 0; round < rounds; round++) {
      const rate: Record<string, number> = {};
      for (const which of round % 2 === 0 ? (['http', 'https'] as const) : (['https', 'http'] as const)) {
        const server = bare[which];
        const cpu0 = cpuSeconds(server.process.pid!);
        const r = await runWrk(server.origin, { concurrency, seconds }, { method: 'GET', path: '/' });
        floor.cpu[which].push(((cpuSeconds(server.process.pid!) - cpu0) / r.requests) * 1e6);
        floor[which].push(r.rps);
        rate[which] = r.rps;
      }
      floor.ratio.push(rate['https']! / rate['http']!);
    }
  } finally {
    await bare.http.stop();
    await bare.https.stop();
  }

  const plainConnections = await connectionRate(plain.origin, undefined, {}, seconds * 1000);
  const tlsConnections = await connectionRate(secure.origin, secure.ca, auth, seconds * 1000);

  console.log(`\nsecurity cost: sqlite store, concurrency ${concurrency}, ${rounds} rounds of ${seconds} s per phase (medians)\n`);
  console.log('| operation | plain HTTP, AlwaysAllow req/s | TLS + token + RBAC req/s | secure / plain | server CPU µs/req plain | secure | plain / secure | errors |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [op, r] of Object.entries(results)) {
    console.log(
      `| ${op} | ${fmt(median(r.plain))} | ${fmt(median(r.secure))} | ${fmt(median(r.ratio) * 100, 1)}% | ${fmt(median(r.cpu.plain))} | ${fmt(median(r.cpu.secure))} | ${fmt(median(r.cpu.ratio) * 100, 1)}% | ${r.errors} |`,
    );
  }
  console.log(`\nper-round rate ratios: ${Object.entries(results).map(([op, r]) => `${op} ${r.ratio.map((x) => (x * 100).toFixed(1) + '%').join(' ')}`).join('; ')}`);
  console.log(`per-round CPU ratios: ${Object.entries(results).map(([op, r]) => `${op} ${r.cpu.ratio.map((x) => (x * 100).toFixed(1) + '%').join(' ')}`).join('; ')}`);
  console.log(`new connections/s (one GET each, 8 at a time): plain HTTP ${fmt(plainConnections)}, TLS handshakes ${fmt(tlsConnections)}`);
  const tlsUs = median(floor.cpu.https) - median(floor.cpu.http);
  console.log(
    `TLS alone (bare node:http vs node:https, a ${getBytes}-byte body): ${fmt(median(floor.http))} vs ${fmt(median(floor.https))} req/s, https / http ${fmt(median(floor.ratio) * 100, 1)}%; ` +
      `CPU ${fmt(median(floor.cpu.http))} vs ${fmt(median(floor.cpu.https))} µs/req (TLS: ${fmt(tlsUs)} µs a request)`,
  );
  for (const [op, r] of Object.entries(results)) {
    const extra = median(r.cpu.secure) - median(r.cpu.plain);
    console.log(`${op}: security costs the server ${fmt(extra)} µs a request, of which TLS alone ${fmt(tlsUs)} µs, authentication, RBAC and the rest ${fmt(extra - tlsUs)} µs`);
  }
} finally {
  await plain.stop();
  await secure.stop();
}
