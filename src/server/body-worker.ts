// Large write bodies decoded off the event loop.
//
// Parsing and decoding a maximal JSON body (3 MiB: 100,000 keys, a million
// list elements or owner references) costs from a few hundred milliseconds to
// seconds of pure work: JSON.parse, the duplicate-key scan, the typed decode,
// the unknown-field walk, owner-reference dedup. It needs nothing but the body
// and the kind, so a worker thread does it (write-body.ts is the one
// implementation both sides run) and the main thread keeps serving. The
// object comes back in slices, rebuilt a few milliseconds at a time
// (json-slices.ts), because one structured clone of it would hold the main
// thread as long as the parse it saved; what decoding leaves small (a million
// identical owner references dedup to one, unknown fields are dropped) comes
// back as one small slice.
//
// What stays on the main thread, and why: YAML and protobuf bodies and custom
// resources (their decode needs the server's CRD schemas), and a body naming
// another kind than the endpoint's (its error depends on the server's scheme):
// the worker answers "fallback" and the handler decodes as before, so the
// answer is the same either way. Bodies below LARGE_BODY_BYTES never come
// here: a round trip to a thread costs more than decoding a small body.
//
// One worker (the machine may have two cores, and large bodies take turns
// anyway: large-requests.ts), started on the first large body, unreferenced
// (it never keeps the process alive) and ended after IDLE_MS without work. If
// it cannot start or dies, bodies are decoded on the main thread.

import { Worker } from 'node:worker_threads';
import type { ServerResponse } from 'node:http';
import { StatusError, type Status } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import { assembleSlices, stringifySliced, type Slice } from '../machinery/json-slices.js';
import type { CreatedFieldsOptions } from '../machinery/apply/created.js';
import type { ExpectedKind, FieldValidation } from './write-body.js';
import type { Pause } from './large-requests.js';
import { encodeStoredValue } from '../storage/managed-fields-codec.js';

/** Decode a large JSON body (write-body.ts). */
export interface DecodeJob {
  type: 'decode';
  id: number;
  body: Uint8Array;
  expected: ExpectedKind;
  fieldValidation: FieldValidation | undefined;
}

/** The field set a plain create's creator owns (machinery/apply/created.ts), of an object sent as JSON. */
export interface CreatedFieldsJob {
  type: 'created';
  id: number;
  kind: ExpectedKind;
  json: string;
  skipTopLevel: string[];
  stripped: string[][];
}

/** The stored value (storage/managed-fields-codec.ts) of an object sent as JSON. */
export interface StoredValueJob {
  type: 'stored';
  id: number;
  json: string;
}

export type BodyJob = DecodeJob | CreatedFieldsJob | StoredValueJob;

export type BodyJobResult =
  | { id: number; slices: Slice[]; warnings: string[] }
  | { id: number; text: string }
  | { id: number; status: Status }
  | { id: number; fallback: true };

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A worker ends after this long without a body to decode. */
const IDLE_MS = 30_000;

class BodyWorker {
  private worker: Worker | undefined;
  private unavailable = false;
  private nextId = 1;
  private readonly pending = new Map<number, (result: BodyJobResult | undefined) => void>();
  private idleTimer: NodeJS.Timeout | undefined;

  /** The decoded result, or undefined when the main thread must decode the body itself. */
  run(job: DistributiveOmit<BodyJob, 'id'>): Promise<BodyJobResult | undefined> {
    const worker = this.start();
    if (worker === undefined) return Promise.resolve(undefined);
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      // Referenced while it has work (the answer is awaited), not while idle.
      worker.ref();
      if (job.type === 'decode') {
        // A copy of its own (the body may be a view of a pooled buffer), moved rather than cloned.
        const body = new Uint8Array(job.body);
        worker.postMessage({ ...job, id, body } satisfies BodyJob, [body.buffer]);
      } else worker.postMessage({ ...job, id } satisfies BodyJob);
    });
  }

  private start(): Worker | undefined {
    if (this.worker !== undefined || this.unavailable) return this.worker;
    try {
      const worker = newWorker();
      worker.unref();
      worker.on('message', (result: BodyJobResult) => {
        const resolve = this.pending.get(result.id);
        this.pending.delete(result.id);
        resolve?.(result);
        if (this.pending.size === 0) {
          worker.unref();
          this.idle();
        }
      });
      const gone = (): void => {
        // A worker ended for idleness has no work; another may have started since.
        if (this.worker !== worker) return;
        this.worker = undefined;
        for (const resolve of this.pending.values()) resolve(undefined);
        this.pending.clear();
      };
      // A worker that fails (its modules do not load, it runs out of memory) is not tried again.
      worker.on('error', () => {
        this.unavailable = true;
        gone();
      });
      worker.on('exit', gone);
      this.worker = worker;
      return worker;
    } catch {
      this.unavailable = true;
      return undefined;
    }
  }

  private idle(): void {
    if (this.idleTimer !== undefined) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      const worker = this.worker;
      this.worker = undefined;
      void worker?.terminate();
    }, IDLE_MS);
    this.idleTimer.unref();
  }
}

