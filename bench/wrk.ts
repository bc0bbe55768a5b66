// A load generator that costs the machine little: wrk (Debian package `wrk`),
// driven by a Lua script that numbers its requests.
//
// Why not the Node load generator in lib.ts: on a 2-core machine the load
// generator shares the cores with the server under test. Creating configmaps
// in apiary on etcd at concurrency 32, undici took 19% of a core for
// 2,361/s and wrk 9% for 2,847/s (interleaved runs, medians of 10; 1.18x).
// A lighter generator leaves more of the machine to what is measured; wrk
// is the tool HTTP servers are usually measured with, and it is closed-loop
// like runLoad (each connection sends its next request when the previous
// answer is in), so concurrency means the same. Its runs should last 2 s or
// more: each opens its connections afresh, and in 1 s runs that start-up
// cost 8% of the rate.
//
// Requests are templates: `{i}` in the path or body becomes the request's
// number, counted by the script in the order wrk asks for requests. wrk 4.1
// asks once more than it sends (its first request is not sent: no object
// named 0 appears), so writes are numbered from 1; with `modulo`, {i} runs
// over 1..modulo, the objects a write phase that sent `modulo` requests
// created. One wrk thread, so the numbering is one sequence. wrk runs for
// whole seconds.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './lib.js';

export interface WrkRequest {
  method: 'GET' | 'POST' | 'PUT';
  /** May contain {i}. */
  path: string;
  /** May contain {i}. */
  body?: string;
  contentType?: string;
  /** {i} runs over 1..modulo (to read back the objects a create phase made). */
  modulo?: number;
  /** More request headers (Authorization). */
  headers?: Record<string, string>;
}

export interface WrkResult extends LoadResult {
  /** CPU seconds (user + system) wrk used. */
  cpuSeconds: number;
  /** The slowest request (wrk's Latency Max). */
  maxMs: number;
}

/** Fails with what to install when wrk is missing. */
export function requireWrk(): void {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  if (probe.error) throw new Error('this benchmark drives HTTP load with wrk: apt-get install -y wrk');
}

/** A Lua long string holding `text` verbatim. */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

function script(request: WrkRequest): string {
  const all: Record<string, string> = { ...request.headers };
  if (request.body !== undefined) all['Content-Type'] = request.contentType ?? 'application/json';
  const headers = `{ ${Object.entries(all).map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`).join(', ')} }`;
  const substitute = (template: string): string =>
    template.includes('{i}') ? `(string.gsub(${luaString(template)}, "{i}", n))` : luaString(template);
  return `
local counter = 0
local modulo = ${request.modulo ?? 0}
local headers = ${headers}
request = function()
  local n = counter
  if modulo > 0 then n = 1 + n % modulo end
  counter = counter + 1
  return wrk.format(${luaString(request.method)}, ${substitute(request.path)}, headers, ${request.body === undefined ? 'nil' : substitute(request.body)})
end
`;
}

/** "4.33ms" → 4.33; wrk prints us, ms, s and m. */
function toMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!m) return NaN;
  const scale: Record<string, number> = { us: 1e-3, ms: 1, s: 1e3, m: 60e3 };
  return Number(m[1]) * scale[m[2]!]!;
}

/**
 * Runs wrk against origin for `seconds` with `concurrency` connections, and
 * parses its report. Errors are non-2xx answers plus socket errors.
 */
export async function runWrk(origin: string, options: { concurrency: number; seconds: number }, request: WrkRequest): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-wrk-'));
  const scriptPath = join(dir, 'requests.lua');
  writeFileSync(scriptPath, script(request));
  try {
    // The shell waits for wrk and then prints its own /proc stat, whose
    // cutime/cstime hold the CPU time of the children it waited for: wrk's.
    const args = ['-t1', `-c${options.concurrency}`, `-d${Math.max(1, Math.round(options.seconds))}s`, '--timeout', '10s', '--latency', '-s', scriptPath, origin];
    const child = spawn('sh', ['-c', 'wrk "$@" && echo "stat: $(cat /proc/$$/stat)"', 'sh', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const done = /(\d+) requests in /.exec(out);
    if (code !== 0 || !done) throw new Error(`wrk failed (exit ${code}): ${err || out}`);
    const requests = Number(done[1]);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
    const seconds = requests / rps;
    const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
    const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const socketErrors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0;
    const latency = (q: string): number => toMs(new RegExp(`^\\s+${q}%\\s+(\\S+)$`, 'm').exec(out)?.[1] ?? '');
    const stat = /^stat: .*\) (.*)$/m.exec(out)?.[1]?.split(' ') ?? [];
    // Fields after the command name: state is [0], cutime [13], cstime [14], in clock ticks (10 ms).
    const cpuSeconds = (Number(stat[13]) + Number(stat[14])) / 100;
    const maxMs = toMs(/^\s+Latency\s+\S+\s+\S+\s+(\S+)/m.exec(out)?.[1] ?? '');
    return { requests, errors: non2xx + socketErrors, seconds, rps, p50ms: latency('50'), p99ms: latency('99'), cpuSeconds, maxMs };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
