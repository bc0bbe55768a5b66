// What security costs: get and create of configmaps on apiary servers in one
// run, the same build and store (sqlite), driven by wrk over keep-alive
// connections:
//   - plain:  `serve --insecure-serving` (HTTP, no authentication, every request allowed);
//   - secure: `serve` as shipped (HTTPS, a bearer token from --token-auth-file,
//             RBAC: the user is bound to `edit` in the namespace only); on Linux
//             with more than one core TLS is done by the TLS front, a second
//             process (src/server/tls-front.ts);
//   - inline: the same with `--tls-termination inline` (TLS in the apiserver's thread).
// Rounds rotate the order of the three; the table gives medians of rates and
// of the per-round ratios to plain (target: security costs ≤ 15 %).
// On a shared machine rates swing with the neighbours' load, so the CPU time
// per request (from /proc) is reported too: the apiserver's own, and the
// TLS front's beside it (what the second core spends).
// Also the rate of new TLS connections (a handshake plus one GET each, from
// this process, 8 at a time) beside new plain connections, and what TLS alone
// costs here: a bare node:http server against node:https with apiary's
// serving certificate, each answering a canned body the size of the get's, in
// the same alternating rounds (the floor no server on Node's TLS goes under).
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
import { childPids, cpuSeconds, fmt, median, startApiary, startCeiling, type ChildServer } from './lib.js';

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

async function startSecure(extraArgs: string[] = []): Promise<ChildServer & { ca: string; admin: { cert: string; key: string }; serving: { certFile: string; keyFile: string } }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'apiary-bench-sec-'));
  const tokens = join(dataDir, 'tokens.csv');
  writeFileSync(tokens, `${TOKEN},bench-user,bench-uid\n`);
  const proc = spawnNode([join(REPO, 'dist/cli/main.js'), 'serve', '--port', '0', '--data-dir', dataDir, '--token-auth-file', tokens, '--log-level', 'warn', ...extraArgs], { stderr: 'inherit' });
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

