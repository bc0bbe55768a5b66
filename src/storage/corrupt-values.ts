// Stored values that cannot be decoded (a foreign writer, a bit flip, a
// half-migrated encoding): how every read path meets them without ending the
// process, and what it tells the client and the operator.
//
// Contract:
// - decodeStored(value, revision, key, resource) is the only way the object
//   layer turns a stored value into an object. A value that is not a JSON
//   object (garbage, a truncated value, a JSON scalar, protobuf where the
//   store has no protobuf decoder or the bytes are no object, an encrypted
//   value this server has no key for, an unknown prefix) throws a
//   CorruptObjectError: a StatusError 500 worded as kube-apiserver 1.32 words
//   it (see corruptMessage), carrying the key and revision. An object of
//   another type than the resource's (a wrong kind, an apiVersion the server
//   does not know) is one too, when the store was given a StoredTypeCheck:
//   upstream's storage codec refuses it while decoding, with its own words.
// - Every failure is reported to the backend's CorruptValues (one per backend,
//   found by corruptValuesOf): it counts failures per resource (upstream's
//   apiserver_storage_decode_errors_total) and calls the log hook once per
//   key and revision, not per request.
// - unsafeDeletion mirrors the AllowUnsafeMalformedObjectDeletion feature gate:
//   with it the error reads as upstream's corrupt-object StorageError
//   ("Internal error occurred: StorageError: corrupt object, …"), and a list
//   that meets corrupt values answers upstream's StoreReadError listing them.

import type { Backend } from './interface.js';
import { MANAGED_FIELDS_PREFIX, decodeStoredValue } from './managed-fields-codec.js';
import { StatusError, type StatusDetails } from '../machinery/errors.js';
import type { GroupResource, KubeObject } from '../machinery/meta.js';

/**
 * Whether a decoded value is of the resource's type, as upstream's storage
 * codec decides it: undefined when it is (the check may fill what upstream's
 * decoder defaults, such as a missing kind), else the codec's error text.
 * `value` is the stored text (some of upstream's errors quote it).
 */
export type StoredTypeCheck = (obj: KubeObject, value: string) => string | undefined;

/** What a store knows beyond JSON about its stored values (given by the registry, which knows the types). */
export interface StoredDecoders {
  typeCheck?: StoredTypeCheck;
  /**
   * Reads kube-apiserver's protobuf encoding (`k8s\0` + runtime.Unknown) of a
   * built-in object; throws when the bytes are no such object. Without it a
   * protobuf value is corrupt.
   */
  protobuf?: (bytes: Uint8Array) => KubeObject;
}

/** A stored value that could not be decoded. */
export class CorruptObjectError extends StatusError {
  constructor(
    readonly key: string,
    readonly revision: number,
    /** What the decoder said (upstream's codec wording). */
    readonly decodeError: string,
    /** What the client is told. */
    code: number,
    reason: '' | 'InternalError',
    message: string,
  ) {
    super(code, reason, message, reason === 'InternalError' ? { causes: [{ message: message.replace(/^Internal error occurred: /, '') }] } : undefined);
  }
}

export function isCorruptObjectError(err: unknown): err is CorruptObjectError {
  return err instanceof CorruptObjectError;
}

export interface CorruptValueReport {
  /** upstream's resource label: `configmaps`, `deployments.apps`. */
  resource: string;
  key: string;
  revision: number;
  cause: string;
}

/** Per-backend record of decode failures (see the file comment). */
export class CorruptValues {
  /** AllowUnsafeMalformedObjectDeletion: upstream's corrupt-object errors and unsafe deletion. */
  unsafeDeletion = false;
  private readonly counts = new Map<string, number>();
  private readonly logged = new Set<string>();
  private readonly listeners: Array<(report: CorruptValueReport) => void> = [];

  /** Called once per key and revision that failed to decode (the log line). */
  onFirstFailure(listener: (report: CorruptValueReport) => void): void {
    this.listeners.push(listener);
  }

  record(report: CorruptValueReport): void {
    this.counts.set(report.resource, (this.counts.get(report.resource) ?? 0) + 1);
    const id = `${report.key}@${report.revision}`;
    if (this.logged.has(id)) return;
    // Bounded: a store full of garbage must not grow this without end.
    if (this.logged.size >= 10_000) this.logged.clear();
    this.logged.add(id);
    for (const listener of this.listeners) {
      try {
        listener(report);
      } catch {
        // A log hook must not turn a 500 into something worse.
      }
    }
  }

  /** Decode failures so far, per resource label. */
  failures(): ReadonlyMap<string, number> {
    return this.counts;
  }
}

const byBackend = new WeakMap<Backend, CorruptValues>();

