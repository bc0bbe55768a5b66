// Codecs: objects to bytes for responses and request bodies to objects, in the
// media types we serve (JSON, YAML, Kubernetes protobuf via src/api/schema), with
// upstream's error messages for bodies that cannot be decoded
// (handlers/rest.go transformDecodeError, the create/update handlers' kind and
// version checks).

import YAML from 'yaml';
import { decodeProtobuf, encodeProtobuf } from '../api/schema/protobuf.js';
import { StatusError, badRequest } from '../machinery/errors.js';
import { goJsonSyntaxError } from '../machinery/go-json-syntax.js';
import { jsonDepthError, MAX_JSON_DEPTH, valueTooDeep } from '../machinery/json-depth.js';
import { replaceLoneSurrogates } from '../machinery/json-surrogates.js';
import { isImmutable, jsonBytes } from '../machinery/json-memo.js';
import type { KubeObject } from '../machinery/meta.js';
import { apiVersionOf, parseApiVersion } from '../machinery/meta.js';
import { splicedListJSON } from './list-json.js';

/**
 * go-yaml v2 reads a plain scalar as a float only when it has a digit (strconv.ParseFloat must take
 * it): the yaml package's YAML 1.1 float tests also match "." and "e5", which Go leaves plain.
 */
const GO_FLOAT_TESTS = new Map<string, RegExp>([
  ['^[-+]?(?:[0-9][0-9_]*)?\\.[0-9_]*$', /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)$/],
  ['^[-+]?(?:[0-9][0-9_]*)?(?:\\.[0-9_]*)?[eE][-+]?[0-9]+$', /^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$/],
]);

const YAML_OUTPUT_OPTIONS: YAML.DocumentOptions & YAML.SchemaOptions & YAML.ToStringOptions = {
  sortMapEntries: true,
  lineWidth: 0,
  indentSeq: false,
  version: '1.1',
  customTags: (tags) =>
    tags.map((tag) => {
      if (typeof tag !== 'object' || 'collection' in tag || !(tag.test instanceof RegExp)) return tag;
      const test = GO_FLOAT_TESTS.get(tag.test.source);
      return test === undefined ? tag : ({ ...tag, test } satisfies YAML.ScalarTag);
    }),
};

/**
 * Serializes a response body. JSON ends with a newline, as Go's json.Encoder writes it.
 * Protobuf throws 406 for a kind with no protobuf form (a Table).
 */
export function encodeBody(value: unknown, mediaType: string, pretty = false): string | Uint8Array {
  if (mediaType === PROTOBUF) return encodeProtobuf(value as KubeObject);
  if (mediaType === 'application/yaml') {
    // sigs.k8s.io/yaml goes through a generic map, so upstream's YAML has sorted keys. Its emitter is
    // go-yaml v2's: a sequence in a map is not indented, and a string YAML 1.1 would read as another
    // type (a timestamp, yes/no/on/off, y/n, 0777, 1_000, 12:30:00) is quoted, keys included.
    return YAML.stringify(value, YAML_OUTPUT_OPTIONS);
  }
  if (pretty) return JSON.stringify(value, null, 2) + '\n';
  // Objects of the watch cache keep their JSON bytes: a list splices its items' (json-memo.ts).
  // (Responses write lists in parts, from reused memory: responses.ts, list-json.ts.)
  if (typeof value === 'object' && value !== null) {
    const spliced = Array.isArray((value as { items?: unknown }).items) ? splicedListJSON(value, '\n', Buffer.allocUnsafe) : undefined;
    if (spliced !== undefined) return spliced;
    if (isImmutable(value)) return Buffer.concat([jsonBytes(value), NEWLINE]);
  }
  return JSON.stringify(value) + '\n';
}

const NEWLINE = Buffer.from('\n');

/** What the endpoint expects a body to be. */
export interface ExpectedKind {
  group: string;
  version: string;
  kind: string;
}

/**
 * Decodes a create/update body into an object of the endpoint's kind.
 * `isKnownKind(apiVersion, kind)` tells whether the server serves that kind at
 * that version at all (upstream's scheme), which changes the error message.
 */
