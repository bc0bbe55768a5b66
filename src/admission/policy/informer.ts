// A small in-process informer over one registry store: list, then watch from
// the list's resourceVersion, keeping every object by namespace/name; a watch
// that ends is re-established from a fresh list. Admission policies and their
// bindings are read from here, so a change takes effect as soon as the watch
// delivers it (milliseconds, upstream's informers do the same).

import type { KubeObject } from '../../machinery/meta.js';
import type { RESTStore, Watcher } from '../../registry/rest.js';

export class StoreInformer<T extends KubeObject = KubeObject> {
  private readonly items = new Map<string, T>();
  private watcher: Watcher | undefined;
  private stopped = false;
  private started: Promise<void> | undefined;
  private version = 0;
  private retry: NodeJS.Timeout | undefined;

  /** `store` is looked up on each (re)start: the registry may not serve it yet when the informer is built. */
  constructor(
    private readonly store: () => RESTStore | undefined,
    private readonly onChange: () => void = () => {},
  ) {}

  /** Resolves once the first list is in (at once when the store is not served). */
  start(): Promise<void> {
    this.started ??= this.run();
    return this.started;
  }

  stop(): void {
    this.stopped = true;
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.watcher?.stop();
    this.watcher = undefined;
  }

  /** Whether the first list is in (list() then holds the store's objects). */
  synced(): boolean {
    return this.version > 0;
  }

  /** Changes whenever the set of objects does. */
  generation(): number {
    return this.version;
  }

  list(): T[] {
    return [...this.items.values()];
  }

  private key(o: KubeObject): string {
    return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
  }

  private changed(): void {
    this.version++;
    this.onChange();
  }

  private restartLater(): void {
    if (this.stopped) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.run().catch(() => this.restartLater());
    }, 200);
    this.retry.unref();
  }

  private async run(): Promise<void> {
    const store = this.store();
    if (store === undefined || this.stopped) return;
    const list = await store.list('', {});
    this.items.clear();
    for (const o of list.items as T[]) this.items.set(this.key(o), o);
    this.changed();
    const rv = list.metadata.resourceVersion ?? '';
    this.watcher = await store.watch('', { resourceVersion: rv }, {
      event: (e) => {
        if (e.type === 'BOOKMARK') return;
        if (e.type === 'ERROR') {
          this.watcher?.stop();
          return;
        }
        const o = e.object as T;
        if (e.type === 'DELETED') this.items.delete(this.key(o));
        else this.items.set(this.key(o), o);
        this.changed();
      },
      done: () => {
        this.watcher = undefined;
        this.restartLater();
      },
    });
  }
}