/**
 * The CorruptValues of a backend (made on first use). Stores reach it through
 * the backend they already hold, so no layer in between has to pass it on.
 */
export function corruptValuesOf(backend: Backend): CorruptValues {
  let values = byBackend.get(backend);
  if (values === undefined) byBackend.set(backend, (values = new CorruptValues()));
  return values;
}

/** upstream's resource label for metrics: the resource, `.group` for non-core groups. */
export function resourceLabel(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/**
 * The object of a stored value at `revision`, or a CorruptObjectError (recorded
 * on `values`) when the value is not an object. `messageKey` is the key as
 * upstream's GET names it (without the storage prefix).
 */
export function decodeStored(
  value: string,
  revision: number,
  key: string,
  gr: GroupResource,
  values: CorruptValues,
  messageKey = key,
  decoders: StoredDecoders = {},
): KubeObject {
  let obj: unknown;
  let cause: string | undefined;
  if (value.startsWith(PROTOBUF_PREFIX) && decoders.protobuf !== undefined) {
    // The backend keeps a protobuf value byte for byte, one latin1 character per byte.
    try {
      obj = decoders.protobuf(Buffer.from(value, 'latin1'));
    } catch (err) {
      // The decoder words its failure as upstream's protobuf serializer does.
      cause = err instanceof Error ? err.message : String(err);
    }
  } else {
    try {
      obj = decodeStoredValue(value);
    } catch (err) {
      cause = corruptMessage(value, err);
    }
  }
  if (cause === undefined && (typeof obj !== 'object' || obj === null || Array.isArray(obj))) {
    // Valid JSON that is no object: upstream never takes it for JSON (its JSON decoder wants `{`).
    cause = corruptMessage(value, undefined);
  }
  if (cause === undefined) {
    const o = obj as KubeObject;
    if (o.metadata !== undefined && (typeof o.metadata !== 'object' || o.metadata === null || Array.isArray(o.metadata))) {
      cause = `json: cannot unmarshal ${goJsonKind(o.metadata)} into Go struct field ${typeof o.kind === 'string' ? o.kind : 'Object'}.metadata of type v1.ObjectMeta`;
    } else {
      cause = decoders.typeCheck?.(o, value);
      if (cause === undefined) {
        o.metadata ??= {};
        o.metadata.resourceVersion = String(revision);
        return o;
      }
    }
  }
  throw corruptObject(key, messageKey, revision, cause, gr, values);
}

/** Records the failure and builds the client's error. */
export function corruptObject(
  key: string,
  messageKey: string,
  revision: number,
  cause: string,
  gr: GroupResource,
  values: CorruptValues,
): CorruptObjectError {
  values.record({ resource: resourceLabel(gr), key, revision, cause });
  if (cause === ENCRYPTED) {
    // A transformer failure: upstream's storage InternalError, with or without the gate.
    const message = values.unsafeDeletion
      ? `Internal error occurred: StorageError: corrupt object, Code: 7, Key: ${messageKey}, ResourceVersion: 0, AdditionalErrorMsg: data from the storage is not transformable revision=0: ${cause}`
      : `Internal error occurred: ${cause}`;
    return new CorruptObjectError(key, revision, cause, 500, 'InternalError', message);
  }
  if (values.unsafeDeletion) {
    const message = `Internal error occurred: StorageError: corrupt object, Code: 7, Key: ${messageKey}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${revision}: ${cause}`;
    return new CorruptObjectError(key, revision, cause, 500, 'InternalError', message);
  }
  // Without the gate the decoder's error reaches the client as it is: a plain 500.
  return new CorruptObjectError(key, revision, cause, 500, '', cause);
}

/**
 * upstream's StoreReadError for a list that met corrupt values (with the
 * gate): every key with its error as a cause, at most 100.
 */
export function storeReadError(gr: GroupResource, errors: readonly CorruptObjectError[]): StatusError {
  const causes: Array<{ reason?: string; message?: string; field?: string }> = [];
  for (const err of errors.slice(0, 100)) {
    causes.push({
      reason: 'UnexpectedServerResponse',
      message: corruptDetail(err),
      field: err.key,
    });
  }
  if (errors.length > 100) causes.push({ reason: 'TooMany', message: 'too many errors, the list is truncated' });
  const qualified = gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
  const details: StatusDetails = { name: 'list' };
  if (gr.group !== '') details.group = gr.group;
  details.kind = gr.resource;
  details.causes = causes;
  return new StatusError(500, 'StorageReadError', `failed to read one or more ${qualified} from the storage`, details);
}

/** upstream's StorageError text for one corrupt value, under its full key. */
function corruptDetail(err: CorruptObjectError): string {
  const what = err.decodeError === ENCRYPTED ? 'data from the storage is not transformable revision=0' : `object not decodable revision=${err.revision}`;
  return `StorageError: corrupt object, Code: 7, Key: ${err.key}, ResourceVersion: 0, AdditionalErrorMsg: ${what}: ${err.decodeError}`;
}

const ENCRYPTED = 'identity transformer tried to read encrypted data';
const PROTOBUF_PREFIX = 'k8s\u0000';

/**
 * What kube-apiserver 1.32's storage decoder says about a value it cannot
 * read (measured against it, see test/faults/corrupt-values.test.ts). Its
 * decoder tries protobuf (values starting `k8s\0`) and JSON (values starting
 * `{`) by their look; anything else goes to YAML and last to base64-wrapped
 * data, whose complaint is the one reported.
 */
function corruptMessage(value: string, err: unknown): string {
  if (value.startsWith('k8s:enc:')) return ENCRYPTED;
  if (value.startsWith(MANAGED_FIELDS_PREFIX)) return `object not decodable: corrupt managedFields encoding: ${err instanceof Error ? err.message : String(err)}`;
  return universalDecodeError(value, true);
}

function universalDecodeError(value: string, base64Wrapped: boolean): string {
  if (value.startsWith(PROTOBUF_PREFIX)) return 'object not decodable: protobuf stored values are not supported by this server';
  if (value.trimStart().startsWith('{')) {
    try {
      JSON.parse(value);
    } catch (err) {
      return `couldn't get version/kind; json parse error: ${goJsonSyntaxError(value, err)}`;
    }
    return 'object not decodable';
  }
  if (base64Wrapped) {
    const bad = base64ErrorOffset(value);
    if (bad !== undefined) return `illegal base64 data at input byte ${bad}`;
    return universalDecodeError(Buffer.from(value, 'base64').toString('utf8'), false);
  }
  // YAML: a scalar is no object.
  const text = value.trim();
  const kind = /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text) ? 'number' : /^(true|false)$/.test(text) ? 'bool' : 'string';
  return `couldn't get version/kind; json parse error: json: cannot unmarshal ${kind} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`;
}