/**
 * The thread, from the build's .js; run from source (under tsx, whose loader
 * a Node 20 worker does not inherit), a .ts entry loaded after registering it.
 */
function newWorker(): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./body-worker-thread.js', import.meta.url));
  const entry = JSON.stringify(new URL('./body-worker-thread.ts', import.meta.url).href);
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return new Worker(`import(${tsx}).then(({ register }) => { register(); return import(${entry}); })`, { eval: true });
}

const bodyWorker = new BodyWorker();

/**
 * A large JSON body of a built-in kind, decoded on the worker thread: the
 * object (rebuilt with `pause` between slices) with its warnings set on
 * `res`, or the decode's error thrown; undefined when the main thread must
 * decode it (see the module comment).
 */
export async function decodeOffThread(
  body: Buffer,
  expected: ExpectedKind,
  fieldValidation: FieldValidation | undefined,
  res: ServerResponse,
  pause: Pause,
): Promise<KubeObject | undefined> {
  const result = await bodyWorker.run({ type: 'decode', body, expected, fieldValidation });
  await pause(true);
  if (result === undefined || 'fallback' in result || 'text' in result) return undefined;
  if ('status' in result) throw StatusError.fromStatus(result.status);
  const object = (await assembleSlices(result.slices, pause)) as KubeObject;
  addWarningHeaderValues(res, result.warnings);
  return object;
}

/** Header values (already formatted) added as setWarningHeaders adds them: once each, after those set. */
function addWarningHeaderValues(res: ServerResponse, added: string[]): void {
  if (added.length === 0 || res.headersSent) return;
  const existing = res.getHeader('Warning');
  const values = Array.isArray(existing) ? existing.map(String) : existing === undefined ? [] : [String(existing)];
  for (const value of added) if (!values.includes(value)) values.push(value);
  res.setHeader('Warning', values);
}

/**
 * createdFieldsV1 (machinery/apply/created.ts) of a large object on the
 * worker thread: the object goes as JSON written a slice at a time, the field
 * set comes back in slices; false when the main thread must walk it itself.
 * Why: the walk visits every field of the object and builds a field set as
 * large (100,000 keys: several hundred milliseconds in one block).
 */
export async function createdFieldsOffThread(kind: ExpectedKind, obj: KubeObject, options: CreatedFieldsOptions, pause: Pause): Promise<Record<string, unknown> | undefined | false> {
  const json = await stringifySliced(obj, pause);
  const result = await bodyWorker.run({ type: 'created', kind, json, skipTopLevel: [...options.skipTopLevel], stripped: options.stripped.map((p) => [...p]) });
  await pause(true);
  if (result === undefined || !('slices' in result)) return false;
  const fieldsV1 = await assembleSlices(result.slices, pause);
  return fieldsV1 === null ? undefined : (fieldsV1 as Record<string, unknown>);
}

/**
 * The stored value of a large object (storage's encode) on the worker thread:
 * the object goes as JSON written a slice at a time, the text comes back
 * whole (a string crosses threads as one copy, well under a millisecond per
 * megabyte). Why: the encode writes the object's JSON and, for every key the
 * managedFields name, its index among its node's keys (100,000 keys: a few
 * hundred milliseconds in one block). The JSON of the object is all the
 * encode reads, so the text is the same; if the worker cannot do it, it is
 * done here.
 */
export async function storedValueOffThread(obj: KubeObject, pause: Pause): Promise<string> {
  const json = await stringifySliced(obj, pause);
  const result = await bodyWorker.run({ type: 'stored', json });
  await pause(true);
  if (result !== undefined && 'text' in result) return result.text;
  return encodeStoredValue(obj);
}
