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
import { assembleSlices, stringifySlicedPieces, type JsonText, type Slice } from '../machinery/json-slices.js';
import type { CreatedFieldsOptions } from '../machinery/apply/created.js';
import type { ExpectedKind, FieldValidation } from './write-body.js';
import type { Pause } from './large-requests.js';
import { encodeStoredValue } from '../storage/managed-fields-codec.js';
import type { FieldManagerJob } from '../machinery/apply/field-manager.js';
import { ConflictsError, type Conflict } from '../machinery/apply/updater.js';
import { ApplySchemaError } from '../machinery/apply/typed.js';
import type { KubeObject, ManagedFieldsEntry } from '../machinery/meta.js';

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
  json: JsonText;
  skipTopLevel: string[];
  stripped: string[][];
}

/** The stored value (storage/managed-fields-codec.ts) of an object sent as JSON. */
export interface StoredValueJob {
  type: 'stored';
  id: number;
  json: JsonText;
}

/** FieldManager.update of a large write (machinery/apply/field-manager.ts): both objects as JSON. */
export interface UpdateFieldsJob {
  type: 'update-fields';
  id: number;
  fieldManager: FieldManagerJob;
  live: JsonText;
  next: JsonText;
  manager: string;
}

/** FieldManager.apply of a large apply: the live object and the configuration as JSON. */
export interface ApplyJob {
  type: 'apply';
  id: number;
  fieldManager: FieldManagerJob;
  live: JsonText;
  config: JsonText;
  manager: string;
  force: boolean;
}

/** A JSON, merge or strategic merge patch's stages (patch-stages.ts) of a built-in kind: the current object as JSON. */
export interface PatchJob {
  type: 'patch';
  id: number;
  current: JsonText;
  text: string;
  patchType: string;
  expected: ExpectedKind;
  fieldValidation: FieldValidation | undefined;
}

/** A patch body's parse (patch-bodies.ts parsePatch), for its error only. */
export interface ParsePatchJob {
  type: 'parse-patch';
  id: number;
  text: string;
  patchType: string;
  fieldValidation: FieldValidation | undefined;
}

export type BodyJob = DecodeJob | CreatedFieldsJob | StoredValueJob | UpdateFieldsJob | ApplyJob | PatchJob | ParsePatchJob;

export type BodyJobResult =
  | { id: number; slices: Slice[]; warnings: string[] }
  | { id: number; applied: Slice[]; changed: boolean }
  | { id: number; patched: Slice[]; warnings: string[]; headerWarnings: string[] }
  | { id: number; conflicts: Conflict[] }
  | { id: number; schemaError: string }
  | { id: number; text: string }
  | { id: number; parsed: true }
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
  if (result !== undefined && 'status' in result) throw StatusError.fromStatus(result.status);
  if (result === undefined || !('slices' in result)) return undefined;
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
  const json = await stringifySlicedPieces(obj, pause);
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
  const json = await stringifySlicedPieces(obj, pause);
  const result = await bodyWorker.run({ type: 'stored', json });
  await pause(true);
  if (result !== undefined && 'text' in result) return result.text;
  return encodeStoredValue(obj);
}

/**
 * The managedFields of a large update, patch or subresource write
 * (FieldManager.update of the field manager `fieldManager` describes) on the
 * worker thread: both objects go as JSON written a slice at a time, the
 * entries come back in slices; undefined when next gets none, false when the
 * main thread must do it itself. Why: the update decodes the live object's
 * field sets, walks and compares both objects and encodes the sets again,
 * each as large as the object (100,000 keys: a few hundred milliseconds in
 * one block). It reads nothing but its inputs (the kind's apply schema, the
 * write's time, which entry versions convert), so the entries are the same.
 */