export function decodeObject(
  body: Buffer,
  mediaType: string,
  expected: ExpectedKind,
  isKnownKind: (apiVersion: string, kind: string) => boolean,
  /** Unstructured (custom resources): any kind decodes; the store checks it. */
  anyKind = false,
  /** The body as UTF-8 text, when the caller has it already (JSON and YAML bodies). */
  text?: string,
): KubeObject {
  const parsed = parseDocument(body, mediaType, expected.kind, text);
  if (parsed === null) return fillTypeMeta({ metadata: {} }, expected);
  const wrongType = typeFieldsError(parsed);
  if (wrongType !== undefined) throw unrecognized(expected.kind, wrongType, body);
  const object = parsed as Record<string, unknown>;
  if (anyKind) {
    if (typeof object['apiVersion'] !== 'string' || object['apiVersion'] === '') object['apiVersion'] = apiVersionOf(expected);
    if (typeof object['kind'] !== 'string' || object['kind'] === '') object['kind'] = expected.kind;
    return object as KubeObject;
  }
  const mismatch = typeMismatch(object, expected, isKnownKind);
  if (mismatch !== undefined) throw badRequest(mismatch.message);
  const metadata = object['metadata'];
  if (metadata !== undefined && metadata !== null && (typeof metadata !== 'object' || Array.isArray(metadata))) {
    throw badRequest(
      `${expected.kind} in version ${JSON.stringify(expected.version)} cannot be handled as a ${expected.kind}: json: cannot unmarshal ${goTypeName(Array.isArray(metadata) ? 'array' : typeof metadata)} into Go struct field ${expected.kind}.metadata of type v1.ObjectMeta`,
    );
  }
  return fillTypeMeta(object as KubeObject, expected);
}

/** A document whose type fields name another kind or version than the endpoint's: what the decoder says. */
export interface TypeMismatch {
  /** The decode error as a create or update answers it (400). */
  message: string;
  /** The decoder's own error, as a patch's 422 quotes it after the patched document. */
  inner: string;
  /** The kind the document names, when the server serves it (its typed decode comes first upstream). */
  known?: { group: string; version: string; kind: string };
}

export function typeMismatch(object: Record<string, unknown>, expected: ExpectedKind, isKnownKind: (apiVersion: string, kind: string) => boolean): TypeMismatch | undefined {
  const apiVersion = typeof object['apiVersion'] === 'string' ? object['apiVersion'] : '';
  const kind = typeof object['kind'] === 'string' ? object['kind'] : '';
  const expectedApiVersion = apiVersionOf(expected);
  // Missing type fields default to the endpoint's, as upstream's defaultGVK does.
  const gotApiVersion = apiVersion === '' ? expectedApiVersion : apiVersion;
  const gotKind = kind === '' ? expected.kind : kind;
  if (gotApiVersion === expectedApiVersion && gotKind === expected.kind) return undefined;
  const gv = parseApiVersion(gotApiVersion);
  const prefix = `${gotKind} in version ${JSON.stringify(gv.version)} cannot be handled as a ${expected.kind}: `;
  if (!isKnownKind(gotApiVersion, gotKind)) {
    const inner = `no kind ${JSON.stringify(gotKind)} is registered for version ${JSON.stringify(gotApiVersion)} in scheme "pkg/runtime/scheme.go:100"`;
    return { message: prefix + inner, inner };
  }
  const known = { group: gv.group, version: gv.version, kind: gotKind };
  if (gotKind !== expected.kind) {
    const inner = `converting (${gv.version}.${gotKind}) to (${internalPackage(expected.group)}.${expected.kind}): unknown conversion`;
    return { message: prefix + inner, inner, known };
  }
  const message = `the API version in the data (${gotApiVersion}) does not match the expected API version (${expectedApiVersion})`;
  return { message, inner: message, known };
}

/** Parses a body that is not an object of a kind: DeleteOptions, patches. Malformed → 400. */
export function decodeDocument(body: Buffer, mediaType: string, kindForErrors: string): unknown {
  return parseDocument(body, mediaType, kindForErrors);
}

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

