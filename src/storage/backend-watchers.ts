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
// Progress is pulled: a live watcher is current up to the last revision of the
// last batch published (every batch is handed to the watchers it concerns
// before the next one), which the handle's progress() tells when asked — so a
// watch cache can tell it is current even when the writes went to other
// prefixes, without a call per resource per batch. A watcher whose handle has
// pushProgress(true) (a reader waits for a revision) gets onProgress(batch's
// last revision) after every batch instead, as etcd's notifications would.
// A server has a watcher per resource (its watch cache), and a batch concerns
// one or two resources: watchers are grouped by their prefix's first three
// path segments (`/registry/configmaps/`), so a batch is looked at only by
// the watchers of its keys' groups (and those whose prefix is shorter), and
// every other watcher is told its progress alone.

import { StorageError, type WatchEvent, type WatchHandle, type WatchHandlers } from './interface.js';

/** Yields the stored events under prefix with revision > afterRevision, in order; throws StorageError (Compacted). */
export type ReplayFn = (prefix: string, afterRevision: number) => Iterable<WatchEvent[]>;

interface Watcher {
  prefix: string;
  /** groupName(prefix). */
  group: string | undefined;
  /** The number of the last batch whose keys fell in its group. */
  mark: number;
  lastRevision: number;
  ready: boolean;
  /** pushProgress(true): told of progress after every batch. */
  pushed: boolean;
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
  /** The watchers by group (see groupName); a watcher whose prefix has none looks at every batch. */
  private readonly groups = new Map<string, Set<Watcher>>();
  /** Batches published so far: a batch marks the watchers it concerns with its number. */
  private batches = 0;
  /** `watchers` as an array, made again after a change: publish walks a snapshot (a handler may add or cancel watchers). */
  private snapshot: Watcher[] | undefined;
  /** Set while publish() runs; a handler that writes re-enters publish, whose batch must wait its turn. */
  private publishing = false;
  private readonly publishQueue: WatchEvent[][] = [];
  /** The last revision of the last batch handed to every live watcher it concerns. */
  private published = 0;

  constructor(private readonly replay: ReplayFn) {}

  get size(): number {
    return this.watchers.size;
  }

  add(prefix: string, afterRevision: number, handlers: WatchHandlers): WatchHandle {
    const watcher: Watcher = { prefix, group: groupName(prefix), mark: 0, lastRevision: afterRevision, ready: false, pushed: false, cancelled: false, pending: [], handlers };
    this.watchers.add(watcher);
    if (watcher.group !== undefined) {
      let group = this.groups.get(watcher.group);
      if (group === undefined) this.groups.set(watcher.group, (group = new Set()));
      group.add(watcher);
    }
    this.snapshot = undefined;
    queueMicrotask(() => this.runReplay(watcher));
    return {
      cancel: () => this.remove(watcher),
      progress: () => this.progressOf(watcher),
      pushProgress: (on) => {
        watcher.pushed = on;
      },
    };
  }

  /** See the file comment: undefined until the watcher is live (its replay done), or once cancelled. */
  private progressOf(watcher: Watcher): number | undefined {
    if (!watcher.ready || watcher.cancelled) return undefined;
    return Math.max(watcher.lastRevision, this.published);
  }

  /** Delivers a committed batch (events in revision order) to the live watchers. */
  publish(events: WatchEvent[]): void {
    if (events.length === 0) return;
    if (this.watchers.size === 0) {
      this.published = eventRevision(events[events.length - 1]);
      return;
    }
    this.publishQueue.push(events);
    if (this.publishing) return;
    this.publishing = true;
    try {
      // Every watcher sees batch N before any sees batch N+1, even when a handler writes.
      for (let batch = this.publishQueue.shift(); batch; batch = this.publishQueue.shift()) this.publishBatch(batch);
    } finally {
      this.publishing = false;
    }
  }

  /** Drops every watcher without calling it again (used by close()). */
  clear(): void {
    for (const watcher of this.watchers) watcher.cancelled = true;
    this.watchers.clear();
    this.groups.clear();
    this.snapshot = undefined;
  }

  private publishBatch(batch: WatchEvent[]): void {
    const last = eventRevision(batch[batch.length - 1]);
    // Mark the watchers of the groups the batch's keys fall in (most batches: one group).
    const mark = ++this.batches;
    let lastName: string | undefined;
    for (const event of batch) {
      const name = groupName(eventKey(event));
      if (name === undefined || name === lastName) continue;
      lastName = name;
      const group = this.groups.get(name);
      if (group !== undefined) for (const watcher of group) watcher.mark = mark;
    }
    for (const watcher of (this.snapshot ??= [...this.watchers])) {
      if (!watcher.ready) {
        if (!watcher.cancelled) watcher.pending.push(batch);
        continue;
      }
      if (watcher.mark === mark || watcher.group === undefined) this.deliver(watcher, batch);
      if (watcher.pushed) this.progress(watcher, last);
    }
    this.published = last;
  }

  private remove(watcher: Watcher): void {
    watcher.cancelled = true;
    if (!this.watchers.delete(watcher)) return;
    this.snapshot = undefined;
    if (watcher.group === undefined) return;
    const group = this.groups.get(watcher.group)!;
    group.delete(watcher);
    if (group.size === 0) this.groups.delete(watcher.group);
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
    this.remove(watcher);
    const storageError =
      err instanceof StorageError ? err : new StorageError('Internal', `watch failed: ${(err as Error)?.message ?? String(err)}`);
    try {
      watcher.handlers.onError(storageError);
    } catch {
      // The watch is already over; a throwing error handler has nobody left to tell.
    }
  }
}

/**
 * The group of a watch prefix or a key: its first three path segments
 * (`/registry/configmaps/`), or undefined when it has fewer. A key under a
 * prefix that has them has the same ones.
 */
function groupName(prefixOrKey: string): string | undefined {
  let at = -1;
  for (let i = 0; i < 3; i++) {
    at = prefixOrKey.indexOf('/', at + 1);
    if (at < 0) return undefined;
  }
  return prefixOrKey.slice(0, at + 1);
}
