/**
 * metadata.managedFields on every write (upstream's fieldmanager chain:
 * FieldManager, lastAppliedManager/Updater, skip-non-applied,
 * capManagers, buildManagerInfo, managedFieldsUpdater, stripMeta and the
 * structured merge, for one group/version and one (sub)resource).
 *
 * - `update(live, next, manager)`: any non-apply write; `live` is null on
 *   create. Sets `next.metadata.managedFields`. Entries a client sends on the
 *   main resource replace the stored ones when they decode (`[{}]` clears
 *   them); an empty list, or entries that do not decode, keep the stored ones.
 * - `apply(live, config, manager, force)`: server-side apply; returns the new
 *   object with its managedFields (the live object, re-stamped, when nothing
 *   changed). Throws ConflictsError (see conflicts.ts for the Status).
 *
 * A manager's identity is its name, operation, subresource and, for Update
 * entries, apiVersion: two writes with the same identity share one entry.
 * Entry times are whole seconds and change only when the write took fields.
 */
import type { KubeObject, ManagedFieldsEntry } from '../meta.js';
import { FieldSet } from './fieldset.js';
import { fieldElement } from './path.js';
import type { TypeNode } from './schema.js';
import { compare, toFieldSet } from './typed.js';
import { ConflictsError, type Managers, Updater } from './updater.js';
import { createdFieldsV1, type CreatedFieldsOptions } from './created.js';
import { deepCopy } from '../deep-copy.js';
import { omitKeys } from '../omit-keys.js';

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/** Upstream's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;

export interface FieldManagerOptions {
  /** The kind's schema. */
  root: TypeNode;
  /** group/version of the objects ("v1", "apps/v1"). */
  apiVersion: string;
  /** '' for the main resource, 'status', 'scale', … */
  subresource: string;
  /** Paths nobody owns through this (sub)resource (upstream's reset fields), as JSON field names. */
  resetFields?: string[][];
  clock?: () => Date;
  /** Whether entries get a time (upstream's scale subresource entries have none). Default true. */
  recordTimes?: boolean;
  /** Plain creates take the one-walk path of created.ts (default true; false to check it against the general path). */
  fastCreate?: boolean;
  /**
   * Whether entries recorded under another apiVersion still hold for this
   * kind, their paths unchanged (a custom resource's versions under
   * conversion None). Entries of any other apiVersion are dropped by the
   * next write, as upstream's Updater drops managers whose version it cannot
   * convert to (core/v1 and events.k8s.io/v1 Events, a version removed from a
   * CRD). Default: only this apiVersion.
   */
  convertsFrom?: (apiVersion: string) => boolean;
  /**
   * The objects are unstructured (custom resources): a map or list that an
   * apply empties of everything it held stays as null, as upstream's
   * RemoveItems leaves it (a typed kind's encoding drops that null).
   */
  unstructured?: boolean;
}

/**
 * A field manager's options as data, for one write's field manager rebuilt on
 * a worker thread (server/body-worker.ts): the kind names its apply schema,
 * the write's time stands for the clock and the apiVersions the write's
 * entries carry that convert to this kind's stand for convertsFrom.
 */
export interface FieldManagerJob {
  kind: { group: string; version: string; kind: string };
  apiVersion: string;
  subresource: string;
  resetFields: string[][];
  recordTimes: boolean;
  /** The write's time (the store's clock), in milliseconds since the epoch. */
  now: number;
  convertsFrom: string[];
}

/** The field manager a FieldManagerJob describes, under `root` (the kind's apply schema). */
export function fieldManagerOfJob(job: FieldManagerJob, root: TypeNode): FieldManager {
  const converts = new Set(job.convertsFrom);
  return new FieldManager({
    root,
    apiVersion: job.apiVersion,
    subresource: job.subresource,
    resetFields: job.resetFields,
    clock: () => new Date(job.now),
    recordTimes: job.recordTimes,
    convertsFrom: (apiVersion) => converts.has(apiVersion),
  });
}

/** The apiVersions of the entries in objects' managedFields (what a FieldManagerJob's convertsFrom is asked about). */
export function entryApiVersions(...objects: ReadonlyArray<{ metadata?: { managedFields?: unknown } } | null>): Set<string> {
  const out = new Set<string>();
  for (const o of objects) {
    const entries = o?.metadata?.managedFields;
    if (!Array.isArray(entries)) continue;
    for (const e of entries as unknown[]) {
      if (e === null || typeof e !== 'object') continue;
      const version = (e as ManagedFieldsEntry).apiVersion;
      out.add(typeof version === 'string' ? version : '');
    }
  }
  return out;
}

