// LocalBackend: what the in-process backends (memory, SQLite) share. Each owns
// the store-wide revision counter in this process, so each answers the
// revision questions, validates read revisions, fans out watches and sweeps
// expired keys the same way; only storing and replaying differ.
//
// Contract for subclasses:
// - `revision` is the last committed revision, `compacted` the compaction
//   point; the subclass moves them as it commits and compacts.
// - `replay(prefix, after)` yields stored events after `after` (see
//   ./backend-watchers.ts); it starts with checkReplayable(after).
// - Call startTtlSweep() once the subclass is fully built (the timer calls
//   sweepExpired), and closeLocal() from close() after the last write.

import { StorageError, type WatchEvent, type WatchHandle, type WatchHandlers } from './interface.js';
import { BackendWatchers } from './backend-watchers.js';

export interface LocalBackendOptions {
  /** Milliseconds since the epoch; used for TTL expiry. Defaults to Date.now. */
  now?: () => number;
  /** How often expired keys are swept (ms). Defaults to 1000. */
  ttlSweepIntervalMs?: number;
}

export abstract class LocalBackend {
  /** Progress is sent after each committed batch, behind every event of it. */
  readonly consistentProgress = true;
  protected revision = 0;
  protected compacted = 0;
  protected closed = false;
  protected readonly now: () => number;
  protected readonly watchers = new BackendWatchers((prefix, after) => this.replay(prefix, after));
  private readonly sweepIntervalMs: number;
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(options: LocalBackendOptions) {
    this.now = options.now ?? Date.now;
    this.sweepIntervalMs = options.ttlSweepIntervalMs ?? 1000;
  }

  /** Yields the stored events under prefix after afterRevision (up to the revision current now). */
  protected abstract replay(prefix: string, afterRevision: number): Iterable<WatchEvent[]>;

  /** Deletes keys whose TTL has passed, through the normal delete path. Returns how many. */
  abstract sweepExpired(): Promise<number>;

  async currentRevision(): Promise<number> {
    this.ensureOpen();
    return this.revision;
  }

  localRevision(): number {
    this.ensureOpen();
    return this.revision;
  }

  async compactedRevision(): Promise<number> {
    this.ensureOpen();
    return this.compacted;
  }

  watch(prefix: string, afterRevision: number, handlers: WatchHandlers): WatchHandle {
    this.ensureOpen();
    return this.watchers.add(prefix, afterRevision, handlers);
  }

  /** Starts the periodic TTL sweep (unref'd: it never keeps the process alive). */
  protected startTtlSweep(): void {
    this.sweepTimer = setInterval(() => void this.sweepExpired(), this.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  /** Marks the backend closed, stops the sweep and drops every watcher. */
  protected closeLocal(): void {
    this.closed = true;
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    this.watchers.clear();
  }

  /** Validates a requested read revision and resolves 0/undefined to the current one. */
  protected readRevision(requested: number | undefined): number {
    if (!requested) return this.revision;
    if (requested > this.revision) {
      throw new StorageError('FutureRevision', `revision ${requested} is newer than current ${this.revision}`, undefined, undefined, this.revision);
    }
    if (requested < this.compacted) {
      throw new StorageError('Compacted', `revision ${requested} has been compacted`, undefined, undefined, this.compacted);
    }
    return requested;
  }

  /** compact(revision)'s precondition: false when there is nothing to do (already compacted that far). */
  protected shouldCompact(revision: number): boolean {
    this.ensureOpen();
    if (revision > this.revision) {
      throw new StorageError('FutureRevision', `cannot compact to future revision ${revision}`, undefined, undefined, this.revision);
    }
    return revision > this.compacted;
  }

  /** A replay's precondition: open, and not starting below the compaction point. */
  protected checkReplayable(afterRevision: number): void {
    this.ensureOpen();
    if (afterRevision < this.compacted) {
      throw new StorageError('Compacted', `revision ${afterRevision} has been compacted`, undefined, undefined, this.compacted);
    }
  }

  protected ensureOpen(): void {
    if (this.closed) throw new StorageError('Unavailable', 'storage backend is closed');
  }
}
