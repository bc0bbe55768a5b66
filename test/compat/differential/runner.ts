// Runs differential cases against two servers and compares what a client
// sees: status code, Content-Type, Warning headers, and the body (a masked
// JSON document or text), or for a watch the events read (type and masked
// object, in order). Each case gets a namespace of its own on both servers,
// with the same name, so messages that name it match.

import { readdirSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { DiffCase, DiffRequest } from './case.js';
import { send, watch, type Target } from './client.js';
import { diff, type Difference } from './diff.js';
import { Masker } from './mask.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export interface StepResult {
  caseName: string;
  /** Index among the case's steps (setup and cleanup are not compared). */
  step: number;
  title: string;
  request: string;
  differences: Difference[];
}

/** What a client sees of one answer, after masking. */
interface Observation {
  code: number;
  contentType: string;
  warnings: string[];
  body?: unknown;
  events?: unknown[];
  /** A watch that gave fewer events than the step asked for. */
  ended?: string;
  /** Content-Encoding and Vary, when the answer has them (a compressed body is compared decompressed). */
  encoding?: string;
}

/** One side's state within a case. */
interface Side {
  target: Target;
  masker: Masker;
  captured: Map<string, unknown>;
}

/** Every case in ./cases/*.ts, in file then table order. */
export async function loadCases(): Promise<DiffCase[]> {
  const dir = join(HERE, 'cases');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  const out: DiffCase[] = [];
  for (const file of files) {
    const module = (await import(pathToFileURL(join(dir, file)).href)) as { cases?: DiffCase[] };
    if (!Array.isArray(module.cases)) throw new Error(`${file} exports no cases`);
    out.push(...module.cases);
  }
  const names = new Set<string>();
  for (const c of out) {
    if (names.has(c.name)) throw new Error(`two differential cases are named ${JSON.stringify(c.name)}`);
    names.add(c.name);
  }
  return out;
}

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

/** `{ns}` and captured values in a path (URL-encoded) or a header. */
function substitute(text: string, side: Side, ns: string, encode = false): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => {
    if (name === 'ns') return ns;
    if (!side.captured.has(name)) return whole;
    const value = side.captured.get(name);
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return encode ? encodeURIComponent(text) : text;
  });
}

/** In a JSON body, a string that is exactly "{name}" becomes the captured JSON value (an object stays an object). */
function substituteJson(body: string, side: Side, ns: string): string {
  const whole = body.replace(/"\{([A-Za-z][A-Za-z0-9_]*)\}"/g, (match, name: string) =>
    name !== 'ns' && side.captured.has(name) ? JSON.stringify(side.captured.get(name)) : match,
  );
  return substitute(whole, side, ns);
}

function pick(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path === '' ? [] : path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The part of a JSON document a step's `select` names (see case.ts), or undefined. */
export function select(value: unknown, expression: string): unknown {
  let current = value;
  for (const segment of expression.split(/\.(?![^[]*\])/)) {
    const match = /^([^[]*)(?:\[([^\]]*)\])?$/.exec(segment);
    if (match === null) throw new Error(`bad select segment ${segment}`);
    const [, key, filter] = match;
    if (key !== '' && key !== undefined) {
      if (current === null || typeof current !== 'object') return undefined;
      current = (current as Record<string, unknown>)[key];
    }
    if (filter === undefined) continue;
    if (!Array.isArray(current)) return undefined;
    const eq = filter.indexOf('=');
    if (eq < 0) current = current[Number(filter)];
    else {
      const field = filter.slice(0, eq);
      const wanted = filter.slice(eq + 1);
      current = current.find((item) => String(pick(item, field)) === wanted);
    }
  }
  return current;
}

function contentTypeOf(headers: Map<string, string[]>): string {
  return headers.get('content-type')?.[0] ?? '';
}

async function perform(side: Side, request: DiffRequest, ns: string, watchTimeoutMs: number): Promise<{ observation: Observation; json: unknown }> {
  const path = substitute(request.path, side, ns, true);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers ?? {})) headers[k.toLowerCase()] = substitute(v, side, ns);
  let body: string | undefined;
  if (request.body !== undefined) {
    if (typeof request.body === 'string') body = substitute(request.body, side, ns);
    else {
      body = substituteJson(JSON.stringify(request.body), side, ns);
      headers['content-type'] ??= 'application/json';
    }
  }
  const masker = side.masker.withPatterns(request.mask);
  if (request.watchEvents !== undefined) {
    const reply = await watch(side.target, path, headers, request.watchEvents, watchTimeoutMs);
    const observation: Observation = {
      code: reply.status,
      contentType: contentTypeOf(reply.headers),
      warnings: reply.headers.get('warning') ?? [],
    };
    let json: unknown;
    if (reply.text !== undefined) {
      json = parseJson(reply.text);
      observation.body = json === undefined ? masker.maskText(reply.text) : masker.mask(json);
    } else {
      observation.events = reply.events.map((e) => masker.mask(e));
      json = reply.events[reply.events.length - 1];
    }
    if (reply.ended !== undefined) observation.ended = `${reply.ended} after ${reply.events.length} of ${request.watchEvents} events`;
    return { observation, json };
  }
  const reply = await send(side.target, request.method, path, headers, body);
  const contentEncoding = reply.headers.get('content-encoding')?.[0];
  const text = (contentEncoding === 'gzip' ? gunzipSync(reply.body) : reply.body).toString('utf8');
  const json = parseJson(text);
  let shown: unknown;
  if (json === undefined) shown = masker.maskText(text);
  else {
    const part = request.select === undefined ? json : select(json, request.select);
    shown = part === undefined ? '<nothing selected>' : masker.mask(part);
  }
  return {
    observation: {
      code: reply.status,
      contentType: contentTypeOf(reply.headers),
      warnings: reply.headers.get('warning') ?? [],
      body: shown,
      ...(contentEncoding === undefined ? {} : { encoding: `${contentEncoding}, vary ${(reply.headers.get('vary') ?? []).join(', ')}` }),
    },
    json,
  };
}

