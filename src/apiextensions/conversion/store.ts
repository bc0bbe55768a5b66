// AsyncConvertingObjectStore: registry/ConvertingObjectStore's contract (one
// resource served in another form over the same storage, keys, revisions and
// watch cache) for conversions that take a round trip (a conversion webhook).
//
// Contract:
// - Reads (get, list, watch, delete's and writes' results) hand back
//   `fromStored(obj)`; writes (create, guaranteedUpdate) store
//   `toStored(obj)`. A conversion that fails fails the operation with its
//   error (a watch ends with it).
// - Conversions of shared objects (list items and watch events the watch
//   cache hands to many callers) are memoised by identity, so a watch event
//   converts once however many watchers see it; a failed conversion is not
//   remembered (the next read tries again).
// - Watch events are delivered in order: each waits for the conversions of
//   those before it; bookmarks, the end of initial events and the watch's end
//   wait too.
// - Predicates (label and field selectors): a list checks them on the
//   converted objects, paging through the inner store itself so `limit` and
//   `continue` keep their meaning. A watch hands them to the inner store,
//   which checks them on the stored form: the converted object has the same
//   name and namespace and, unless the webhook changed them, labels; a
//   selectable field whose path differs between versions is checked on the
//   stored version's object.
// - delete's precondition check sees the stored form: it reads metadata only,
//   which conversion keeps.

import type { KubeObject } from '../../machinery/meta.js';
import { encodeContinue } from '../../machinery/continue-token.js';
import type { StatusError } from '../../machinery/errors.js';
import { WrappingObjectStore } from '../../registry/store-wrapper.js';
import type {
  ObjectStore,
  StoreListOptions,
  StoreListResult,
  StoreWatchEvent,
  StoreWatchHandle,
  StoreWatchHandlers,
  StoreWatchOptions,
  UpdateFunc,
} from '../../storage/object-store.js';

export interface AsyncConversion {
  /** Served form → stored form. Must not change its input. */
  toStored(obj: KubeObject): Promise<KubeObject>;
  /** Stored form → served form. Must not change its input. */
  fromStored(obj: KubeObject): Promise<KubeObject>;
}

export class AsyncConvertingObjectStore extends WrappingObjectStore {
  private readonly conversion: AsyncConversion;
  private readonly namespaced: boolean;
  private readonly converted = new WeakMap<KubeObject, Promise<KubeObject>>();
  private readonly convertedEvents = new WeakMap<StoreWatchEvent, Promise<StoreWatchEvent>>();

  constructor(inner: ObjectStore, conversion: AsyncConversion, options: { namespaced: boolean }) {
    super(inner);
    this.conversion = conversion;
    this.namespaced = options.namespaced;
  }

  override async get(namespace: string, name: string, options?: { resourceVersion?: string }): Promise<KubeObject> {
    return this.conversion.fromStored(await this.inner.get(namespace, name, options));
  }

  override async list(namespace: string, options: StoreListOptions): Promise<StoreListResult> {
    const { predicate, ...rest } = options;
    if (predicate === undefined || options.predicateIsEverything === true) {
      const res = await this.inner.list(namespace, rest);
      return { ...res, items: await Promise.all(res.items.map((o) => this.shared(o))) };
    }
    // Pages of the inner store, converted, then filtered, until `limit` objects match.
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : 0;
    const items: KubeObject[] = [];
    let pageOptions: StoreListOptions = rest;
    let resourceVersion: string | undefined;
    for (;;) {
      const page = await this.inner.list(namespace, pageOptions);
      resourceVersion ??= page.resourceVersion;
      const converted = await Promise.all(page.items.map((o) => this.shared(o)));
      for (let i = 0; i < converted.length; i++) {
        if (limit > 0 && items.length >= limit) {
          // Stopped inside a page: continue after the last object looked at.
          const last = page.items[i - 1]!;
          const key = this.keyFor(last.metadata.namespace ?? '', last.metadata.name ?? '');
          return { items, resourceVersion, continue: encodeContinue(`${key}\x00`, this.listPrefix(namespace), Number(resourceVersion)) };
        }
        if (predicate(converted[i]!)) items.push(converted[i]!);
      }
      if (page.continue === undefined || page.continue === '') return { items, resourceVersion };
      if (limit > 0 && items.length >= limit) return { items, resourceVersion, continue: page.continue };
      pageOptions = { continue: page.continue, ...(limit > 0 ? { limit: limit - items.length } : {}) };
    }
  }