function parseDocument(body: Buffer, mediaType: string, kindForErrors: string, bodyText?: string): unknown {
  // A body that is not a Kubernetes protobuf envelope of a known kind is a 400.
  if (mediaType === PROTOBUF) return decodeProtobuf(body);
  const text = bodyText ?? body.toString('utf8');
  if (mediaType === 'application/yaml') {
    try {
      const docs = YAML.parseAllDocuments(text, YAML_PARSE_OPTIONS);
      const first = Array.isArray(docs) ? docs[0] : docs;
      if (first === undefined) return null;
      if (first.errors.length > 0) throw first.errors[0];
      const value = first.toJS(YAML_TO_JS_OPTIONS) as unknown;
      if (valueTooDeep(value)) throw new RangeError(YAML_TOO_DEEP);
      return value;
    } catch (err) {
      // Go's YAML decoder reports aliasing before the conversion to JSON.
      if (isExcessiveAliasing(err)) throw unrecognized(kindForErrors, `yaml: ${EXCESSIVE_ALIASING}`, body);
      throw unrecognized(kindForErrors, `error converting YAML to JSON: yaml: ${yamlErrorText(err)}`, body);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw unrecognized(kindForErrors, `couldn't get version/kind; json parse error: ${goJsonMessage(err, text)}`, body);
  }
  const tooDeep = jsonDepthError(text);
  if (tooDeep !== undefined) throw unrecognized(kindForErrors, `couldn't get version/kind; json parse error: ${tooDeep}`, body);
  return replaceLoneSurrogates(value, text);
}

/**
 * How request bodies in YAML are read, as sigs.k8s.io/yaml (go-yaml v2) reads
 * them: a duplicate key is no error (the last one wins), `!!binary` is the
 * string of its decoded bytes. Alias expansion is bounded by maxAliasCount
 * (a billion-laughs body is a 400, as go-yaml's "excessive aliasing").
 */
export const YAML_PARSE_OPTIONS = {
  uniqueKeys: false,
  customTags: [
    {
      tag: 'tag:yaml.org,2002:binary',
      identify: () => false,
      resolve: (source: string): string => Buffer.from(source.replace(/\s+/g, ''), 'base64').toString('utf8'),
    },
  ],
} satisfies YAML.ParseOptions & YAML.DocumentOptions & YAML.SchemaOptions;

export const YAML_TO_JS_OPTIONS = { maxAliasCount: 100 } satisfies YAML.ToJSOptions;

/** go-yaml's message for a document whose aliases expand too far. */
export const EXCESSIVE_ALIASING = 'document contains excessive aliasing';

/**
 * A YAML body nested past MAX_JSON_DEPTH (json-depth.ts says why), in
 * go-yaml's words; a stack overflow while converting it counts as the same.
 */
export const YAML_TOO_DEEP = `exceeded max depth of ${MAX_JSON_DEPTH}`;

export function isYamlTooDeep(err: unknown): boolean {
  return err instanceof RangeError && (err.message === YAML_TOO_DEEP || /call stack/.test(err.message));
}

export function isExcessiveAliasing(err: unknown): boolean {
  return err instanceof Error && /Excessive alias count/.test(err.message);
}

/** A YAML parse error as go-yaml words its position: `line N: message`. */
export function yamlErrorText(err: unknown): string {
  if (isYamlTooDeep(err)) return YAML_TOO_DEEP;
  const line = err instanceof YAML.YAMLError && err.linePos !== undefined ? `line ${err.linePos[0].line}: ` : '';
  const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return `${line}${message}`;
}

function fillTypeMeta(object: KubeObject, expected: ExpectedKind): KubeObject {
  if (object.apiVersion === undefined || object.apiVersion === '') object.apiVersion = apiVersionOf(expected);
  if (object.kind === undefined || object.kind === '') object.kind = expected.kind;
  if (object.metadata === undefined || object.metadata === null) object.metadata = {};
  return object;
}

/** A body the decoder could not read: a 400 for an object; `decodeError` is the decoder's own text. */
export class UnreadableBody extends StatusError {
  constructor(
    kind: string,
    readonly decodeError: string,
    body: Buffer,
  ) {
    super(400, 'BadRequest', `the object provided is unrecognized (must be of type ${kind}): ${decodeError} (${summarizeData(body, 30)})`);
  }
}

function unrecognized(kind: string, reason: string, body: Buffer): Error {
  return new UnreadableBody(kind, reason, body);
}

/**
 * The decoder's error when a document is no object, or its type fields are
 * not strings (upstream reads them into a struct of two strings first).
 */
export function typeFieldsError(value: unknown): string | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) {
    const got = Array.isArray(value) ? 'array' : typeof value;
    return `couldn't get version/kind; json parse error: json: cannot unmarshal ${goTypeName(got)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
  }
  const o = value as Record<string, unknown>;
  const wrong = (key: string): boolean => o[key] !== undefined && o[key] !== null && typeof o[key] !== 'string' && Object.prototype.hasOwnProperty.call(o, key);
  const apiVersionWrong = wrong('apiVersion');
  const kindWrong = wrong('kind');
  if (!apiVersionWrong && !kindWrong) return undefined;
  // In the document's order: the first wrong one is the error.
  const key = apiVersionWrong && kindWrong ? Object.keys(o).find((k) => k === 'apiVersion' || k === 'kind')! : apiVersionWrong ? 'apiVersion' : 'kind';
  const field = o[key];
  const got = Array.isArray(field) ? 'array' : typeof field === 'boolean' ? 'bool' : typeof field;
  return `couldn't get version/kind; json parse error: json: cannot unmarshal ${got} into Go struct field .${key} of type string`;
}

/** Upstream's summarizeData: the first bytes of an object body, hex for anything else. */
export function summarizeData(data: Buffer, maxLength: number): string {
  if (data.length === 0) return '<empty>';
  const head = data.subarray(0, maxLength);
  const suffix = data.length > maxLength ? ' ...' : '';
  if (data[0] === 0x7b /* { */) return head.toString('utf8') + suffix;
  return head.toString('hex') + suffix;
}

/** The internal Go package upstream converts into: "core" for the core group, else the group's first label. */
function internalPackage(group: string): string {
  return group === '' ? 'core' : group.split('.')[0]!;
}

function goTypeName(jsType: string): string {
  switch (jsType) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'array';
    default:
      return jsType;
  }
}

/** Go's encoding/json message for a body JSON.parse rejected. */
function goJsonMessage(err: unknown, text: string): string {
  return goJsonSyntaxError(text) ?? (err instanceof Error ? err.message : String(err));
}