export async function managedFieldsOffThread(
  fieldManager: FieldManagerJob,
  live: KubeObject | null,
  next: KubeObject,
  manager: string,
  pause: Pause,
): Promise<ManagedFieldsEntry[] | undefined | false> {
  const liveJson = live === null ? 'null' : await stringifySlicedPieces(live, pause);
  const nextJson = await stringifySlicedPieces(next, pause);
  const result = await bodyWorker.run({ type: 'update-fields', fieldManager, live: liveJson, next: nextJson, manager });
  await pause(true);
  if (result === undefined || !('slices' in result)) return false;
  const entries = await assembleSlices(result.slices, pause);
  return entries === null ? undefined : (entries as ManagedFieldsEntry[]);
}

/**
 * Server-side apply's merge (FieldManager.apply) of a large configuration or
 * live object on the worker thread: the merged object comes back in slices,
 * a conflict or schema error as the same error; false when the main thread
 * must do it itself. Why: the merge builds, compares and encodes field sets
 * of the configuration and the live object (100,000 keys taken by force from
 * another manager: about a second in one block).
 */
export async function appliedOffThread(
  fieldManager: FieldManagerJob,
  live: KubeObject | null,
  config: Record<string, unknown>,
  manager: string,
  force: boolean,
  pause: Pause,
): Promise<{ object: KubeObject; changed: boolean } | false> {
  const liveJson = live === null ? 'null' : await stringifySlicedPieces(live, pause);
  const configJson = await stringifySlicedPieces(config, pause);
  const result = await bodyWorker.run({ type: 'apply', fieldManager, live: liveJson, config: configJson, manager, force });
  await pause(true);
  if (result === undefined) return false;
  if ('conflicts' in result) throw new ConflictsError(result.conflicts);
  if ('schemaError' in result) throw new ApplySchemaError(result.schemaError);
  if (!('applied' in result)) return false;
  const object = (await assembleSlices(result.applied, pause)) as KubeObject;
  return { object, changed: result.changed };
}

/**
 * A large patch's stages (patch-stages.ts: the patch applied, the typed
 * decode of the result, its re-decode and field checks) on the worker thread:
 * the current object goes as JSON written a slice at a time, the patched one
 * comes back in slices with its field checks' warnings (the owner-reference
 * dedup's are set on `res`), a request error as the same error; undefined
 * when the main thread must run them itself (a kind the worker cannot decode).
 * Why: each stage walks the whole object, together hundreds of milliseconds
 * for 100,000 keys; they read only the patch, the object and the kind.
 */
export async function patchedOffThread(
  current: KubeObject,
  patch: { text: string; patchType: string; expected: ExpectedKind; fieldValidation: FieldValidation | undefined },
  res: ServerResponse,
  pause: Pause,
): Promise<{ object: KubeObject; warnings: string[] } | undefined> {
  const json = await stringifySlicedPieces(current, pause);
  const result = await bodyWorker.run({ type: 'patch', current: json, ...patch });
  await pause(true);
  if (result !== undefined && 'status' in result) throw StatusError.fromStatus(result.status);
  if (result === undefined || !('patched' in result)) return undefined;
  const object = (await assembleSlices(result.patched, pause)) as KubeObject;
  addWarningHeaderValues(res, result.headerWarnings);
  return { object, warnings: result.warnings };
}

/**
 * Whether a large patch body parses (parsePatch on the worker thread): true
 * when it does, its error thrown when it does not, false when the main thread
 * must parse it itself. Why: the parse of 3 MiB (JSON.parse, the depth and
 * lone-surrogate scans) is tens of milliseconds in one block, and its error
 * must come before the object is read (a malformed patch of a missing object
 * is a 400); the stages on the worker parse it again (patchedOffThread).
 */
export async function patchParsesOffThread(text: string, patchType: string, fieldValidation: FieldValidation | undefined, pause: Pause): Promise<boolean> {
  const result = await bodyWorker.run({ type: 'parse-patch', text, patchType, fieldValidation });
  await pause(true);
  if (result !== undefined && 'status' in result) throw StatusError.fromStatus(result.status);
  return result !== undefined && 'parsed' in result;
}
