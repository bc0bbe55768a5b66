/**
 * Pruning: drop the fields the schema does not know, as upstream's typed decoding does.
 *
 * Contract:
 * - `pruneObject(group, version, kind, obj)` removes, in place, every property of `obj`
 *   that its kind's schema does not describe, recursively through structs, arrays and
 *   maps, and through apiextensions' schema forms (a CRD's `items`,
 *   `additionalProperties`, … are JSONSchemaProps again; what they drop goes
 *   unreported, as upstream's non-strict decoding of them). Free-form values
 *   (runtime.RawExtension, managedFields' fieldsV1, Table cells, a CRD schema's
 *   `default` / `enum` / `example`) are kept whole. Values of the wrong JSON type are left for validation to reject.
 *   It returns the dropped paths in the order met, written as upstream's strict JSON
 *   decoder writes them (`spec.foo`, `spec.containers[0].bar`, `metadata.labels`'s
 *   keys never, being a map of strings); the warning or error text for one path is
 *   `unknownFieldMessage(path)`: `unknown field "spec.foo"`. A kind the registry does
 *   not describe is left untouched and yields no paths.
 * - `findDuplicateFields(rawJson, offsets?, firstSeen?)` lists the keys that occur twice
 *   in one JSON object, as upstream's strict decoder reports them (`duplicate field
 *   "metadata.name"`); it returns [] for input that is not valid JSON (the decoder will
 *   report that). When asked, it also gives each duplicate's offset in the text
 *   (`offsets`, in step) and the offset where every key path first occurs
 *   (`firstSeen`), so that messages can be put in document order.
 */
import { type DefinitionSchema, type ElementSchema, definitionByName, definitionFor, fieldOf, refOf } from './index.js';

type JsonObject = Record<string, unknown>;

function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function join(parent: string, key: string): string {
  return parent === '' ? key : `${parent}.${key}`;
}

/** The text upstream uses for one unknown field in a Warning header or a strict-decoding error. */
export function unknownFieldMessage(path: string): string {
  return `unknown field ${JSON.stringify(path)}`;
}

/** The text upstream uses for one duplicate field. */
export function duplicateFieldMessage(path: string): string {
  return `duplicate field ${JSON.stringify(path)}`;
}

/** Drops unknown fields of `obj` in place; returns their paths. See the module comment. */
export function pruneObject(group: string, version: string, kind: string, obj: Record<string, unknown>): string[] {
  const def = definitionFor(group, version, kind);
  if (def === undefined) return [];
  const walk: Walk = { segments: [], dropped: [] };
  pruneStruct(def, obj, walk);
  return walk.dropped;
}

/**
 * The walk's state: the path to the current value as segments (keys, and
 * array indexes as numbers), turned into a string only for a dropped field;
 * pruning runs on every write, and most writes drop nothing.
 */
interface Walk {
  segments: (string | number)[];
  dropped: string[];
}

function pathOf(segments: (string | number)[], last: string): string {
  let path = '';
  for (const segment of segments) path = typeof segment === 'number' ? `${path}[${segment}]` : join(path, segment);
  return join(path, last);
}

function pruneStruct(def: DefinitionSchema, obj: JsonObject, walk: Walk): void {
  if (def.special !== undefined) return; // scalars and free-form objects
  for (const key of Object.keys(obj)) {
    const field = fieldOf(def, key);
    if (field === undefined) {
      walk.dropped.push(pathOf(walk.segments, key));
      delete obj[key];
      continue;
    }
    const value = obj[key];
    if (typeof value !== 'object' || value === null) continue; // nothing below a scalar to prune
    walk.segments.push(key);
    pruneValue(field, value, walk);
    walk.segments.pop();
  }
}

function pruneValue(schema: ElementSchema, value: unknown, walk: Walk): void {
  if (value === null || value === undefined) return;
  switch (schema.type) {
    case 'array':
      if (Array.isArray(value) && schema.items !== undefined) {
        const items = schema.items;
        for (let i = 0; i < value.length; i++) {
          walk.segments.push(i);
          pruneValue(items, value[i], walk);
          walk.segments.pop();
        }
      }
      return;
    case 'map':
      if (isPlainObject(value) && schema.values !== undefined) {
        const values = schema.values;
        // A map of scalars (a ConfigMap's data, labels) holds nothing to prune: not walked (it may hold 100,000 keys).
        if (values.type !== 'array' && values.type !== 'map' && refOf(values) === undefined) return;
        for (const key of Object.keys(value)) {
          const item = value[key];
          if (typeof item !== 'object' || item === null) continue; // a map of scalars holds nothing to prune
          walk.segments.push(key);
          pruneValue(values, item, walk);
          walk.segments.pop();
        }
      }
      return;
    default: {
      const ref = refOf(schema);
      if (ref === undefined) return;
      if (ref.special === undefined) {
        if (isPlainObject(value)) pruneStruct(ref, value, walk);
      } else if (ref.special === 'schemaOrArray' || ref.special === 'schemaOrBool' || ref.special === 'schemaOrStringArray') {
        pruneSchemaForm(value);
      }
    }
  }
}