function parseJson(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function capture(side: Side, request: DiffRequest, json: unknown): void {
  for (const [name, path] of Object.entries(request.capture ?? {})) {
    const value = pick(json, path);
    if (value !== undefined) side.captured.set(name, value);
  }
}

export interface RunOptions {
  /** Cases run at the same time (each in its own namespaces). Default 4. */
  concurrency?: number;
  /** How long a watch step waits for its events. Default 5 s. */
  watchTimeoutMs?: number;
  /** A prefix for the case namespaces (must make them unique on a shared server). */
  namespacePrefix?: string;
}

/** Waits (up to 20 s) until a server's service account controller has made `default` in ns: pods need it (ServiceAccount admission on both sides). */
async function waitForDefaultServiceAccount(target: Target, ns: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const reply = await send(target, 'GET', `/api/v1/namespaces/${ns}/serviceaccounts/default`);
    if (reply.status === 200) return;
    if (Date.now() > deadline) throw new Error(`no default service account in ${ns} on ${target.name}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function runCase(
  c: DiffCase,
  index: number,
  apiary: Target,
  reference: Target,
  options: Required<RunOptions>,
): Promise<StepResult[]> {
  const ns = `${options.namespacePrefix}${String(index).padStart(3, '0')}`;
  const sides: [Side, Side] = [
    { target: apiary, masker: new Masker(), captured: new Map() },
    { target: reference, masker: new Masker(), captured: new Map() },
  ];
  const namespace = JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const side of sides) {
    const reply = await send(side.target, 'POST', '/api/v1/namespaces', { 'content-type': 'application/json' }, namespace);
    if (reply.status !== 201) throw new Error(`case ${c.name}: creating namespace ${ns} on ${side.target.name}: ${reply.status} ${reply.body.toString()}`);
  }
  await Promise.all([waitForDefaultServiceAccount(reference, ns), waitForDefaultServiceAccount(apiary, ns)]);
  const results: StepResult[] = [];
  try {
    for (const request of c.setup ?? []) {
      await Promise.all(
        sides.map(async (side) => {
          let { observation, json } = await perform(side, request, ns, options.watchTimeoutMs);
          const deadline = Date.now() + 60_000;
          while (request.until !== undefined && !isDeepStrictEqual(pick(json, request.until.path), request.until.equals)) {
            if (Date.now() > deadline) {
              throw new Error(`case ${c.name}: setup ${request.method} ${request.path} on ${side.target.name}: ${request.until.path} is still ${JSON.stringify(pick(json, request.until.path))}`);
            }
            await new Promise((r) => setTimeout(r, 200));
            ({ observation, json } = await perform(side, request, ns, options.watchTimeoutMs));
          }
          // A setup step with `until` states the answer it waits for (an error, perhaps: a webhook's denial).
          if (observation.code >= 400 && request.until === undefined) {
            throw new Error(`case ${c.name}: setup ${request.method} ${request.path} on ${side.target.name}: ${observation.code} ${JSON.stringify(observation.body)}`);
          }
          capture(side, request, json);
        }),
      );
    }
    for (const [i, request] of c.steps.entries()) {
      const [a, r] = await Promise.all(
        sides.map(async (side) => {
          // a step with `until` is repeated (up to 20 s) until its condition holds; the last answers are compared
          let result = await perform(side, request, ns, options.watchTimeoutMs);
          const deadline = Date.now() + 20_000;
          while (request.until !== undefined && !isDeepStrictEqual(pick(result.json, request.until.path), request.until.equals) && Date.now() < deadline) {
            await new Promise((res) => setTimeout(res, 100));
            result = await perform(side, request, ns, options.watchTimeoutMs);
          }
          return result;
        }),
      );
      capture(sides[0], request, a!.json);
      capture(sides[1], request, r!.json);
      results.push({
        caseName: c.name,
        step: i,
        title: request.title ?? '',
        request: `${request.method} ${request.path}${request.watchEvents !== undefined ? ` (watch, ${request.watchEvents} events)` : ''}`,
        differences: diff(a!.observation, r!.observation),
      });
    }
  } finally {
    for (const request of c.cleanup ?? []) {
      await Promise.all(sides.map((side) => perform(side, request, ns, options.watchTimeoutMs).catch(() => undefined)));
    }
    await Promise.all(sides.map((side) => send(side.target, 'DELETE', `/api/v1/namespaces/${ns}`).catch(() => undefined)));
  }
  return results;
}

/** Runs every case on both servers; the results keep the table's order. */
export async function runCases(cases: DiffCase[], apiary: Target, reference: Target, options: RunOptions = {}): Promise<StepResult[]> {
  const full: Required<RunOptions> = {
    concurrency: options.concurrency ?? 4,
    watchTimeoutMs: options.watchTimeoutMs ?? 5000,
    namespacePrefix: options.namespacePrefix ?? 'diff-',
  };
  const results: StepResult[][] = new Array(cases.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < cases.length) {
      const index = next++;
      results[index] = await runCase(cases[index]!, index, apiary, reference, full);
    }
  };
  await Promise.all(Array.from({ length: Math.min(full.concurrency, cases.length) }, worker));
  return results.flat();
}
