// Watcher bookkeeping shared by the memory and SQLite backends.
//
// Contract: a watcher registered with afterRevision R receives every event
// under its prefix with revision > R, in revision order, exactly once. It works
// in two phases:
//   1. replay: on a microtask after watch() returns, the backend's replay
//      function yields the stored events after R up to the current revision
//      (synchronously, so no write can commit in between);
//   2. live: publish() hands every committed batch to the watchers; a watcher
//      still replaying buffers it (a handler may write during its own replay)
//      and receives it once the replay is done.
// A per-watcher high-water mark (lastRevision) drops anything already seen, so
// the hand-over between the phases has no gap and no duplicate.
// Handlers are never called after cancel() returns. A handler that throws ends
// its watch with an Internal error rather than breaking the writer.
// Progress: after each published batch, every live watcher the batch did not
// concern gets onProgress(batch's last revision) — nothing under its prefix is
// pending up to there — so a watch cache can tell it is current even when the
// writes went to other prefixes.

import { StorageError, type WatchEvent, type WatchHandle, type WatchHandlers } from './interface.js';

/** Yields the stored events under prefix with revision > afterRevision, in order; throws StorageError (Compacted). */
export type ReplayFn = (prefix: string, afterRevision: number) => Iterable<WatchEvent[]>;

interface Watcher {
  prefix: string;
  lastRevision: number;
  ready: boolean;
  cancelled: boolean;
  /** Batches published while the replay had not finished. */
  pending: WatchEvent[][];
  handlers: WatchHandlers;
}

export function eventRevision(event: WatchEvent): number {
  return event.type === 'put' ? event.kv.modRevision : event.revision;
}

export function eventKey(event: WatchEvent): string {
  return event.type === 'put' ? event.kv.key : event.key;
}

export class BackendWatchers {
  private readonly watchers = new Set<Watcher>();
  /** Set while publish() runs; a handler that writes re-enters publish, whose batch must wait its turn. */
  private publishing = false;
  private readonly publishQueue: WatchEvent[][] = [];

  constructor(private readonly replay: ReplayFn) {}

  get size(): number {
    return this.watchers.size;
  }

  add(prefix: string, afterRevision: number, handlers: WatchHandlers): WatchHandle {
    const watcher: Watcher = { prefix, lastRevision: afterRevision, ready: false, cancelled: false, pending: [], handlers };
    this.watchers.add(watcher);
    queueMicrotask(() => this.runReplay(watcher));
    return {
      cancel: () => {
        watcher.cancelled = true;
        this.watchers.delete(watcher);
      },
    };
  }

  /** Delivers a committed batch (events in revision order) to the live watchers. */
  publish(events: WatchEvent[]): void {
    if (events.length === 0 || this.watchers.size === 0) return;
    this.publishQueue.push(events);
    if (this.publishing) return;
    this.publishing = true;
    try {
      // Every watcher sees batch N before any sees batch N+1, even when a handler writes.
      for (let batch = this.publishQueue.shift(); batch; batch = this.publishQueue.shift()) {
        const last = eventRevision(batch[batch.length - 1]);
        for (const watcher of [...this.watchers]) {
          if (watcher.ready) {
            this.deliver(watcher, batch);
            this.progress(watcher, last);
          } else watcher.pending.push(batch);
        }
      }
    } finally {
      this.publishing = false;
    }
  }

  /** Drops every watcher without calling it again (used by close()). */
  clear(): void {
    for (const watcher of this.watchers) watcher.cancelled = true;
    this.watchers.clear();
  }

  private runReplay(watcher: Watcher): void {
    if (watcher.cancelled) return;
    try {
      for (const batch of this.replay(watcher.prefix, watcher.lastRevision)) {
        if (watcher.cancelled) return;
        this.deliver(watcher, batch);
      }
    } catch (err) {
      this.fail(watcher, err);
      return;
    }
    // Batches already replayed from history are dropped by the high-water mark.
    while (watcher.pending.length > 0 && !watcher.cancelled) this.deliver(watcher, watcher.pending.shift()!);
    watcher.ready = true;
  }

  private deliver(watcher: Watcher, events: WatchEvent[]): void {
    if (watcher.cancelled) return;
    const selected: WatchEvent[] = [];
    for (const event of events) {
      const revision = eventRevision(event);
      if (revision > watcher.lastRevision && eventKey(event).startsWith(watcher.prefix)) selected.push(event);
    }
    if (selected.length === 0) return;
    watcher.lastRevision = eventRevision(selected[selected.length - 1]);
    try {
      watcher.handlers.onEvents(selected);
    } catch (err) {
      this.fail(watcher, err);
    }
  }

  private progress(watcher: Watcher, revision: number): void {
    if (watcher.cancelled || watcher.lastRevision >= revision || watcher.handlers.onProgress === undefined) return;
    watcher.lastRevision = revision;
    try {
      watcher.handlers.onProgress(revision);
    } catch (err) {
      this.fail(watcher, err);
    }
  }

  private fail(watcher: Watcher, err: unknown): void {
    if (watcher.cancelled) return;
    watcher.cancelled = true;
    this.watchers.delete(watcher);
    const storageError =
      err instanceof StorageError ? err : new StorageError('Internal', `watch failed: ${(err as Error)?.message ?? String(err)}`);
    try {
      watcher.handlers.onError(storageError);
    } catch {
      // The watch is already over; a throwing error handler has nobody left to tell.
    }
  }
}