const SCHEMA_PROPS = 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps';

/**
 * apiextensions' JSONSchemaPropsOr{Array,Bool,StringArray}: a schema object is a
 * JSONSchemaProps, so is each object of a list (strings and bools hold nothing).
 * Upstream decodes these forms with their own, non-strict UnmarshalJSON: unknown
 * fields below them are dropped but never reported (no warning, no Strict error).
 */
function pruneSchemaForm(value: unknown): void {
  const props = definitionByName(SCHEMA_PROPS);
  if (props === undefined) return;
  const silent: Walk = { segments: [], dropped: [] };
  const items = Array.isArray(value) ? value : [value];
  for (const item of items) if (isPlainObject(item)) pruneStruct(props, item, silent);
}

/**
 * Finds keys repeated within one JSON object. A small scanner, run on every
 * JSON write body, so it does as little as it can: it keeps a frame per open
 * container (its parent, the key or index it sits at, and for objects the keys
 * seen so far), skips strings with indexOf, decodes only keys that carry
 * escapes, and builds a path only for a duplicate it reports. Other tokens are
 * left to JSON.parse, which the caller runs anyway; validity is checked only
 * when there is something to report.
 */
export function findDuplicateFields(rawJson: string, offsets?: number[], firstSeen?: Map<string, number>): string[] {
  type Frame = {
    parent: Frame | undefined;
    /** Where this container sits in its parent: a key, an array index, or undefined at the top. */
    at: string | number | undefined;
    /** Object keys seen so far; undefined for arrays. */
    seen: Set<string> | undefined;
    /** The current key (objects) or index (arrays); null between an object's members. */
    key: string | number | null;
  };
  const found: string[] = [];
  let top: Frame | undefined;
  let i = 0;
  const n = rawJson.length;

  // Paths as upstream's decoder writes them: members joined with dots, elements as [i].
  const pathOf = (frame: Frame): string => {
    if (frame.parent === undefined) return '';
    const parent = pathOf(frame.parent);
    return typeof frame.at === 'number' ? `${parent}[${frame.at}]` : join(parent, frame.at ?? '');
  };

  while (i < n) {
    const c = rawJson.charCodeAt(i);
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const object = c === 0x7b;
      top = { parent: top, at: top?.key ?? undefined, seen: object ? new Set() : undefined, key: object ? null : 0 };
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      top = top?.parent;
      i++;
    } else if (c === 0x2c /* , */) {
      if (top !== undefined) top.key = top.seen === undefined ? (top.key as number) + 1 : null;
      i++;
    } else if (c === 0x22 /* " */) {
      // The closing quote is the first one not escaped by an odd run of backslashes.
      let end = rawJson.indexOf('"', i + 1);
      for (;;) {
        if (end < 0) return []; // unterminated: not JSON
        let slashes = 0;
        while (rawJson.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end = rawJson.indexOf('"', end + 1);
      }
      if (top?.seen !== undefined && top.key === null) {
        const raw = rawJson.slice(i + 1, end);
        let key = raw;
        if (raw.includes('\\')) {
          try {
            key = JSON.parse(`"${raw}"`) as string;
          } catch {
            return []; // a bad escape: not JSON
          }
        }
        if (top.seen.has(key)) {
          found.push(join(pathOf(top), key));
          offsets?.push(i);
        } else if (firstSeen !== undefined) {
          const path = join(pathOf(top), key);
          if (!firstSeen.has(path)) firstSeen.set(path, i);
        }
        top.seen.add(key);
        top.key = key;
      }
      i = end + 1;
    } else {
      i++; // whitespace, ':', numbers, literals
    }
  }
  if (found.length === 0) return found;
  try {
    JSON.parse(rawJson);
  } catch {
    return [];
  }
  return found;
}
