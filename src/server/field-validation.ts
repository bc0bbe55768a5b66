/**
 * Field validation (`fieldValidation=Ignore|Warn|Strict`) for create, update and
 * patch, in one place: unknown fields (those the schema registry does not
 * describe) and duplicate keys in a JSON body are dropped, and then
 *   - Ignore: nothing more;
 *   - Warn (the default when the parameter is absent, as upstream): one
 *     `Warning: 299 - "unknown field \"spec.foo\""` header per field;
 *   - Strict: the request fails with 400, worded as upstream's strict decoder:
 *     create/update `ConfigMap in version "v1" cannot be handled as a ConfigMap:
 *     strict decoding error: unknown field "spec.foo", duplicate field "data"`
 *     (in document order), patch a 422 on the field "patch" whose value is the
 *     patch (strategic) or the patched object, `strict decoding error: duplicate
 *     field "data", unknown field "spec.foo"` (duplicates first).
 *
 * Contract: `checkFields(obj, ctx)` prunes `obj` in place and returns the
 * messages to send as warnings (empty for Ignore), or throws the Strict error.
 * `setWarningHeaders(res, messages)` writes them (deduplicated) on a response
 * that has not started. The registry's own pruning then finds nothing left.
 * Empty omitempty collections are dropped too (omit-empty.ts), as upstream's typed
 * decode drops them, whatever the directive.
 */
import type { ServerResponse } from 'node:http';
import { duplicateFieldMessage, findDuplicateFields, pruneObject, unknownFieldMessage } from '../api/schema/prune.js';
import { badRequest, invalid } from '../machinery/errors.js';
import { fieldErrors } from '../machinery/field-errors.js';
import type { KubeObject } from '../machinery/meta.js';
import { dropEmptyCollections } from './omit-empty.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface FieldCheckContext {
  group: string;
  version: string;
  kind: string;
  directive: FieldValidation | undefined;
  /** The body as JSON text, when it was JSON (duplicates are looked for there). */
  rawJson?: string;
  /** findDuplicateFields(rawJson), when the caller has it (or computes it once for several readers). */
  duplicates?: () => readonly string[];
  /** 'decode' for create/update bodies, 'patch' for the result of a patch. */
  mode: 'decode' | 'patch';
  /** Patch mode: what a Strict failure quotes (Go's %v of a strategic patch, else the patched object's JSON). */
  patchValue?: string;
}

/** Prunes unknown fields of `obj` and applies the directive (see the module comment). */
export function checkFields(obj: KubeObject, ctx: FieldCheckContext): string[] {
  const directive = ctx.directive ?? 'Warn';
  const duplicates = ctx.rawJson === undefined || directive === 'Ignore' ? [] : (ctx.duplicates?.() ?? findDuplicateFields(ctx.rawJson));
  const unknown = pruneObject(ctx.group, ctx.version, ctx.kind, obj as unknown as Record<string, unknown>);
  dropEmptyCollections(ctx.group, ctx.version, ctx.kind, obj as unknown as Record<string, unknown>);
  if (directive === 'Ignore') return [];
  // A body's decoder reports in document order; a patch's duplicates (found decoding the patch) come
  // before the unknown fields (found decoding the patched object).
  const messages =
    ctx.mode === 'decode'
      ? strictDecodingOrder(ctx.rawJson, duplicates, unknown)
      : [...duplicates.map(duplicateFieldMessage), ...unknown.map(unknownFieldMessage)];
  if (messages.length === 0) return [];
  if (directive === 'Strict') {
    const strict = `strict decoding error: ${messages.join(', ')}`;
    // A patch: 422 on the field "patch", quoting the patch (strategic) or the patched object (JSON, merge).
    if (ctx.mode === 'patch') throw invalid('', '', '', [fieldErrors.invalid('patch', ctx.patchValue ?? '', strict)]);
    throw badRequest(`${ctx.kind} in version ${JSON.stringify(ctx.version)} cannot be handled as a ${ctx.kind}: ${strict}`);
  }
  return messages;
}

/**
 * The messages in the order upstream's strict JSON decoder finds them: in
 * document order, a duplicate where its second occurrence is, an unknown field
 * where it first occurs; a repeated unknown key (or anything inside an unknown
 * field) is reported once, as unknown.
 */
function strictDecodingOrder(rawJson: string | undefined, duplicates: readonly string[], unknown: string[]): string[] {
  if (rawJson === undefined || duplicates.length === 0 || unknown.length === 0) {
    return [...duplicates.map(duplicateFieldMessage), ...unknown.map(unknownFieldMessage)];
  }
  const offsets: number[] = [];
  const firstSeen = new Map<string, number>();
  findDuplicateFields(rawJson, offsets, firstSeen);
  const under = (path: string, parent: string): boolean => path === parent || path.startsWith(`${parent}.`) || path.startsWith(`${parent}[`);
  const entries: Array<{ at: number; message: string }> = [];
  duplicates.forEach((path, i) => {
    if (!unknown.some((u) => under(path, u))) entries.push({ at: offsets[i] ?? Number.MAX_SAFE_INTEGER, message: duplicateFieldMessage(path) });
  });
  for (const path of unknown) entries.push({ at: firstSeen.get(path) ?? Number.MAX_SAFE_INTEGER, message: unknownFieldMessage(path) });
  return entries.sort((a, b) => a.at - b.at).map((e) => e.message);
}

/** One warning as an HTTP Warning header value: code 299, agent "-", quoted text. */
export function warningHeaderValue(text: string): string {
  return `299 - "${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** Adds the warnings (deduplicated, in order) to a response that has not been written yet. */
export function setWarningHeaders(res: ServerResponse, messages: string[]): void {
  if (messages.length === 0 || res.headersSent) return;
  const existing = res.getHeader('Warning');
  const values = Array.isArray(existing) ? existing.map(String) : existing === undefined ? [] : [String(existing)];
  for (const text of messages) {
    const value = warningHeaderValue(text);
    if (!values.includes(value)) values.push(value);
  }
  res.setHeader('Warning', values);
}
