// Reads and watch (upstream's registry Store Get/List/Watch): get, list and
// watch through the ObjectStore (the watch cache by default), with field and
// label selectors as a predicate.
//
// Contract: reads never write and never run admission. A watch event the
// cache hands to many watchers is converted once and shared (read-only);
// BOOKMARK events come every bookmarkIntervalMs when asked for.

import type { KubeList, KubeObject } from '../../machinery/meta.js';
import type { ObjectStore, StoreWatchEvent, StoreWatchHandle } from '../../storage/object-store.js';
import type { ListOptions, WatchEvent, WatchOptions, WatchSink, Watcher } from '../rest.js';
import { pick, StoreBase } from './base.js';
import { isImmutable, markImmutable } from '../../machinery/json-memo.js';
import { omitKeys } from '../../machinery/omit-keys.js';

export abstract class ReadStore extends StoreBase {
  /** The list form of the watch cache's shared objects (sharedItems lists), by object. */
  private readonly sharedListItems = new WeakMap<KubeObject, KubeObject>();
  /** The GET form (with this kind's TypeMeta) of the watch cache's shared objects, by object. */
  private readonly sharedGetItems = new WeakMap<KubeObject, KubeObject>();

  async get(namespace: string, name: string, options: { resourceVersion?: string; shared?: boolean }): Promise<KubeObject> {
    const obj = await this.storage.get(this.ns(namespace), name, options);
    if (!isImmutable(obj)) return this.withTypeMeta(obj);
    // The watch cache's shared object: its served form is made once and frozen too (its JSON is then kept).
    let served = this.sharedGetItems.get(obj);
    if (served === undefined) {
      served = markImmutable(Object.freeze(this.withTypeMeta(obj)));
      this.sharedGetItems.set(obj, served);
    }
    return served;
  }

  getCached(namespace: string, name: string): Readonly<KubeObject> | undefined {
    return this.storage.getCached?.(this.ns(namespace), name);
  }

  listCached(namespace: string): Readonly<KubeObject>[] | undefined {
    return this.storage.listCached?.(this.ns(namespace));
  }

  async list(namespace: string, options: ListOptions): Promise<KubeList> {
    const { predicate, everything } = this.predicate(options);
    const res = await this.storage.list(this.ns(namespace), {
      ...pick(options),
      ...(predicate ? { predicate } : {}),
      predicateIsEverything: everything,
    });
    // Unstructured lists always carry continue (empty on the last page), as upstream encodes them.
    const metadata: KubeList['metadata'] = this.unstructured ? { continue: res.continue ?? '', resourceVersion: res.resourceVersion } : { resourceVersion: res.resourceVersion };
    if (res.continue !== undefined) metadata.continue = res.continue;
    if (res.remainingItemCount !== undefined) metadata.remainingItemCount = res.remainingItemCount;
    // Typed lists carry no kind/apiVersion on their items, as upstream encodes them; unstructured ones do.
    const items = res.items.map((o) => (isImmutable(o) ? this.sharedListItem(o) : this.listItem(o)));
    return { apiVersion: this.apiVersion, kind: this.type.listKind, metadata, items };
  }

  private listItem(o: KubeObject): KubeObject {
    if (this.unstructured) return this.withTypeMeta(o);
    return omitKeys(o, 'kind', 'apiVersion') as KubeObject;
  }

  /** listItem of a shared, frozen object: made once per object, frozen too (its JSON is then kept, json-memo.ts). */
  private sharedListItem(o: KubeObject): KubeObject {
    let item = this.sharedListItems.get(o);
    if (item === undefined) {
      item = markImmutable(Object.freeze(this.listItem(o)));
      this.sharedListItems.set(o, item);
    }
    return item;
  }