/** Go's encoding/json wording for what JSON.parse rejected. */
function goJsonSyntaxError(value: string, err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  if (/Unexpected end of JSON input|Unterminated string/i.test(text)) return 'unexpected end of JSON input';
  const at = /at position (\d+)/.exec(text);
  const ch = at !== null ? value[Number(at[1])] : /Unexpected token '?(.)'?/.exec(text)?.[1];
  if (ch === undefined) return 'unexpected end of JSON input';
  const c = goQuoteChar(ch);
  if (/after property value/.test(text)) return `invalid character ${c} after object key:value pair`;
  if (/after array element/.test(text)) return `invalid character ${c} after array element`;
  if (/property name or '}'|Expected double-quoted property name/.test(text)) return `invalid character ${c} looking for beginning of object key string`;
  if (/':' after property name/.test(text)) return `invalid character ${c} after object key`;
  if (/non-whitespace character after JSON/.test(text)) return `invalid character ${c} after top-level value`;
  if (/control character/.test(text)) return `invalid character ${c} in string literal`;
  return `invalid character ${c} looking for beginning of value`;
}

/**
 * Where Go's base64.StdEncoding.Decode reports a value corrupt, or undefined
 * when it decodes (then upstream fails later, deeper in the value).
 */
export function base64ErrorOffset(value: string): number | undefined {
  const valid = (c: string): boolean => /[A-Za-z0-9+/]/.test(c);
  let si = 0;
  const n = value.length;
  while (si < n) {
    let j = 0;
    while (j < 4) {
      if (si === n) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = value[si]!;
      si++;
      if (c === '\n' || c === '\r') continue;
      if (valid(c)) {
        j++;
        continue;
      }
      if (c !== '=') return si - 1;
      // Padding: only in the third or fourth place, and nothing after it but newlines.
      if (j < 2) return si - 1;
      if (j === 2) {
        while (si < n && (value[si] === '\n' || value[si] === '\r')) si++;
        if (si === n) return n;
        if (value[si] !== '=') return si - 1;
        si++;
      }
      while (si < n && (value[si] === '\n' || value[si] === '\r')) si++;
      return si < n ? si : undefined;
    }
  }
  return undefined;
}

function goJsonKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'object';
}

/** Go's quoteChar in encoding/json. */
function goQuoteChar(ch: string): string {
  if (ch === "'") return "'\\''";
  if (ch === '"') return `'"'`;
  const quoted = JSON.stringify(ch);
  return `'${quoted.slice(1, -1)}'`;
}