/** The identity of a manager entry, as upstream's BuildManagerIdentifier. */
export interface ManagerIdentity {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource: string;
}

export function managerKey(id: ManagerIdentity): string {
  const o: Record<string, string> = {};
  if (id.manager !== '') o['manager'] = id.manager;
  if (id.operation as string !== '') o['operation'] = id.operation;
  if (id.operation !== 'Apply' && id.apiVersion !== '') o['apiVersion'] = id.apiVersion;
  if (id.subresource !== '') o['subresource'] = id.subresource;
  return JSON.stringify(o);
}

const parsedKeys = new Map<string, ManagerIdentity>();

export function parseManagerKey(key: string): ManagerIdentity {
  let id = parsedKeys.get(key);
  if (id === undefined) {
    const o = JSON.parse(key) as Record<string, string>;
    id = { manager: o['manager'] ?? '', operation: (o['operation'] ?? '') as 'Apply' | 'Update', apiVersion: o['apiVersion'] ?? '', subresource: o['subresource'] ?? '' };
    if (parsedKeys.size > 10_000) parsedKeys.clear();
    parsedKeys.set(key, id);
  }
  return id;
}

/** Decoded managedFields: sets by manager key, plus each entry's apiVersion and time. */
export interface DecodedManagedFields {
  managers: Managers;
  versions: Map<string, string>;
  times: Map<string, string | undefined>;
}

export function emptyManaged(): DecodedManagedFields {
  return { managers: new Map(), versions: new Map(), times: new Map() };
}

