// The worker thread of body-worker.ts: decodes large JSON write bodies
// (write-body.ts) and answers with the object in slices (json-slices.ts), the
// Warning header values, or the request's error as a Status.

import { parentPort } from 'node:worker_threads';
import type { ServerResponse } from 'node:http';
import { StatusError } from '../machinery/errors.js';
import { jsonSlices, jsonText } from '../machinery/json-slices.js';
import { decodeJsonWriteBody } from './write-body.js';
import type { ApplyJob, BodyJob, BodyJobResult, CreatedFieldsJob, PatchJob, UpdateFieldsJob } from './body-worker.js';
import { smpSchemaFor } from '../api/strategic-merge-schema.js';
import { parsePatch } from './patch-bodies.js';
import { patchStages } from './patch-stages.js';
import { fieldManagerOfJob } from '../machinery/apply/field-manager.js';
import { ConflictsError } from '../machinery/apply/updater.js';
import { ApplySchemaError } from '../machinery/apply/typed.js';
import { applySchemaFor } from '../api/schema/apply-schema.js';
import { createdFieldsV1 } from '../machinery/apply/created.js';
import { encodeStoredValue } from '../storage/managed-fields-codec.js';
import type { KubeObject } from '../machinery/meta.js';
import { lowerThreadPriority } from './thread-priority.js';

/**
 * This thread works for one tenant's large request at a time: it runs below the
 * event loop's priority (BODY_WORKER_NICE more nice), so on busy cores the
 * loop and the TLS front, which every other request needs, go first.
 * APIARY_BODY_WORKER_NICE overrides the value (0: the loop's own), for measuring it.
 */
const BODY_WORKER_NICE = 10;
const nice = Number(process.env.APIARY_BODY_WORKER_NICE ?? BODY_WORKER_NICE);
if (Number.isInteger(nice) && nice > 0) lowerThreadPriority(nice);

/** A kind other than the endpoint's needs the server's scheme: the main thread decodes that body itself. */
class NeedsScheme extends Error {}

/** Collects the Warning header values setWarningHeaders would set on the response. */
function warningCollector(): { res: ServerResponse; values: () => string[] } {
  let header: string[] = [];
  const res = {
    headersSent: false,
    getHeader: (name: string) => (name === 'Warning' && header.length > 0 ? header : undefined),
    setHeader: (name: string, value: string[]) => {
      if (name === 'Warning') header = value;
    },
  };
  return { res: res as unknown as ServerResponse, values: () => header };
}

/** The field set of a created object (the store's trackCreate hands the walk here for a large object). */
function createdFields(job: CreatedFieldsJob): BodyJobResult {
  const root = applySchemaFor(job.kind.group, job.kind.version, job.kind.kind);
  if (root === undefined) return { id: job.id, fallback: true };
  const fieldsV1 = createdFieldsV1(JSON.parse(jsonText(job.json)) as Record<string, unknown>, root, { skipTopLevel: new Set(job.skipTopLevel), stripped: job.stripped });
  return { id: job.id, slices: jsonSlices(fieldsV1 ?? null), warnings: [] };
}

/** FieldManager.update of a large write: the entries the new object gets (null: none). */
function updateFields(job: UpdateFieldsJob): BodyJobResult {
  const kind = job.fieldManager.kind;
  const root = applySchemaFor(kind.group, kind.version, kind.kind);
  if (root === undefined) return { id: job.id, fallback: true };
  const next = JSON.parse(jsonText(job.next)) as KubeObject;
  fieldManagerOfJob(job.fieldManager, root).update(JSON.parse(jsonText(job.live)) as KubeObject | null, next, job.manager);
  return { id: job.id, slices: jsonSlices(next.metadata.managedFields ?? null), warnings: [] };
}

/** FieldManager.apply of a large apply: the merged object, or its conflicts or schema error as data. */
function applied(job: ApplyJob): BodyJobResult {
  const kind = job.fieldManager.kind;
  const root = applySchemaFor(kind.group, kind.version, kind.kind);
  if (root === undefined) return { id: job.id, fallback: true };
  const live = JSON.parse(jsonText(job.live)) as KubeObject | null;
  const config = JSON.parse(jsonText(job.config)) as Record<string, unknown>;
  try {
    const { object, changed } = fieldManagerOfJob(job.fieldManager, root).apply(live, config, job.manager, job.force);
    return { id: job.id, applied: jsonSlices(object), changed };
  } catch (err) {
    if (err instanceof ConflictsError) return { id: job.id, conflicts: err.conflicts };
    if (err instanceof ApplySchemaError) return { id: job.id, schemaError: err.message };
    throw err;
  }
}

/** A large patch's stages, in one go: the patched object, its warnings, or the request's error (thrown). */
function patched(job: PatchJob): BodyJobResult {
  const smpSchema = smpSchemaFor(job.expected.group, job.expected.version, job.expected.kind);
  if (job.patchType === 'application/strategic-merge-patch+json' && smpSchema === undefined) return { id: job.id, fallback: true };
  const patch = parsePatch(job.text, job.patchType, job.fieldValidation ?? 'Warn');
  const warnings = warningCollector();
  const run = patchStages(JSON.parse(jsonText(job.current)) as KubeObject, {
    patchType: job.patchType,
    patch,
    text: job.text,
    expected: job.expected,
    smpSchema,
    scale: false,
    unstructured: false,
    isKnownKind: () => {
      throw new NeedsScheme();
    },
    fieldValidation: job.fieldValidation,
    res: warnings.res,
  });
  let step = run.next();
  while (step.done !== true) step = run.next();
  return { id: job.id, patched: jsonSlices(step.value.object), warnings: step.value.warnings, headerWarnings: warnings.values() };
}

parentPort!.on('message', (job: BodyJob) => {
  let result: BodyJobResult;
  if (job.type === 'patch' || job.type === 'parse-patch') {
    try {
      if (job.type === 'patch') result = patched(job);
      else {
        parsePatch(job.text, job.patchType, job.fieldValidation ?? 'Warn');
        result = { id: job.id, parsed: true };
      }
    } catch (err) {
      result = err instanceof StatusError ? { id: job.id, status: err.status } : { id: job.id, fallback: true };
    }
    parentPort!.postMessage(result);
    return;
  }
  if (job.type === 'update-fields' || job.type === 'apply') {
    try {
      result = job.type === 'apply' ? applied(job) : updateFields(job);
    } catch {
      // Anything else (an internal error) is the main thread's to meet: it does the same work there.
      result = { id: job.id, fallback: true };
    }
    parentPort!.postMessage(result);
    return;
  }
  if (job.type === 'stored') {
    try {
      result = { id: job.id, text: encodeStoredValue(JSON.parse(jsonText(job.json)) as KubeObject) };
    } catch {
      result = { id: job.id, fallback: true };
    }
    parentPort!.postMessage(result);
    return;
  }
  if (job.type === 'created') {
    try {
      result = createdFields(job);
    } catch {
      result = { id: job.id, fallback: true };
    }
    parentPort!.postMessage(result);
    return;
  }
  try {
    const warnings = warningCollector();
    const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
    const object = decodeJsonWriteBody(body, job.expected, job.fieldValidation, () => {
      throw new NeedsScheme();
    }, warnings.res);
    result = { id: job.id, slices: jsonSlices(object), warnings: warnings.values() };
  } catch (err) {
    // A Status crosses as data; anything else (another kind, an internal error) is the main thread's to meet.
    result = err instanceof StatusError ? { id: job.id, status: err.status } : { id: job.id, fallback: true };
  }
  parentPort!.postMessage(result);
});
