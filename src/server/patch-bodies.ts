// Decoding the bodies of patches and server-side applies as kube-apiserver's
// patch handler does: its error texts (encoding/json's and the YAML decoder's
// words), the strict decode's repeated keys (of any YAML body too), depth
// and alias limits.

import YAML from 'yaml';
import { badRequest } from '../machinery/errors.js';
import { goJsonSyntaxError } from '../machinery/go-json-syntax.js';
import { jsonDepthError, valueTooDeep } from '../machinery/json-depth.js';
import { replaceLoneSurrogates } from '../machinery/json-surrogates.js';
import type { WriteOptions } from '../registry/rest.js';
import { EXCESSIVE_ALIASING, isExcessiveAliasing, YAML_PARSE_OPTIONS, YAML_TO_JS_OPTIONS, YAML_TOO_DEEP, yamlErrorText } from './codecs.js';

/**
 * An apply body (YAML, or JSON as kubectl and client-go send it) as a map,
 * with its repeated keys as upstream's strict decoder words them when `strict`.
 */
export function parseApplyBody(body: Buffer, strict: boolean): { config: Record<string, unknown>; warnings: string[]; json?: true } {
  const text = body.toString('utf8');
  // JSON is YAML, and what kubectl and client-go send: parse it as JSON (a hundred times faster than the YAML parser).
  if (/^\s*\{/.test(text)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined && jsonDepthError(text) !== undefined) throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${YAML_TOO_DEEP}`);
    if (parsed !== undefined) return { config: replaceLoneSurrogates(parsed, text) as Record<string, unknown>, warnings: strict ? jsonDuplicateKeys(text) : [], json: true };
  }
  let doc: YAML.Document.Parsed | undefined;
  let value: unknown;
  try {
    doc = YAML.parseDocument(text, YAML_PARSE_OPTIONS);
    if (doc.errors.length > 0) throw doc.errors[0];
    value = doc.toJS(YAML_TO_JS_OPTIONS) as unknown;
    if (valueTooDeep(value)) throw new RangeError(YAML_TOO_DEEP);
  } catch (err) {
    const message = isExcessiveAliasing(err) ? EXCESSIVE_ALIASING : yamlErrorText(err);
    throw badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${message}`);
  }
  if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value))) {
    const what = Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value === 'boolean' ? 'bool' : 'number';
    throw badRequest(`error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
  }
  const config = (value ?? {}) as Record<string, unknown>;
  // Duplicate keys: Strict fails, Warn warns (upstream's strict YAML decode of apply bodies).
  return { config, warnings: strict ? duplicateKeys(doc, text) : [] };
}

/** Repeated keys of the JSON objects in `text`, as the YAML decoder reports them (`line N: key "k" already set in map`). */
function jsonDuplicateKeys(text: string): string[] {
  const out: string[] = [];
  const stack: Array<Set<string> | null> = [];
  let line = 1;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    else if (c === 123 /* { */) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 91 /* [ */) {
      stack.push(null);
      expectKey = false;
    } else if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
      expectKey = false;
    } else if (c === 44 /* , */) expectKey = stack[stack.length - 1] instanceof Set;
    else if (c === 34 /* " */) {
      let j = i + 1;
      while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
      if (expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        const keys = stack[stack.length - 1]!;
        if (keys.has(key)) out.push(`line ${line}: key ${JSON.stringify(key)} already set in map`);
        else keys.add(key);
        expectKey = false;
      }
      i = j;
    }
  }
  return out;
}

/** `line N: key "k" already set in map` for each repeated key of a YAML mapping. */
export function duplicateKeys(doc: YAML.Document.Parsed, text: string): string[] {
  const out: string[] = [];
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  YAML.visit(doc, {
    Map(_key, node) {
      const seen = new Set<string>();
      for (const pair of node.items) {
        const k = YAML.isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (seen.has(k)) {
          const at = YAML.isNode(pair.key) && pair.key.range !== undefined && pair.key.range !== null ? lineOf(pair.key.range[0]) : 0;
          out.push(`line ${at}: key ${JSON.stringify(k)} already set in map`);
        }
        seen.add(k);
      }
    },
  });
  return out;
}

function goJsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

/**
 * Parses a patch body as upstream's patch handler does. With fieldValidation
 * Warn or Strict (Warn is the default) JSON and merge patches are first
 * decoded strictly into their Go shape, and any failure is "error decoding
 * patch: …" with encoding/json's message; with Ignore a merge patch that is not
 * JSON is "Invalid JSON Patch" and a JSON patch gives the parse error alone. A
 * strategic merge patch always gives the decoder's message alone.
 */
export function parsePatch(text: string, patchType: string, directive: NonNullable<WriteOptions['fieldValidation']>): unknown {
  const decodesFirst = directive !== 'Ignore' && patchType !== 'application/strategic-merge-patch+json';
  const fail = (message: string): never => {
    throw badRequest(decodesFirst ? `error decoding patch: ${message}` : message);
  };
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (err) {
    if (!decodesFirst && patchType === 'application/merge-patch+json') throw badRequest('Invalid JSON Patch');
    fail(goJsonSyntaxError(text) ?? (err instanceof Error ? err.message : String(err)));
  }
  const tooDeep = jsonDepthError(text);
  if (tooDeep !== undefined) fail(tooDeep);
  patch = replaceLoneSurrogates(patch, text);
  if (patchType === 'application/json-patch+json') {
    if (!decodesFirst || patch === null) return patch;
    if (!Array.isArray(patch)) fail(`json: cannot unmarshal ${goJsonKind(patch)} into Go value of type []handlers.jsonPatchOp`);
    for (const op of patch as unknown[]) {
      if (op !== null && (typeof op !== 'object' || Array.isArray(op))) fail(`json: cannot unmarshal ${goJsonKind(op)} into Go value of type handlers.jsonPatchOp`);
    }
    return patch;
  }
  if ((decodesFirst || patchType === 'application/strategic-merge-patch+json') && patch !== null && (typeof patch !== 'object' || Array.isArray(patch))) {
    fail(`json: cannot unmarshal ${goJsonKind(patch)} into Go value of type map[string]interface {}`);
  }
  return patch;
}
