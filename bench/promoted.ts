// What each create leaves to the old generation: `apiary serve` (dist/, so
// `npm run build` first; SQLite, TLS, a system:masters token) under
// --trace-gc-nvp, driven by wrk at concurrency 32 with 1 KiB ConfigMap
// creates; per run, the bytes its young collections promoted per create and
// their pause per create. What each create keeps (the watch cache's stored
// value and entry, the controllers' slim copies) is about 1.5 KB; what is
// promoted beyond that outlived a young collection only to die in the old
// generation, where full collections pay for it. The first run after the
// warm-up carries some of the start's garbage: read the later ones.
// bench/README.md (the side-by-side's section) tells what this found.
//
//   node --import tsx bench/promoted.ts [seconds=5] [runs=3] [watchers=0]
//   (watchers: HTTP watches of the ConfigMaps, read and dropped, as an informer's)
//   (APIARY_ARGS: more `serve` flags, e.g. --controllers=false;
//   APIARY_NODE_FLAGS: Node and V8 flags for apiary's process, as bench/profile-ops.ts's)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { spawnNode } from '../test/helpers/apiary-process.js';
import { runWrk, type WrkRequest } from './wrk.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const seconds = Number(process.argv[2] ?? 5);
const runs = Number(process.argv[3] ?? 3);
const watchers = Number(process.argv[4] ?? 0);
const TOKEN = 'promoted-token-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'apiary-promoted-'));
writeFileSync(join(dataDir, 'tokens.csv'), `${TOKEN},promoted-admin,promoted-uid,"system:masters"\n`);
const words = (name: string): string[] => process.env[name]?.split(' ').filter(Boolean) ?? [];

// The young collections (gc=s) of the run being measured.
let promoted = 0;
let scavenges = 0;
let pauseMs = 0;
let counting = false;
const serve = ['serve', '--port', '0', '--data-dir', dataDir, '--token-auth-file', join(dataDir, 'tokens.csv'), '--log-level', 'warn', ...words('APIARY_ARGS')];
const nodeFlags = [...words('APIARY_NODE_FLAGS'), '--trace-gc-nvp'];
const proc = spawnNode([...nodeFlags, join(REPO, 'dist/cli/main.js'), ...serve], {
  stderr: 'inherit',
  onLine: (line) => {
    if (!counting || !line.includes('gc=s ')) return;
    const p = /promoted=(\d+)/.exec(line);
    const t = /pause=([\d.]+)/.exec(line);
    if (p) promoted += Number(p[1]);
    if (t) pauseMs += Number(t[1]);
    scavenges++;
  },
}, 'apiary');
const agent = new Agent({ connect: { rejectUnauthorized: false } });
const watching = new AbortController();
try {
  const origin = await proc.url;
  const namespace = JSON.stringify({ metadata: { name: 'bench' } });
  const res = await request(`${origin}/api/v1/namespaces`, { method: 'POST', dispatcher: agent, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: namespace });
  await res.body.text();
  const headers = { Authorization: `Bearer ${TOKEN}` };
  const creates = (tag: string): WrkRequest => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${tag}-{i}` }, data: { payload: 'x'.repeat(1024) } });
    return { method: 'POST', path: '/api/v1/namespaces/bench/configmaps', headers, body };
  };
  for (let w = 0; w < watchers; w++) {
    const watch = await request(`${origin}/api/v1/namespaces/bench/configmaps?watch=1`, { dispatcher: agent, headers: { authorization: `Bearer ${TOKEN}` }, signal: watching.signal });
    watch.body.on('data', () => {}).on('error', () => {});
  }
  await runWrk(origin, { concurrency: 32, seconds: 3 }, creates('warm'));
  for (let r = 0; r < runs; r++) {
    promoted = 0;
    scavenges = 0;
    pauseMs = 0;
    counting = true;
    const out = await runWrk(origin, { concurrency: 32, seconds }, creates(`r${r}`));
    counting = false;
    const per = (x: number): number => x / out.requests;
    console.log(
      `run ${r}: ${(out.requests / seconds).toFixed(0)} creates/s, promoted ${per(promoted).toFixed(0)} B/create, ` +
        `${scavenges} young collections (one per ${(out.requests / scavenges).toFixed(0)} creates), their pause ${per(pauseMs * 1000).toFixed(1)} µs/create, ` +
        `latency p50 ${out.p50ms.toFixed(1)} p99 ${out.p99ms.toFixed(1)} max ${out.maxMs.toFixed(0)} ms`,
    );
  }
} finally {
  watching.abort();
  await agent.close();
  await proc.stop('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