  override async create(namespace: string, name: string, obj: KubeObject, options?: { ttlSeconds?: number }): Promise<KubeObject> {
    const created = await this.inner.create(namespace, name, await this.conversion.toStored(obj), options);
    return this.conversion.fromStored(created);
  }

  override async guaranteedUpdate(
    namespace: string,
    name: string,
    update: UpdateFunc,
    options?: { ttlSeconds?: number; dryRun?: boolean },
  ): Promise<{ object: KubeObject; created: boolean }> {
    const convertingUpdate: UpdateFunc = async (current) => {
      const next = await update(current === null ? null : await this.conversion.fromStored(current));
      return this.conversion.toStored(next);
    };
    const res = await this.inner.guaranteedUpdate(namespace, name, convertingUpdate, options);
    return { object: await this.conversion.fromStored(res.object), created: res.created };
  }

  override async delete(namespace: string, name: string, check?: (current: KubeObject) => void): Promise<KubeObject> {
    const deleted = await this.inner.delete(namespace, name, check);
    return this.conversion.fromStored(deleted);
  }

  override async watch(namespace: string, options: StoreWatchOptions, handlers: StoreWatchHandlers): Promise<StoreWatchHandle> {
    let chain: Promise<void> = Promise.resolve();
    let failed = false;
    let handle: StoreWatchHandle | undefined;
    let stopRequested = false;
    // Runs `deliver` once `convert` and everything queued before it are done.
    const enqueue = <T>(convert: () => Promise<T>, deliver: (value: T) => void): void => {
      const pending = convert();
      // An unobserved rejection is handled where the chain reaches it.
      pending.catch(() => {});
      chain = chain.then(async () => {
        if (failed) return;
        let value: T;
        try {
          value = await pending;
        } catch (err) {
          failed = true;
          handle?.stop();
          stopRequested = true;
          handlers.onError(err as StatusError);
          return;
        }
        deliver(value);
      });
    };
    const inner: StoreWatchHandlers = {
      onEvent: (e) => enqueue(() => this.sharedEvent(e), (out) => handlers.onEvent(out)),
      onError: (err) => enqueue(() => Promise.resolve(err), (e) => handlers.onError(e)),
    };
    if (handlers.onEvents !== undefined) {
      const many = handlers.onEvents.bind(handlers);
      inner.onEvents = (events) => enqueue(() => Promise.all(events.map((e) => this.sharedEvent(e))), many);
    }
    if (handlers.onInitialEventsEnd !== undefined) {
      const end = handlers.onInitialEventsEnd.bind(handlers);
      inner.onInitialEventsEnd = (rv) => enqueue(() => Promise.resolve(rv), end);
    }
    if (handlers.onProgress !== undefined) {
      const progress = handlers.onProgress.bind(handlers);
      inner.onProgress = (rv) => enqueue(() => Promise.resolve(rv), progress);
    }
    if (handlers.onClose !== undefined) {
      const close = handlers.onClose.bind(handlers);
      inner.onClose = () => enqueue(() => Promise.resolve(), close);
    }
    const innerOptions: StoreWatchOptions = options;
    handle = await this.inner.watch(namespace, innerOptions, inner);
    if (stopRequested) handle.stop();
    return handle;
  }

  /** The key prefix the inner store's continue tokens are relative to. */
  private listPrefix(namespace: string): string {
    if (!this.namespaced) return this.keyFor('', '');
    if (namespace !== '') return this.keyFor(namespace, '');
    // keyFor("x", "") is "<root>x/": the root is what precedes the namespace.
    return this.keyFor('x', '').slice(0, -2);
  }

  /** The served form of a stored object other callers may also hold. */
  private shared(obj: KubeObject): Promise<KubeObject> {
    let out = this.converted.get(obj);
    if (out === undefined) {
      out = this.conversion.fromStored(obj);
      this.converted.set(obj, out);
      out.catch(() => this.converted.delete(obj));
    }
    return out;
  }

  private sharedEvent(e: StoreWatchEvent): Promise<StoreWatchEvent> {
    let out = this.convertedEvents.get(e);
    if (out === undefined) {
      out = this.shared(e.object).then((object) => ({ type: e.type, object }));
      this.convertedEvents.set(e, out);
      out.catch(() => this.convertedEvents.delete(e));
    }
    return out;
  }
}