type Secure = Awaited<ReturnType<typeof startSecure>>;
const plain = await startApiary({ storage: 'sqlite' });
const secure = await startSecure();
const inline = await startSecure(['--tls-termination', 'inline']);
const SERVERS = ['plain', 'secure', 'inline'] as const;
type Which = (typeof SERVERS)[number];
const server = (which: Which): ChildServer => (which === 'plain' ? plain : which === 'secure' ? secure : inline);
/** CPU seconds of a server: its own process and the processes it started (the TLS front). */
const cpuOf = (which: Which): { own: number; front: number } => {
  const pid = server(which).process.pid!;
  return { own: cpuSeconds(pid), front: childPids(pid).reduce((sum, child) => sum + cpuSeconds(child), 0) };
};
try {
  // The namespace and the tenant's binding; a configmap to read.
  for (const target of [plain, secure, inline]) {
    const tls = target === plain ? undefined : { ca: (target as Secure).ca, ...(target as Secure).admin };
    await send(target.origin, 'POST', '/api/v1/namespaces', { metadata: { name: NS } }, tls);
    await send(target.origin, 'POST', `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: 'probe' }, data: { k: 'v' } }, tls);
    if (tls === undefined) continue;
    const binding = {
      metadata: { name: 'bench-edit' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
      subjects: [{ kind: 'User', name: 'bench-user' }],
    };
    if ((await send(target.origin, 'POST', `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`, binding, tls)) !== 201) throw new Error('binding failed');
  }
  await new Promise((r) => setTimeout(r, 300));

  const auth = { Authorization: `Bearer ${TOKEN}` };
  const headersOf = (which: Which): Record<string, string> => (which === 'plain' ? {} : auth);
  // One request of each kind first: a setup that does not answer 2xx stops the run.
  for (const which of SERVERS) {
    const target = server(which);
    const dispatcher = new Agent({ connect: which === 'plain' ? {} : { ca: (target as Secure).ca } });
    const res = await request(`${target.origin}/api/v1/namespaces/${NS}/configmaps/probe`, { dispatcher, headers: headersOf(which) });
    const text = await res.body.text();
    await dispatcher.close();
    if (res.statusCode !== 200) throw new Error(`${target.origin}: GET probe answered ${res.statusCode}: ${text}`);
  }
  if (childPids(secure.process.pid!).length === 0) console.log('note: the secure server has no TLS front (one core, or not Linux): it does TLS inline');
  const body = JSON.stringify({ metadata: { name: 'cm-{i}' }, data: { key: 'x'.repeat(1000) } });
  const ops: Record<string, (prefix: string) => WrkRequest> = {
    create: (prefix) => ({ method: 'POST', path: `/api/v1/namespaces/${NS}/configmaps`, body: body.replace('cm-{i}', `${prefix}-{i}`) }),
    get: () => ({ method: 'GET', path: `/api/v1/namespaces/${NS}/configmaps/probe` }),
  };
  interface Series {
    rate: number[];
    /** Rate divided by plain's in the same round. */
    ratio: number[];
    /** µs of CPU per request: the apiserver's process, and its TLS front's. */
    cpu: number[];
    frontCpu: number[];
    errors: number;
  }
  const results: Record<string, Record<Which, Series>> = {};
  const series = (): Series => ({ rate: [], ratio: [], cpu: [], frontCpu: [], errors: 0 });
  for (const op of Object.keys(ops)) results[op] = { plain: series(), secure: series(), inline: series() };
  // Warm-up (JIT), not measured.
  for (const which of SERVERS) {
    await runWrk(server(which).origin, { concurrency, seconds: 2 }, { ...ops['get']!('w'), headers: headersOf(which) });
    await runWrk(server(which).origin, { concurrency, seconds: 2 }, { ...ops['create']!(`warm${which}`), headers: headersOf(which) });
  }
  for (let round = 0; round < rounds; round++) {
    for (const op of Object.keys(ops)) {
      // Each server goes first, second and third in turn.
      const order = SERVERS.map((_, i) => SERVERS[(i + round) % SERVERS.length]!);
      const rate = {} as Record<Which, number>;
      for (const which of order) {
        const before = cpuOf(which);
        const r = await runWrk(server(which).origin, { concurrency, seconds }, { ...ops[op]!(`r${round}${which}`), headers: headersOf(which) });
        const after = cpuOf(which);
        const s = results[op]![which];
        s.cpu.push(((after.own - before.own) / r.requests) * 1e6);
        s.frontCpu.push(((after.front - before.front) / r.requests) * 1e6);
        s.rate.push(r.rps);
        rate[which] = r.rps;
        s.errors += r.errors;
      }
      for (const which of SERVERS) results[op]![which].ratio.push(rate[which] / rate['plain']);
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
        const target = bare[which];
        const cpu0 = cpuSeconds(target.process.pid!);
        const r = await runWrk(target.origin, { concurrency, seconds }, { method: 'GET', path: '/' });
        floor.cpu[which].push(((cpuSeconds(target.process.pid!) - cpu0) / r.requests) * 1e6);
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
  const inlineConnections = await connectionRate(inline.origin, inline.ca, auth, seconds * 1000);

  console.log(`\nsecurity cost: sqlite store, concurrency ${concurrency}, ${rounds} rounds of ${seconds} s per phase (medians)\n`);
  console.log('| operation | server | req/s | rate / plain | apiserver CPU µs/req | TLS front CPU µs/req | total CPU µs/req | errors |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  const label: Record<Which, string> = { plain: 'plain HTTP, AlwaysAllow', secure: 'TLS + token + RBAC (as shipped)', inline: 'the same, TLS inline' };
  for (const [op, r] of Object.entries(results)) {
    for (const which of SERVERS) {
      const s = r[which];
      const total = s.cpu.map((c, i) => c + s.frontCpu[i]!);
      console.log(
        `| ${op} | ${label[which]} | ${fmt(median(s.rate))} | ${which === 'plain' ? '—' : `${fmt(median(s.ratio) * 100, 1)}%`} | ${fmt(median(s.cpu))} | ${which === 'secure' ? fmt(median(s.frontCpu)) : '—'} | ${fmt(median(total))} | ${s.errors} |`,
      );
    }
  }
  for (const which of ['secure', 'inline'] as const) {
    console.log(`per-round rate ratios, ${which}: ${Object.entries(results).map(([op, r]) => `${op} ${r[which].ratio.map((x) => (x * 100).toFixed(1) + '%').join(' ')}`).join('; ')}`);
  }
  console.log(`new connections/s (one GET each, 8 at a time): plain HTTP ${fmt(plainConnections)}, TLS handshakes ${fmt(tlsConnections)} (front), ${fmt(inlineConnections)} (inline)`);
  const tlsUs = median(floor.cpu.https) - median(floor.cpu.http);
  console.log(
    `TLS alone (bare node:http vs node:https, a ${getBytes}-byte body): ${fmt(median(floor.http))} vs ${fmt(median(floor.https))} req/s, https / http ${fmt(median(floor.ratio) * 100, 1)}%; ` +
      `CPU ${fmt(median(floor.cpu.http))} vs ${fmt(median(floor.cpu.https))} µs/req (TLS: ${fmt(tlsUs)} µs a request)`,
  );
  for (const [op, r] of Object.entries(results)) {
    const extra = median(r.inline.cpu) - median(r.plain.cpu);
    console.log(`${op}, TLS inline: security costs the apiserver ${fmt(extra)} µs a request, of which TLS alone ${fmt(tlsUs)} µs, authentication, RBAC and the rest ${fmt(extra - tlsUs)} µs`);
  }
} finally {
  await plain.stop();
  await secure.stop();
  await inline.stop();
}
