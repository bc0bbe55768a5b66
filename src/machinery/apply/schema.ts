/**
 * The schema server-side apply needs, and nothing more: how each node of an
 * object merges. Built-in kinds get it from the schema registry
 * (src/api/schema/apply-schema.ts); a custom resource would get it from its
 * structural schema (x-kubernetes-list-type, -list-map-keys, -map-type,
 * x-kubernetes-preserve-unknown-fields as `untyped`). Nodes may be built lazily
 * and are never changed once handed out.
 *
 * - `scalar`: a leaf (strings, numbers, booleans, and upstream's special
 *   scalars: quantities, times, int-or-string).
 * - `map`: a JSON object. `field(name)` gives a declared field's type (a
 *   struct); other keys have `elements` (a map's values). `atomic` replaces the
 *   whole object on apply (structType/mapType atomic).
 * - `list`: a JSON array. `listType` atomic (replaced whole), set (items are
 *   scalars, identified by value) or map (items identified by `keys`, whose
 *   missing values take `keyDefault`).
 * - `untyped`: free-form (RawExtension, preserve-unknown-fields): a scalar,
 *   an atomic list or a granular map of untyped values, decided by the value.
 */

export interface TypeNode {
  readonly kind: 'scalar' | 'map' | 'list' | 'untyped';
  /** map: replaced as a whole. list: listType atomic. */
  readonly atomic: boolean;
  /** map: a declared (struct) field's type, undefined for keys the type does not declare. */
  field(name: string): TypeNode | undefined;
  /** map: the type of undeclared keys' values; list: the items' type. */
  elements(): TypeNode;
  /** map: a struct whose undeclared keys an applied configuration may not use ("field not declared in schema"). */
  readonly closed?: boolean;
  /** list only. */
  readonly listType?: 'atomic' | 'set' | 'map';
  /** list of type map: the key fields. */
  readonly keys?: readonly string[];
  /** list of type map: a key field's default when an item leaves it out (upstream's +default). */
  keyDefault?(name: string): unknown;
  /**
   * map: the declared fields a stored object always carries (Go encodes them
   * without omitempty), with their zero values; a walk over a stored object
   * sees them when they are absent.
   */
  implicit?(): ReadonlyArray<readonly [string, unknown]>;
}

const none = (): undefined => undefined;

export const untyped: TypeNode = {
  kind: 'untyped',
  atomic: false,
  field: none,
  elements: () => untyped,
};

export const scalar: TypeNode = {
  kind: 'scalar',
  atomic: true,
  field: none,
  elements: () => untyped,
};

/** How an untyped node acts for one value. */
export function resolveUntyped(value: unknown): TypeNode {
  if (Array.isArray(value)) return atomicUntypedList;
  if (value !== null && typeof value === 'object') return untypedMap;
  return scalar;
}

const atomicUntypedList: TypeNode = { kind: 'list', atomic: true, listType: 'atomic', field: none, elements: () => untyped };
const untypedMap: TypeNode = { kind: 'map', atomic: false, field: none, elements: () => untyped };
