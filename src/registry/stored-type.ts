// Which stored values a built-in resource's storage takes as its objects, as
// kube-apiserver 1.32's storage codec decides it (measured by writing such
// values into its etcd; test/faults/corrupt-values-reference.test.ts):
//
// - a value without kind or apiVersion is decoded as the resource's type
//   (the codec defaults both from the object it decodes into);
// - the resource's own kind in any version this server serves of its group,
//   or a kind stored as it (events.k8s.io Events are core Events), is taken;
// - a kind the scheme knows but that does not convert to the resource's type
//   is a decode error: `converting (v1.Secret) to (core.ConfigMap): unknown conversion`;
// - a kind the scheme does not know at that apiVersion is one too:
//   `no kind "ConfigMap" is registered for version "v2" in scheme "pkg/runtime/scheme.go:100"`.
//
// A value kube-apiserver stored in protobuf (its default for built-ins) is
// decoded by decodeStoredProtobuf (the etcd backend keeps its bytes), then
// judged the same way.
//
// The scheme here is what apiary serves (every entry's kind and list kind,
// and the meta kinds every group version registers). Upstream's scheme also
// holds versions it no longer serves (apps/v1beta1, extensions/v1beta1) and
// converts those; apiary refuses them as unknown.

import { decodeEnvelope } from '../api/schema/protobuf.js';
import type { KubeObject } from '../machinery/meta.js';
import type { StoredTypeCheck } from '../storage/corrupt-values.js';
import type { CatalogEntry } from './catalog-entry.js';

/** Kinds every group version registers (metav1's options and Status, the watch event). */
const META_KINDS = ['Status', 'WatchEvent', 'DeleteOptions', 'ListOptions', 'GetOptions', 'CreateOptions', 'UpdateOptions', 'PatchOptions'];

/** The registered kinds of every served group version: `apiVersion` → kinds. */
export function servedScheme(entries: readonly CatalogEntry[]): Map<string, Set<string>> {
  const scheme = new Map<string, Set<string>>();
  for (const { type } of entries) {
    const apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
    let kinds = scheme.get(apiVersion);
    if (kinds === undefined) scheme.set(apiVersion, (kinds = new Set(META_KINDS)));
    kinds.add(type.kind);
    kinds.add(type.listKind ?? `${type.kind}List`);
  }
  return scheme;
}

/**
 * The check for the storage `owner` (the entry that stores the objects):
 * what upstream's codec answers for a stored object of another type.
 */
export function builtInTypeCheck(owner: CatalogEntry, entries: readonly CatalogEntry[], scheme: Map<string, Set<string>>): StoredTypeCheck {
  const { group, version, resource, kind } = owner.type;
  const apiVersion = group === '' ? version : `${group}/${version}`;
  // (group, kind) pairs decoded into the owner's type: its own in every served version, and kinds stored as it.
  const same = new Set<string>([`${group}/${kind}`]);
  for (const e of entries) {
    if (e.type.group === group && e.type.resource === resource) same.add(`${e.type.group}/${e.type.kind}`);
    if (e.storedAs?.group === group && e.storedAs.resource === resource) same.add(`${e.type.group}/${e.type.kind}`);
  }
  const internal = `${internalPackage(group)}.${kind}`;
  return (obj: KubeObject): string | undefined => {
    const gotKind = typeof obj.kind === 'string' && obj.kind !== '' ? obj.kind : kind;
    const gotApiVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? obj.apiVersion : apiVersion;
    const slash = gotApiVersion.lastIndexOf('/');
    const gotGroup = slash < 0 ? '' : gotApiVersion.slice(0, slash);
    const gotVersion = gotApiVersion.slice(slash + 1);
    const registered = scheme.get(gotApiVersion)?.has(gotKind) === true;
    if (!registered) return `no kind "${gotKind}" is registered for version "${gotApiVersion}" in scheme "pkg/runtime/scheme.go:100"`;
    if (same.has(`${gotGroup}/${gotKind}`)) {
      obj.apiVersion = gotApiVersion;
      obj.kind = gotKind;
      return undefined;
    }
    return `converting (${gotVersion}.${gotKind}) to (${internal}): unknown conversion`;
  };
}

/**
 * A built-in object kube-apiserver stored in protobuf (its default storage
 * media type): an etcd written by kube-apiserver is read as it is. The
 * envelope names the apiVersion and kind, which the type check then judges.
 */
export function decodeStoredProtobuf(bytes: Uint8Array): KubeObject {
  // kube-apiserver 1.32.4's words for an envelope with nothing after the magic and for short data.
  if (bytes.length <= 4) throw new Error('empty body');
  let obj: KubeObject;
  try {
    obj = decodeEnvelope(bytes);
  } catch (err) {
    if (err instanceof RangeError || (err instanceof Error && /index out of range|invalid wire type/.test(err.message))) throw new Error('unexpected EOF');
    throw err;
  }
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  return obj;
}

/** The Go package name of a group's internal types (`core`, `apps`, `rbac`, `apiserverinternal`). */
function internalPackage(group: string): string {
  if (group === '') return 'core';
  if (group === 'internal.apiserver.k8s.io') return 'apiserverinternal';
  return group.split('.')[0]!;
}