/** Decodes entries; throws an Error on the first one that does not decode (as upstream's DecodeManagedFields). */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): DecodedManagedFields {
  const out = emptyManaged();
  for (const e of entries ?? []) {
    if (e === null || typeof e !== 'object') throw new Error('managed fields entry is not an object');
    if ((e.fieldsType ?? '') !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(e.fieldsType ?? '')}`);
    if (e.operation !== 'Apply' && e.operation !== 'Update') throw new Error(`invalid operation ${JSON.stringify(e.operation ?? '')}`);
    const set = FieldSet.fromFieldsV1(e.fieldsV1 ?? {});
    const operation = (e.operation ?? '') as 'Apply' | 'Update';
    const key = managerKey({ manager: e.manager ?? '', operation, apiVersion: e.apiVersion ?? '', subresource: e.subresource ?? '' });
    out.managers.set(key, { set, applied: operation === 'Apply' });
    out.versions.set(key, e.apiVersion ?? '');
    out.times.set(key, e.time);
  }
  return out;
}

/** Entries in upstream's order: Apply before Update, then by time (seconds), manager, apiVersion, subresource. */
export function encodeManagedFields(decoded: DecodedManagedFields): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const [key, m] of decoded.managers) {
    const id = parseManagerKey(key);
    const e: ManagedFieldsEntry = { manager: id.manager, operation: m.applied ? 'Apply' : 'Update', apiVersion: decoded.versions.get(key) ?? id.apiVersion };
    const time = decoded.times.get(key);
    if (time !== undefined) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = m.set.toFieldsV1();
    if (id.subresource !== '') e.subresource = id.subresource;
    if (e.manager === '') delete e.manager;
    entries.push(e);
  }
  const seconds = (t: string | undefined): number => (t === undefined ? 0 : Math.floor(Date.parse(t) / 1000));
  const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  entries.sort(
    (p, q) =>
      cmp(p.operation ?? '', q.operation ?? '') ||
      seconds(p.time) - seconds(q.time) ||
      cmp(p.manager ?? '', q.manager ?? '') ||
      cmp(p.apiVersion ?? '', q.apiVersion ?? '') ||
      cmp(p.subresource ?? '', q.subresource ?? ''),
  );
  return entries;
}

/** metav1.Time's form: RFC 3339 in UTC, whole seconds. */
let lastSecond = NaN;
let lastFormatted = '';

export function formatSeconds(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastFormatted = `${new Date(second * 1000).toISOString().slice(0, 19)}Z`;
  }
  return lastFormatted;
}

const STRIPPED: string[][] = [
  ['apiVersion'],
  ['kind'],
  ['metadata'],
  ['metadata', 'name'],
  ['metadata', 'namespace'],
  ['metadata', 'creationTimestamp'],
  ['metadata', 'selfLink'],
  ['metadata', 'uid'],
  ['metadata', 'clusterName'],
  ['metadata', 'generation'],
  ['metadata', 'managedFields'],
  ['metadata', 'resourceVersion'],
];

function fieldPathSet(paths: readonly string[][]): FieldSet {
  return FieldSet.of(...paths.map((p) => p.map(fieldElement)));
}

/** The object as the walks see it: without managedFields (upstream strips them before typing). */
function withoutManagedFields(obj: KubeObject): KubeObject {
  if (obj.metadata?.managedFields === undefined) return obj;
  return { ...obj, metadata: omitKeys(obj.metadata, 'managedFields') };
}

export class FieldManager {
  private readonly updater: Updater;
  private readonly root: TypeNode;
  private readonly apiVersion: string;
  private readonly subresource: string;
  private readonly clock: () => Date;
  private readonly recordTimes: boolean;
  private readonly convertsFrom: (apiVersion: string) => boolean;

  constructor(options: FieldManagerOptions) {
    this.recordTimes = options.recordTimes ?? true;
    this.convertsFrom = options.convertsFrom ?? (() => false);
    this.root = options.root;
    this.apiVersion = options.apiVersion;
    this.subresource = options.subresource;
    this.clock = options.clock ?? (() => new Date());
    this.updater = new Updater(options.root, fieldPathSet(options.resetFields ?? []), fieldPathSet(STRIPPED), options.unstructured === true);
    const reset = options.resetFields ?? [];
    if (options.fastCreate !== false && reset.every((p) => p.length === 1)) {
      this.createFast = { skipTopLevel: new Set(reset.map((p) => p[0]!)), stripped: STRIPPED.map((p) => p.map(fieldElement)) };
    }
  }

  private readonly createFast: CreatedFieldsOptions | undefined;

  private key(manager: string, operation: 'Apply' | 'Update'): string {
    return managerKey({ manager, operation, apiVersion: this.apiVersion, subresource: this.subresource });
  }

  /**
   * The options of the plain create's one walk (created.ts) when update(null,
   * next, …) takes that path, for a caller that runs the walk elsewhere (a
   * worker thread, for a large object) and passes its result to recordCreated;
   * undefined when update must be called instead.
   */
  createdFieldsOptions(next: KubeObject): CreatedFieldsOptions | undefined {
    return next.metadata.managedFields === undefined ? this.createFast : undefined;
  }

  /** The end of a plain create's update: `fieldsV1` (createdFieldsV1 of next) as the creator's entry. */
  recordCreated(next: KubeObject, manager: string, fieldsV1: Record<string, unknown> | undefined): void {
    delete next.metadata.managedFields;
    if (fieldsV1 === undefined) return;
    const entry: ManagedFieldsEntry = { manager, operation: 'Update', apiVersion: this.apiVersion };
    if (this.recordTimes) entry.time = formatSeconds(this.clock());
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = fieldsV1;
    if (this.subresource !== '') entry.subresource = this.subresource;
    if (entry.manager === '') delete entry.manager;
    next.metadata.managedFields = [entry];
  }

  /** Records a non-apply write: sets next.metadata.managedFields (or removes it when no entry is left). */
  update(live: KubeObject | null, next: KubeObject, manager: string): void {
    const sent = next.metadata.managedFields;
    if (this.subresource === '' && isReset(sent)) {
      // `[]` or `[{}]`: the client clears them; the object stays untracked until the next apply.
      delete next.metadata.managedFields;
      return;
    }
    let managed: DecodedManagedFields | undefined;
    if (this.subresource === '' && sent !== undefined && sent.length > 0) {
      try {
        managed = decodeManagedFields(next.metadata.managedFields);
      } catch {
        managed = undefined;
      }
    }
    if (managed === undefined && live === null && this.createFast !== undefined) {
      // A plain create: the creator owns every field it set (the common write, kept cheap).
      delete next.metadata.managedFields;
      this.recordCreated(next, manager, createdFieldsV1(next, this.root, this.createFast));
      return;
    }
    managed ??= this.decodeLive(live);
    if (managed.managers.size === 0 && live !== null) {
      // An untracked object (its entries were cleared) is not tracked again by updates.
      delete next.metadata.managedFields;
      return;
    }
    const liveView = live === null ? {} : withoutManagedFields(live);
    delete next.metadata.managedFields;
    const result = this.recordUpdate(liveView, next, this.withoutUnconvertible(managed), manager);
    this.capUpdateManagers(result);
    this.stamp(next, result);
  }

  /**
   * Server-side apply of `config` (a decoded apply body) onto `live` (null:
   * create-on-apply). Returns the object to write with its managedFields, and
   * whether it differs from `live` beyond them.
   */
  apply(live: KubeObject | null, config: Record<string, unknown>, manager: string, force: boolean): { object: KubeObject; changed: boolean } {
    let managed = this.decodeLive(live);
    const liveView: Record<string, unknown> = live === null ? {} : withoutManagedFields(live);
    if (managed.managers.size === 0 && live !== null) {
      // Objects nobody tracked yet: their current fields go to an Update entry first.
      managed = this.recordUpdate({}, liveView, managed, 'before-first-apply');
    }
    // Entries the write cannot convert go (upstream drops them inside the merge, after the untracked check above);
    // the applier's own, so recorded, is no last-applied set: nothing is pruned by it.
    managed = this.withoutUnconvertible(managed);
    let result: { object: unknown; managers: Managers };
    try {
      result = this.updater.apply(liveView, config, managed.managers, this.key(manager, 'Apply'), force);
    } catch (err) {
      // kubectl's upgrade from client-side apply: conflicts on fields its last
      // applied configuration set, with the live values, are taken over.
      if (!(err instanceof ConflictsError) || manager !== 'kubectl' || live === null) throw err;
      const allowed = this.lastAppliedFields(liveView);
      if (allowed === undefined) throw err;
      const remaining = err.conflicts.filter((c) => !allowed.has(c.path));
      if (remaining.length > 0) throw new ConflictsError(remaining);
      result = this.updater.apply(liveView, config, managed.managers, this.key(manager, 'Apply'), true);
    }
    const key = this.key(manager, 'Apply');
    const out: DecodedManagedFields = { managers: result.managers, versions: new Map(managed.versions), times: new Map(managed.times) };
    out.versions.set(key, this.apiVersion);
    if (!out.times.has(key)) out.times.delete(key);
    let object: KubeObject;
    let changed = result.object !== undefined;
    if (changed) {
      object = result.object as KubeObject;
      object.metadata = { ...(object.metadata ?? {}) };
    } else {
      object = { ...liveView, metadata: { ...(liveView as KubeObject).metadata } } as KubeObject;
    }
    // upstream's lastAppliedUpdater: kubectl's apply keeps the client-side annotation, when the
    // object has one, in step with the configuration (also when nothing else changed)
    const lastApplied = object.metadata.annotations?.[LAST_APPLIED_ANNOTATION];
    if (manager === 'kubectl' && lastApplied !== undefined) {
      const value = lastAppliedOf(config);
      if (value !== lastApplied) {
        object.metadata.annotations = { ...object.metadata.annotations, [LAST_APPLIED_ANNOTATION]: value };
        changed = true;
      }
    }
    if (changed && this.recordTimes) out.times.set(key, formatSeconds(this.clock()));
    for (const k of out.managers.keys()) if (!out.versions.has(k)) out.versions.set(k, this.apiVersion);
    this.stamp(object, out);
    return { object, changed };
  }

  /**
   * `managed` without the entries recorded under an apiVersion this kind's
   * writes do not convert from. Upstream keeps the writer's own entry out of
   * that check, but an Update entry's apiVersion is part of its identity and
   * an Apply entry is replaced by the new configuration's set (an old set it
   * cannot convert prunes nothing), so dropping it too is the same.
   */
  private withoutUnconvertible(managed: DecodedManagedFields): DecodedManagedFields {
    let out: DecodedManagedFields | undefined;
    for (const [key, version] of managed.versions) {
      if (version === this.apiVersion || this.convertsFrom(version)) continue;
      out ??= { managers: new Map(managed.managers), versions: new Map(managed.versions), times: new Map(managed.times) };
      out.managers.delete(key);
      out.versions.delete(key);
      out.times.delete(key);
    }
    return out ?? managed;
  }

  private decodeLive(live: KubeObject | null): DecodedManagedFields {
    if (live === null) return emptyManaged();
    try {
      return decodeManagedFields(live.metadata.managedFields);
    } catch {
      return emptyManaged();
    }
  }

  private recordUpdate(live: unknown, next: unknown, managed: DecodedManagedFields, manager: string): DecodedManagedFields {
    const key = this.key(manager, 'Update');
    const { managers, changed } = this.updater.update(live, next, managed.managers, key);
    const out: DecodedManagedFields = { managers, versions: new Map(managed.versions), times: new Map(managed.times) };
    if (managers.has(key)) out.versions.set(key, this.apiVersion);
    if (changed && this.recordTimes) out.times.set(key, formatSeconds(this.clock()));
    return out;
  }

  /** Upstream's capManagers: past MAX_UPDATE_MANAGERS Update entries, the oldest merge into "ancient-changes". */
  private capUpdateManagers(managed: DecodedManagedFields): void {
    const updaters = [...managed.managers.entries()].filter(([, m]) => !m.applied).map(([k]) => k);
    if (updaters.length <= MAX_UPDATE_MANAGERS) return;
    const seconds = (k: string): number => {
      const t = managed.times.get(k);
      return t === undefined ? 0 : Math.floor(Date.parse(t) / 1000);
    };
    updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
    const firstOfVersion = new Map<string, string>();
    let length = updaters.length;
    for (let i = 0; i < updaters.length && length > MAX_UPDATE_MANAGERS; i++) {
      const k = updaters[i]!;
      const version = managed.versions.get(k) ?? this.apiVersion;
      const bucket = managerKey({ manager: 'ancient-changes', operation: 'Update', apiVersion: version, subresource: '' });
      const first = firstOfVersion.get(version);
      if (first === undefined) {
        firstOfVersion.set(version, k);
        continue;
      }
      if (!managed.managers.has(bucket)) {
        managed.managers.set(bucket, managed.managers.get(first)!);
        managed.managers.delete(first);
        managed.versions.set(bucket, version);
      }
      const merged = managed.managers.get(k)!.set.union(managed.managers.get(bucket)!.set);
      managed.managers.set(bucket, { set: merged, applied: false });
      managed.managers.delete(k);
      managed.times.set(bucket, managed.times.get(k));
      length--;
    }
  }

  /** The fields of the live object's last-applied configuration that still hold its values. */
  private lastAppliedFields(live: Record<string, unknown>): FieldSet | undefined {
    const text = (live as KubeObject).metadata?.annotations?.[LAST_APPLIED_ANNOTATION];
    if (text === undefined || text === '') return undefined;
    let last: unknown;
    try {
      last = JSON.parse(text);
    } catch {
      return undefined;
    }
    try {
      const set = toFieldSet(last, this.root, false);
      const c = compare(last, live, this.root);
      return set.difference(c.modified).difference(c.added).difference(c.removed);
    } catch {
      return undefined;
    }
  }

  private stamp(obj: KubeObject, managed: DecodedManagedFields): void {
    for (const k of managed.managers.keys()) if (!managed.versions.has(k)) managed.versions.set(k, this.apiVersion);
    const entries = encodeManagedFields(managed);
    delete obj.metadata.managedFields;
    // Always last in metadata, so that an unchanged object encodes to the same bytes (and is not rewritten).
    if (entries.length > 0) obj.metadata.managedFields = entries;
  }
}

/** Moves metadata.managedFields to the end of metadata (where stamping puts it). */
export function managedFieldsLast(obj: KubeObject): void {
  const entries = obj.metadata.managedFields;
  if (entries === undefined) return;
  delete obj.metadata.managedFields;
  obj.metadata.managedFields = entries;
}

function isReset(entries: readonly ManagedFieldsEntry[] | undefined): boolean {
  if (entries === undefined || entries === null) return false;
  if (entries.length === 0) return true;
  return entries.length === 1 && entries[0] !== null && typeof entries[0] === 'object' && Object.keys(entries[0]).length === 0;
}

/** kubectl's last-applied annotation for an applied configuration: its JSON (sorted keys) without the annotation. */
function lastAppliedOf(config: Record<string, unknown>): string {
  const copy = deepCopy(config) as KubeObject;
  const meta = copy.metadata as Record<string, unknown> | null | undefined;
  if (meta !== null && typeof meta === 'object' && 'annotations' in meta) {
    // as upstream's unstructured accessors: `annotations: null` reads as no map and is dropped
    const annotations = meta['annotations'];
    if (annotations !== null && typeof annotations === 'object' && !Array.isArray(annotations)) delete (annotations as Record<string, unknown>)[LAST_APPLIED_ANNOTATION];
    else delete meta['annotations'];
  }
  return `${JSON.stringify(sortKeysDeep(copy))}\n`;
}

function sortKeysDeep(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(sortKeysDeep);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeysDeep((v as Record<string, unknown>)[k]);
  return out;
}
