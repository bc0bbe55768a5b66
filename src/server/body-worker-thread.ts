// The worker thread of body-worker.ts: decodes large JSON write bodies
// (write-body.ts) and answers with the object in slices (json-slices.ts), the
// Warning header values, or the request's error as a Status.

import { parentPort } from 'node:worker_threads';
import type { ServerResponse } from 'node:http';
import { StatusError } from '../machinery/errors.js';
import { jsonSlices } from '../machinery/json-slices.js';
import { decodeJsonWriteBody } from './write-body.js';
import type { BodyJob, BodyJobResult, CreatedFieldsJob } from './body-worker.js';
import { applySchemaFor } from '../api/schema/apply-schema.js';
import { createdFieldsV1 } from '../machinery/apply/created.js';
import { encodeStoredValue } from '../storage/managed-fields-codec.js';
import type { KubeObject } from '../machinery/meta.js';

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
  const fieldsV1 = createdFieldsV1(JSON.parse(job.json) as Record<string, unknown>, root, { skipTopLevel: new Set(job.skipTopLevel), stripped: job.stripped });
  return { id: job.id, slices: jsonSlices(fieldsV1 ?? null), warnings: [] };
}

parentPort!.on('message', (job: BodyJob) => {
  let result: BodyJobResult;
  if (job.type === 'stored') {
    try {
      result = { id: job.id, text: encodeStoredValue(JSON.parse(job.json) as KubeObject) };
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