  /**
   * A watch: the store's events with this kind's TypeMeta. With
   * allowWatchBookmarks, a BOOKMARK carrying the newest resourceVersion seen
   * goes out every bookmarkIntervalMs, after the initial events of a streaming
   * list (annotated k8s.io/initial-events-end), and when timeoutSeconds ends
   * the watch cleanly. An event the storage shares between watchers maps to one
   * shared WatchEvent (so the HTTP layer encodes it once).
   */
  async watch(namespace: string, options: WatchOptions, sink: WatchSink): Promise<Watcher> {
    const { predicate } = this.predicate(options);
    let finished = false;
    let timer: NodeJS.Timeout | undefined;
    let ticker: NodeJS.Timeout | undefined;
    let lastRV = options.resourceVersion ?? '';
    const finish = (): void => {
      if (finished) return;
      finished = true;
      if (timer) clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      handle?.stop();
      sink.done();
    };
    const bookmarks = options.allowWatchBookmarks === true;
    const bookmark = (rv: string, initialEnd: boolean): void => {
      // As upstream encodes an empty object of the kind: creationTimestamp is null, not absent.
      const metadata = { resourceVersion: rv, creationTimestamp: null } as unknown as KubeObject['metadata'];
      if (initialEnd) metadata.annotations = { 'k8s.io/initial-events-end': 'true' };
      sink.event({ type: 'BOOKMARK', object: { kind: this.type.kind, apiVersion: this.apiVersion, metadata } });
    };
    let handle: StoreWatchHandle | undefined;
    const storeOptions: Parameters<ObjectStore['watch']>[1] = {};
    if (options.resourceVersion !== undefined) storeOptions.resourceVersion = options.resourceVersion;
    if (predicate) storeOptions.predicate = predicate;
    if (options.sendInitialEvents !== undefined) storeOptions.sendInitialEvents = options.sendInitialEvents;
    handle = await this.storage.watch(this.ns(namespace), storeOptions, {
      onEvent: (e) => {
        if (finished) return;
        lastRV = e.object.metadata.resourceVersion ?? lastRV;
        sink.event(this.sharedWatchEvent(e));
      },
      // Batches pass through when the sink takes them (the HTTP stream does).
      ...(sink.events === undefined
        ? {}
        : {
            onEvents: (events: readonly StoreWatchEvent[]) => {
              if (finished || events.length === 0) return;
              lastRV = events[events.length - 1]!.object.metadata.resourceVersion ?? lastRV;
              sink.events!(this.sharedWatchEvents(events));
            },
          }),
      onInitialEventsEnd: (rv) => {
        lastRV = rv;
        if (!finished && options.sendInitialEvents === true && bookmarks) bookmark(rv, true);
      },
      onProgress: (rv) => {
        lastRV = rv;
      },
      onError: (err) => {
        if (finished) return;
        sink.event({ type: 'ERROR', object: err.status });
        finish();
      },
      onClose: finish,
    });
    if (finished) handle.stop();
    if (bookmarks && !finished) {
      ticker = setInterval(() => {
        handle?.refresh?.();
        if (!finished && lastRV !== '' && lastRV !== '0') bookmark(lastRV, false);
      }, this.bookmarkIntervalMs);
      ticker.unref?.();
    }
    if (options.timeoutSeconds !== undefined && options.timeoutSeconds > 0 && !finished) {
      timer = setTimeout(() => {
        // A clean end tells a bookmarking client where to resume.
        if (!finished && bookmarks) handle?.refresh?.();
        if (!finished && bookmarks && lastRV !== '' && lastRV !== '0') bookmark(lastRV, false);
        finish();
      }, options.timeoutSeconds * 1000);
      timer.unref?.();
    }
    return { stop: finish };
  }

  /** The WatchEvents for a batch of store events; one array per shared batch (every watcher asks in a row). */
  private sharedWatchEvents(events: readonly StoreWatchEvent[]): readonly WatchEvent[] {
    if (this.lastSharedBatch?.[0] === events) return this.lastSharedBatch[1];
    const out = events.map((e) => this.sharedWatchEvent(e));
    this.lastSharedBatch = [events, out];
    return out;
  }

  /** The WatchEvent for a store event; one object per shared store event. */
  private sharedWatchEvent(e: StoreWatchEvent): WatchEvent {
    // Every watcher asks for the same event in a row: check the last one first.
    if (this.lastShared?.[0] === e) return this.lastShared[1];
    const memo = e.memo;
    let out = memo?.owner === this ? (memo.value as WatchEvent) : this.sharedEvents.get(e);
    if (out === undefined) {
      out = { type: e.type, object: this.withTypeMeta(e.object) };
      // The event's own memo for the first store that asks (a resource served
      // at one version has one); the WeakMap only for another version's store.
      if (memo === undefined) e.memo = { owner: this, value: out };
      else this.sharedEvents.set(e, out);
    }
    this.lastShared = [e, out];
    return out;
  }
}
