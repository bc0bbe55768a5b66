// ConvertingObjectStore: one resource served in two forms over one storage
// (upstream's "cohabitating resources": events.k8s.io/v1 events are the core
// events under /registry/events, converted on every read and write).
//
// Contract:
// - A WrappingObjectStore around the ObjectStore of the stored form (`inner`): same keys, same
//   revisions, same watch cache; nothing of its own is stored.
// - Reads (get, list, watch, delete's result) hand back `fromStored(obj)`;
//   writes (create, guaranteedUpdate) store `toStored(obj)`. Predicates see the
//   served form, so field selectors use the served form's field names.
// - Conversions of shared objects (list items and watch events, which the
//   watch cache hands to many callers) are memoised by identity, so a watch
//   event converts once however many watchers see it, and the converted
//   StoreWatchEvent (or batch, for onEvents) is itself shared (the generic
//   store and the HTTP layer encode it once). Like
//   the objects they come from, these are read-only.
// - Errors the inner store raises about its resource (NotFound,
//   AlreadyExists, Conflict) name the served resource instead, as upstream
//   reports the group of the request. Errors thrown by an update callback pass
//   through untouched.

import type { GroupResource, KubeObject } from '../machinery/meta.js';
import { groupResourceString } from '../machinery/meta.js';
import { StatusError } from '../machinery/errors.js';
import { WrappingObjectStore } from './store-wrapper.js';
import type {
  ObjectStore,
  StoreListOptions,
  StoreListResult,
  StoreWatchEvent,
  StoreWatchHandle,
  StoreWatchHandlers,
  StoreWatchOptions,
  UpdateFunc,
} from '../storage/object-store.js';

export interface Conversion {
  /** Served form → stored form. Must not change its input. */
  toStored(obj: KubeObject): KubeObject;
  /** Stored form → served form. Must not change its input. */
  fromStored(obj: KubeObject): KubeObject;
}

export class ConvertingObjectStore extends WrappingObjectStore {
  private readonly conversion: Conversion;
  private readonly converted = new WeakMap<KubeObject, KubeObject>();
  private readonly convertedEvents = new WeakMap<StoreWatchEvent, StoreWatchEvent>();
  private lastBatch: [readonly StoreWatchEvent[], readonly StoreWatchEvent[]] | undefined;

  constructor(resource: GroupResource, inner: ObjectStore, conversion: Conversion) {
    super(inner, resource);
    this.conversion = conversion;
  }

  override async get(namespace: string, name: string, options?: { resourceVersion?: string }): Promise<KubeObject> {
    const obj = await this.guard(this.inner.get(namespace, name, options));
    return this.conversion.fromStored(obj);
  }

  override async list(namespace: string, options: StoreListOptions): Promise<StoreListResult> {
    const { predicate, ...rest } = options;
    const innerOptions: StoreListOptions = rest;
    if (predicate !== undefined) innerOptions.predicate = (obj) => predicate(this.shared(obj));
    const res = await this.guard(this.inner.list(namespace, innerOptions));
    return { ...res, items: res.items.map((obj) => this.shared(obj)) };
  }

  override async create(namespace: string, name: string, obj: KubeObject, options?: { ttlSeconds?: number }): Promise<KubeObject> {
    const created = await this.guard(this.inner.create(namespace, name, this.conversion.toStored(obj), options));
    return this.conversion.fromStored(created);
  }

  override async guaranteedUpdate(
    namespace: string,
    name: string,
    update: UpdateFunc,
    options?: { ttlSeconds?: number; dryRun?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    const own = new WeakSet<object>();
    const convertingUpdate: UpdateFunc = async (current) => {
      try {
        const next = await update(current === null ? null : this.conversion.fromStored(current));
        return this.conversion.toStored(next);
      } catch (err) {
        if (typeof err === 'object' && err !== null) own.add(err);
        throw err;
      }
    };
    const res = await this.guard(this.inner.guaranteedUpdate(namespace, name, convertingUpdate, options), own);
    return { object: this.conversion.fromStored(res.object), created: res.created };
  }

  override async delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    const own = new WeakSet<object>();
    const convertingCheck =
      check === undefined
        ? undefined
        : (current: KubeObject): void => {
            try {
              check(this.conversion.fromStored(current));
            } catch (err) {
              if (typeof err === 'object' && err !== null) own.add(err);
              throw err;
            }
          };
    const deleted = await this.guard(this.inner.delete(namespace, name, convertingCheck), own);
    return this.conversion.fromStored(deleted);
  }

  override watch(namespace: string, options: StoreWatchOptions, handlers: StoreWatchHandlers): Promise<StoreWatchHandle> {
    const { predicate, ...rest } = options;
    const innerOptions: StoreWatchOptions = rest;
    if (predicate !== undefined) innerOptions.predicate = (obj) => predicate(this.shared(obj));
    const inner: StoreWatchHandlers = {
      onEvent: (e) => handlers.onEvent(this.sharedEvent(e)),
      onError: (err) => handlers.onError(this.rename(err)),
    };
    if (handlers.onEvents) inner.onEvents = (events) => handlers.onEvents!(this.sharedBatch(events));
    if (handlers.onInitialEventsEnd) inner.onInitialEventsEnd = (rv) => handlers.onInitialEventsEnd!(rv);
    if (handlers.onProgress) inner.onProgress = (rv) => handlers.onProgress!(rv);
    if (handlers.onClose) inner.onClose = () => handlers.onClose!();
    return this.inner.watch(namespace, innerOptions, inner);
  }

  /** The served form of a stored object other callers may also hold. */
  private shared(obj: KubeObject): KubeObject {
    let out = this.converted.get(obj);
    if (out === undefined) {
      out = this.conversion.fromStored(obj);
      this.converted.set(obj, out);
    }
    return out;
  }

  private sharedEvent(e: StoreWatchEvent): StoreWatchEvent {
    let out = this.convertedEvents.get(e);
    if (out === undefined) {
      out = { type: e.type, object: this.shared(e.object) };
      this.convertedEvents.set(e, out);
    }
    return out;
  }

  /** A batch of shared events (one dispatch, handed to every watcher in a row): converted once. */
  private sharedBatch(events: readonly StoreWatchEvent[]): readonly StoreWatchEvent[] {
    if (this.lastBatch?.[0] === events) return this.lastBatch[1];
    const out = events.map((e) => this.sharedEvent(e));
    this.lastBatch = [events, out];
    return out;
  }

  /** Awaits `p`, renaming the inner store's resource errors (not the callbacks' own, in `own`). */
  private async guard<T>(p: Promise<T>, own?: WeakSet<object>): Promise<T> {
    try {
      return await p;
    } catch (err) {
      if (err instanceof StatusError && own?.has(err) !== true) throw this.rename(err);
      throw err;
    }
  }

  /** An error about the inner resource, told about the served one. */
  private rename(err: StatusError): StatusError {
    const details = err.status.details;
    const from = this.inner.resource;
    if (details === undefined || details.kind !== from.resource || (details.group ?? '') !== from.group) return err;
    const fromText = `${groupResourceString(from)} `;
    const toText = `${groupResourceString(this.resource)} `;
    const message = err.message.replace(fromText, toText);
    const renamed: NonNullable<typeof details> = { ...details, kind: this.resource.resource };
    if (this.resource.group !== '') renamed.group = this.resource.group;
    else delete renamed.group;
    const out = new StatusError(err.code, err.reason, message, renamed);
    out.status.metadata = err.status.metadata;
    return out;
  }
}
