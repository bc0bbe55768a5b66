// SqliteBackend: the Backend contract (./interface.ts) in one SQLite file, in
// the spirit of kine (the etcd model in one table of revisions), smaller.
//
// Schema:
// - history: one row per write, keyed by its revision (store-wide, +1 per
//   write). A deletion is a row with deleted = 1. prev_revision points at the
//   row the write replaced (0 for a creation), which gives watch events their
//   prevKv. An index on (key, revision) serves reads at past revisions.
// - current: key → revision of its live history row (+ TTL expiry), a
//   key-ordered index so get/range at the current revision cost what they return.
// - meta: the compaction revision.
// Nothing but the two counters is held in memory: open() is O(1) in the store's size.
// One process owns the file (exclusive lock); a second open fails Unavailable.
//
// Durability: WAL. Group commit: writes requested in the same tick are queued
// and applied on setImmediate in ONE transaction, each checked in order inside
// it. SQLite commits without fsync (synchronous=NORMAL); we fsync the WAL file
// ourselves on libuv's thread pool, so the event loop keeps parsing and
// preparing the next requests while the disk works (with synchronous=FULL the
// fsync ran inside COMMIT on the main thread, a third of its time under write
// load). Only once the fsync covering a batch returns does the batch become
// visible: its promises settle (an acknowledged write is durable), its
// revision becomes the current one for reads, its events reach watchers.
// Up to two fsyncs run at once: a batch committed while one runs starts its
// own at once instead of waiting for the first to come back through the event
// loop (under load that return waits for the main thread, and a create's wall
// time was mostly fsync: 10-15 ms at load 15). An fsync that returns covers
// every batch committed before it started, so it settles those, in order,
// whichever of the two returns first. Writes queued while two run wait,
// uncommitted, for one to return, and then go in one transaction (fewer,
// larger commits under load, at no later acknowledgement).
// Checkpoints (copying the WAL's pages into the database file) are ours too:
// SQLite's automatic one ran inside a COMMIT every 1,000 pages and, with
// synchronous=NORMAL, fsynced the WAL and the database file there, on the
// main thread (`bench/sqlite-checkpoint.ts`: a commit's CPU 1.55x and its
// wall time 2.4x, stalls of 15-34 ms every few hundred creates). Now SQLite never
// syncs (synchronous=OFF) and never checkpoints by itself; after
// CHECKPOINT_AFTER_WRITES writes (or _BYTES of values) commits wait, as they
// do for fsyncs, until every committed batch is durable; then the WAL is
// fsynced (what a compaction committed), copied into the database file on this
// thread (page copies only: about 10 ms for 2,000 writes of 1 KiB), and the file fdatasynced on the thread
// pool before the next commit may reuse the WAL. So only durable frames reach
// the database file, and none is overwritten before its copy is on disk.
// So two revisions: `revision` (durable, what readers see) and
// `committedRevision` (in the file, what the next batch checks against and
// numbers from); reads at the durable revision while later batches are in the
// file use the revision-bounded queries.
// Watch: after each durable batch its events go, synchronously and in
// revision order, to the matching watchers; a new watch first replays history
// rows after its revision (./backend-watchers.ts joins the two phases).
// TTL: a write with ttlSeconds records an expiry; an unref'd periodic sweep
// deletes expired keys through the normal delete path, so watchers see it.
// An empty `end` in range() means "no upper bound".

import { closeSync, fdatasync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import {
  StorageError,
  prefixEnd,
  type Backend,
  type GetResult,
  type KeyValue,
  type RangeOptions,
  type RangeResult,
  type WatchEvent,
  type WriteOptions,
} from './interface.js';
import { LocalBackend, type LocalBackendOptions } from './local-backend.js';

export type SqliteBackendOptions = LocalBackendOptions;

/** Sorts after every key a caller can store (keys are paths); stands in for "no upper bound". */
const MAX_KEY = '\u{10FFFF}';
/** Replay reads and delivers history in pages of this many rows. */
const REPLAY_PAGE = 500;
/**
 * A count at a past revision starts from the current count and corrects it by
 * the writes since, when there are at most this many (else it walks the range).
 */
const COUNT_DELTA_MAX = 10_000;
/** One sweep deletes at most this many expired keys; the next sweep takes the rest. */
const SWEEP_LIMIT = 1000;

/** The tables and indexes (exported for bench/sqlite-checkpoint.ts, which times their commits alone). */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS history (
  revision INTEGER PRIMARY KEY,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  lease INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS history_key_revision ON history (key, revision);
CREATE TABLE IF NOT EXISTS current (
  key TEXT PRIMARY KEY,
  revision INTEGER NOT NULL,
  expires_at INTEGER
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS current_expiry ON current (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

interface KvRow {
  key: string;
  value: string;
  create_revision: number;
  revision: number;
}

interface HistoryRow extends KvRow {
  deleted: number;
}

interface EventRow extends HistoryRow {
  prev_value: string | null;
  prev_create_revision: number | null;
  prev_revision: number;
}

type WriteOp =
  | { kind: 'create'; key: string; value: string; ttlSeconds?: number }
  | { kind: 'update'; key: string; value: string; expected?: number; ttlSeconds?: number }
  | { kind: 'delete'; key: string; expected?: number };

interface QueuedWrite {
  op: WriteOp;
  resolve(result: KeyValue | { prevKv: KeyValue; revision: number }): void;
  reject(err: unknown): void;
}

type Outcome = { ok: true; result: KeyValue | { prevKv: KeyValue; revision: number } } | { ok: false; error: StorageError };

/** Every statement the backend runs, prepared once at open. */
function prepareStatements(db: Database.Database) {
  return {
    maxRevision: db.prepare<[], { r: number | null }>('SELECT MAX(revision) AS r FROM history'),
    getMeta: db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?'),
    setMeta: db.prepare<[string, number]>(
      'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
    ),
    getCurrent: db.prepare<[string], KvRow>(
      `SELECT h.key, h.value, h.create_revision, h.revision
         FROM current c JOIN history h ON h.revision = c.revision WHERE c.key = ?`,
    ),
    getAt: db.prepare<[string, number], HistoryRow>(
      `SELECT key, value, create_revision, revision, deleted
         FROM history WHERE key = ? AND revision <= ? ORDER BY revision DESC LIMIT 1`,
    ),
    rangeCurrent: db.prepare<[string, string, number], KvRow>(
      `SELECT h.key, h.value, h.create_revision, h.revision
         FROM current c JOIN history h ON h.revision = c.revision
        WHERE c.key >= ? AND c.key < ? ORDER BY c.key LIMIT ?`,
    ),
    countCurrent: db.prepare<[string, string], { n: number }>(
      'SELECT COUNT(*) AS n FROM current WHERE key >= ? AND key < ?',
    ),
    // A key's row at a past revision R is its newest row at or below R; the
    // outer scan walks the (key, revision) index in key order, so a limit
    // stops it early (a GROUP BY + ORDER BY would read the whole range first:
    // a paged list would cost the whole range per page).
    rangeAt: db.prepare<{ s: string; e: string; r: number; l: number }, KvRow>(
      `SELECT h.key, h.value, h.create_revision, h.revision FROM history h
        WHERE h.key >= :s AND h.key < :e AND h.revision <= :r AND h.deleted = 0
          AND NOT EXISTS (SELECT 1 FROM history n WHERE n.key = h.key AND n.revision > h.revision AND n.revision <= :r)
        ORDER BY h.key LIMIT :l`,
    ),
    countAt: db.prepare<{ s: string; e: string; r: number }, { n: number }>(
      `SELECT COUNT(*) AS n FROM history h
        WHERE h.key >= :s AND h.key < :e AND h.revision <= :r AND h.deleted = 0
          AND NOT EXISTS (SELECT 1 FROM history n WHERE n.key = h.key AND n.revision > h.revision AND n.revision <= :r)`,
    ),
    // countCurrent + this = the count at R: over the keys written after R
    // (few when R is recent), +1 for each live at R, -1 for each live now.
    // NOT INDEXED: those rows are found by revision (the rowid), not by key.
    countDelta: db.prepare<{ s: string; e: string; r: number }, { n: number }>(
      `SELECT COALESCE(SUM(
           COALESCE((SELECT 1 - p.deleted FROM history p WHERE p.key = d.key AND p.revision <= :r ORDER BY p.revision DESC LIMIT 1), 0)
           - EXISTS (SELECT 1 FROM current c WHERE c.key = d.key)), 0) AS n
         FROM (SELECT DISTINCT key FROM history NOT INDEXED WHERE revision > :r AND key >= :s AND key < :e) d`,
    ),
    insertHistory: db.prepare<[number, string, string, number, number, number]>(
      `INSERT INTO history (revision, key, value, create_revision, prev_revision, deleted)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    upsertCurrent: db.prepare<[string, number, number | null]>(
      `INSERT INTO current (key, revision, expires_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET revision = excluded.revision, expires_at = excluded.expires_at`,
    ),
    insertCurrent: db.prepare<[string, number, number | null]>(
      'INSERT INTO current (key, revision, expires_at) VALUES (?, ?, ?) ON CONFLICT (key) DO NOTHING',
    ),
    deleteCurrent: db.prepare<[string]>('DELETE FROM current WHERE key = ?'),
    replayPage: db.prepare<[string, string, number, number, number], EventRow>(
      `SELECT h.key, h.value, h.create_revision, h.revision, h.deleted, h.prev_revision,
              p.value AS prev_value, p.create_revision AS prev_create_revision
         FROM history h LEFT JOIN history p ON p.revision = h.prev_revision
        WHERE h.key >= ? AND h.key < ? AND h.revision > ? AND h.revision <= ?
        ORDER BY h.revision LIMIT ?`,
    ),
    // Per key, keep the newest row at or below the compaction point unless it
    // is a deletion, and every row above it.
    compact: db.prepare<{ c: number }>(
      `DELETE FROM history WHERE revision < :c AND (
         deleted = 1 OR revision < (
           SELECT MAX(h2.revision) FROM history h2 WHERE h2.key = history.key AND h2.revision <= :c))`,
    ),
    expired: db.prepare<[number, number], { key: string; revision: number }>(
      'SELECT key, revision FROM current WHERE expires_at IS NOT NULL AND expires_at <= ? LIMIT ?',
    ),
  };
}

/** SQLite's "database or disk is full" (ENOSPC, or a quota on the file). */
function isDiskFull(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return code === 'SQLITE_FULL' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR') && /ENOSPC|disk is full/i.test(String((err as Error).message)));
}

function toKv(row: KvRow): KeyValue {
  return { key: row.key, value: row.value, createRevision: row.create_revision, modRevision: row.revision };
}

/** At most this many fsyncs of the WAL run at once (see the header). */
const SYNCS_IN_FLIGHT = 2;
/** A checkpoint follows this many writes, or this many bytes of written values, whichever comes first (see the header). */
const CHECKPOINT_AFTER_WRITES = 2000;
const CHECKPOINT_AFTER_BYTES = 8 * 1024 * 1024;

/** A committed batch waiting for the fsync that makes it durable. */
interface UnsyncedBatch {
  writes: QueuedWrite[];
  outcomes: Outcome[];
  events: WatchEvent[];
  revision: number;
}

export class SqliteBackend extends LocalBackend implements Backend {
  private queue: QueuedWrite[] = [];
  private flushScheduled = false;
  /** The revision of the last batch in the file (>= `revision`, the durable one). */
  private committedRevision = 0;
  /** Committed batches, in order, not yet covered by a started fsync. */
  private unsynced: UnsyncedBatch[] = [];
  /**
   * The fsyncs running, in the order they started, each with the batches it
   * was the first to cover; all of them wait to be settled.
   */
  private syncs: UnsyncedBatch[][] = [];
  /** Called once no fsync runs (close() waits for the last batches). */
  private syncsDrained: Array<() => void> = [];
  /** An fd on the WAL file, opened at the first sync (the file appears with the first write). */
  private walFd: number | undefined;
  /** An fd on the database file, for the fdatasync after each checkpoint. */
  private dbFd: number | undefined;
  /** Writes (and their values' bytes) committed since the last checkpoint. */
  private sinceCheckpoint = { writes: 0, bytes: 0 };
  /** A checkpoint is due (commits wait for the fsyncs to drain) or running (commits wait for its end). */
  private checkpoint: 'due' | 'running' | undefined;
  /** close() has begun: no checkpoint starts (closing the database checkpoints it). */
  private closing = false;
  /** Called when a running checkpoint ends (close() waits for it). */
  private checkpointEnded: Array<() => void> = [];
  /** A failed fsync: the file's durability is unknown, so the backend refuses all further work. */
  private syncError: StorageError | undefined;
  private readonly stmt: ReturnType<typeof prepareStatements>;
  private readonly applyBatch: (ops: WriteOp[]) => { outcomes: Outcome[]; events: WatchEvent[]; revision: number };

  /** Opens (creating if needed) the database file at path. */
  static open(path: string, options: SqliteBackendOptions = {}): SqliteBackend {
    // No busy wait: the only other holder of the lock would be another server on the same file.
    const db = new Database(path, { timeout: 0 });
    try {
      return new SqliteBackend(db, path, options);
    } catch (err) {
      db.close();
      if ((err as { code?: string }).code === 'SQLITE_BUSY') {
        throw new StorageError('Unavailable', `sqlite file ${path} is in use by another process`);
      }
      throw err;
    }
  }

  private constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    options: SqliteBackendOptions,
  ) {
    super(options);
    // The revision counter lives in this process, so the file must have one writer:
    // an exclusive lock (taken by the schema statement below, held until close)
    // makes a second server on the same file fail at open instead of forking history.
    db.pragma('locking_mode = EXCLUSIVE');
    db.pragma('journal_mode = WAL');
    // No fsync inside COMMIT nor in checkpoints, and no automatic checkpoint:
    // flush() syncs the WAL off the main thread, startCheckpoint() copies only
    // durable frames and syncs the file before the WAL is reused (see the header).
    db.pragma('synchronous = OFF');
    db.pragma('wal_autocheckpoint = 0');
    db.exec(SQLITE_SCHEMA);
    this.stmt = prepareStatements(db);
    this.compacted = this.stmt.getMeta.get('compacted')?.value ?? 0;
    this.revision = Math.max(this.stmt.maxRevision.get()?.r ?? 0, this.compacted);
    this.committedRevision = this.revision;
    this.applyBatch = db.transaction((ops: WriteOp[]) => this.apply(ops));
    this.startTtlSweep();
  }

  async get(key: string, options: RangeOptions = {}): Promise<GetResult> {
    this.ensureOpen();
    const revision = this.readRevision(options.revision);
    if (revision === this.committedRevision) {
      const row = this.stmt.getCurrent.get(key);
      return { kv: row ? toKv(row) : null, revision };
    }
    const row = this.stmt.getAt.get(key, revision);
    return { kv: row && !row.deleted ? toKv(row) : null, revision };
  }

  async range(start: string, end: string, options: RangeOptions = {}): Promise<RangeResult> {
    this.ensureOpen();
    const revision = this.readRevision(options.revision);
    const upper = end === '' ? MAX_KEY : end;
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    const current = revision === this.committedRevision;
    // One row past the limit tells whether more remain, without counting the range.
    const fetch = limit > 0 ? limit + 1 : -1; // SQLite: negative = no limit
    const rows = current ? this.stmt.rangeCurrent.all(start, upper, fetch) : this.stmt.rangeAt.all({ s: start, e: upper, r: revision, l: fetch });
    const more = limit > 0 && rows.length > limit;
    if (more) rows.length = limit;
    let count = rows.length + (more ? 1 : 0);
    if (more && options.count !== false) count = current ? this.stmt.countCurrent.get(start, upper)!.n : this.countAt(start, upper, revision);
    return { kvs: rows.map(toKv), revision, more, count };
  }

  /** Live keys in [start, upper) at a past revision. */
  private countAt(start: string, upper: string, revision: number): number {
    if (this.committedRevision - revision > COUNT_DELTA_MAX) return this.stmt.countAt.get({ s: start, e: upper, r: revision })!.n;
    return this.stmt.countCurrent.get(start, upper)!.n + this.stmt.countDelta.get({ s: start, e: upper, r: revision })!.n;
  }

  /** SQLite's plans for the range reads (EXPLAIN QUERY PLAN details), for tests: a paged read must never walk its whole range. */
  rangeQueryPlans(): Record<'rangeCurrent' | 'rangeAt' | 'countCurrent' | 'countDelta', string[]> {
    const plan = (stmt: Database.Statement<never[]>, args: unknown): string[] =>
      (this.db.prepare(`EXPLAIN QUERY PLAN ${stmt.source}`).all(args as never) as Array<{ detail: string }>).map((r) => r.detail);
    const named = { s: 'a', e: 'b', r: 1, l: 2 };
    return {
      rangeCurrent: plan(this.stmt.rangeCurrent as never, ['a', 'b', 2]),
      rangeAt: plan(this.stmt.rangeAt as never, named),
      countCurrent: plan(this.stmt.countCurrent as never, ['a', 'b']),
      countDelta: plan(this.stmt.countDelta as never, { s: 'a', e: 'b', r: 1 }),
    };
  }

  create(key: string, value: string, options: WriteOptions = {}): Promise<KeyValue> {
    return this.enqueue({ kind: 'create', key, value, ttlSeconds: options.ttlSeconds }) as Promise<KeyValue>;
  }

  update(key: string, value: string, expectedModRevision?: number, options: WriteOptions = {}): Promise<KeyValue> {
    return this.enqueue({
      kind: 'update',
      key,
      value,
      expected: expectedModRevision,
      ttlSeconds: options.ttlSeconds,
    }) as Promise<KeyValue>;
  }

  delete(key: string, expectedModRevision?: number): Promise<{ prevKv: KeyValue; revision: number }> {
    return this.enqueue({ kind: 'delete', key, expected: expectedModRevision }) as Promise<{
      prevKv: KeyValue;
      revision: number;
    }>;
  }

  async compact(revision: number): Promise<void> {
    // A commit now could reuse WAL frames the database file does not hold durably yet: the next compaction does it.
    if (this.checkpoint === 'running') return;
    if (!this.shouldCompact(revision)) return;
    try {
      this.db.transaction(() => {
        this.stmt.compact.run({ c: revision });
        this.stmt.setMeta.run('compacted', revision);
      })();
    } catch (err) {
      // Rolled back: the history stays; the next compaction tries again.
      if (isDiskFull(err)) throw new StorageError('NoSpace', `sqlite: no space left to compact: ${(err as Error).message}`);
      throw err;
    }
    this.compacted = revision;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    while (this.checkpoint === 'running') await new Promise<void>((resolve) => this.checkpointEnded.push(resolve));
    this.flush(true);
    // Let the last batches become durable (and settle) before the file goes.
    while (this.syncs.length > 0) await new Promise<void>((resolve) => this.syncsDrained.push(resolve));
    this.closeLocal();
    // Writes queued meanwhile would wait forever: the closed backend flushes nothing.
    for (const w of this.queue) w.reject(new StorageError('Unavailable', 'storage backend is closed'));
    this.queue = [];
    this.closeDatabase();
  }

  /** Closes the file. Closing checkpoints the WAL into it and deletes the WAL: SQLite syncs both for that. */
  private closeDatabase(): void {
    try {
      this.db.pragma('synchronous = NORMAL');
    } catch {
      // a failing disk: close anyway
    }
    this.db.close();
    this.closeFds();
  }

  /** Deletes keys whose TTL has passed, through the normal delete path. Returns how many. */
  async sweepExpired(): Promise<number> {
    if (this.closed) return 0;
    const expired = this.stmt.expired.all(this.now(), SWEEP_LIMIT);
    const results = await Promise.allSettled(expired.map((row) => this.delete(row.key, row.revision)));
    // A rejected delete means the key was rewritten or deleted since: the newer write decides.
    return results.filter((r) => r.status === 'fulfilled').length;
  }

  private enqueue(op: WriteOp): Promise<KeyValue | { prevKv: KeyValue; revision: number }> {
    if (this.syncError !== undefined) return Promise.reject(this.syncError);
    if (this.closed) return Promise.reject(new StorageError('Unavailable', 'storage backend is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ op, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Commits every queued write in one transaction; the fsync that covers it
   * settles them and notifies watchers. While SYNCS_IN_FLIGHT fsyncs run, the
   * writes stay queued instead (unless `now`): committed now, their fsync
   * could not start before one of those returns anyway, and that return
   * flushes them, with every write queued meanwhile, in one transaction. The
   * same acknowledgement, fewer commits (each one writes its pages to the WAL
   * on this thread).
   */
  private flush(now = false): void {
    this.flushScheduled = false;
    if (this.closed || this.queue.length === 0) return;
    if (!now && (this.syncs.length >= SYNCS_IN_FLIGHT || this.checkpoint !== undefined)) return;
    const batch = this.queue;
    this.queue = [];
    let committed: ReturnType<SqliteBackend['applyBatch']>;
    try {
      committed = this.applyBatch(batch.map((w) => w.op));
    } catch (err) {
      // The transaction rolled back: nothing of the batch was written. A full
      // disk is NoSpace (etcd's quota error upstream); the next batch tries
      // again, so writes come back by themselves once there is room.
      const error = isDiskFull(err)
        ? new StorageError('NoSpace', `sqlite: no space left for the write: ${(err as Error).message}`)
        : new StorageError('Internal', `sqlite write failed: ${(err as Error).message}`);
      for (const w of batch) w.reject(error);
      return;
    }
    this.committedRevision = committed.revision;
    this.unsynced.push({ writes: batch, ...committed });
    this.countForCheckpoint(batch);
    this.syncUnsynced();
  }

  private countForCheckpoint(batch: QueuedWrite[]): void {
    if (this.openWal() === undefined) return; // in memory: no WAL
    const since = this.sinceCheckpoint;
    since.writes += batch.length;
    for (const w of batch) if (w.op.kind !== 'delete') since.bytes += w.op.value.length;
    if (since.writes >= CHECKPOINT_AFTER_WRITES || since.bytes >= CHECKPOINT_AFTER_BYTES) this.checkpoint ??= 'due';
  }

  /**
   * Copies the WAL into the database file once every committed batch is
   * durable (see the header): the WAL fsynced first (a compaction's commit is
   * not covered by ours), then the copy, then the file's fdatasync; commits
   * wait throughout. A copy that fails leaves the WAL as it was (SQLite
   * checkpoints all or part, never wrongly): the next window tries again.
   */
  private startCheckpoint(): void {
    if (this.checkpoint !== 'due' || this.syncs.length > 0 || this.unsynced.length > 0 || this.closing) return;
    this.checkpoint = 'running';
    const walFd = this.openWal()!;
    fdatasync(walFd, (walErr) => {
      if (this.syncError !== undefined) return;
      if (walErr !== null) return this.failSync(walErr);
      try {
        this.db.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        return this.endCheckpoint();
      }
      try {
        this.dbFd ??= openSync(this.path, 'r');
      } catch (err) {
        return this.failSync(err as Error, 'the database file');
      }
      fdatasync(this.dbFd, (err) => {
        if (this.syncError !== undefined) return;
        if (err !== null) return this.failSync(err, 'the database file');
        this.endCheckpoint();
      });
    });
  }

  private endCheckpoint(): void {
    this.checkpoint = undefined;
    this.sinceCheckpoint = { writes: 0, bytes: 0 };
    for (const resolve of this.checkpointEnded.splice(0)) resolve();
    this.flush();
  }

  /** Starts an fsync covering every committed batch not yet covered, unless SYNCS_IN_FLIGHT run (one restarts it when it returns). */
  private syncUnsynced(): void {
    if (this.syncs.length >= SYNCS_IN_FLIGHT || this.unsynced.length === 0 || this.syncError !== undefined) return;
    const group = this.unsynced;
    this.unsynced = [];
    this.syncs.push(group);
    const finish = (err: Error | null): void => {
      if (this.syncError !== undefined) return; // an earlier fsync failed: everything was rejected then
      if (err !== null) {
        this.failSync(err);
      } else {
        // This fsync covers its own group and every group started before it.
        const upTo = this.syncs.indexOf(group);
        if (upTo >= 0) for (const g of this.syncs.splice(0, upTo + 1)) for (const b of g) this.settle(b);
      }
      if (this.syncs.length === 0) for (const resolve of this.syncsDrained.splice(0)) resolve();
      this.startCheckpoint();
      // Writes held while the fsyncs ran (flush) go now, with their own fsync.
      if (this.syncError === undefined) this.flush();
      this.syncUnsynced();
    };
    const fd = this.openWal();
    // A batch of failed checks only (or an in-memory file) wrote nothing to sync.
    if (fd === undefined) setImmediate(() => finish(null));
    // fdatasync, as etcd syncs its WAL and SQLite its own: the data and what
    // reading it back needs (the file's size) reach the disk, without a
    // journal commit for the WAL's mtime on each sync.
    else fdatasync(fd, finish);
  }

  private openWal(): number | undefined {
    if (this.walFd === undefined && this.path !== '' && this.path !== ':memory:') {
      try {
        this.walFd = openSync(`${this.path}-wal`, 'r');
      } catch (err) {
        if ((err as { code?: string }).code !== 'ENOENT') throw err;
      }
    }
    return this.walFd;
  }

  /** A durable batch: readers see its revision, writers get their answers, watchers its events. */
  private settle(b: UnsyncedBatch): void {
    this.revision = b.revision;
    b.outcomes.forEach((outcome, i) => {
      if (outcome.ok) b.writes[i].resolve(outcome.result);
      else b.writes[i].reject(outcome.error);
    });
    this.watchers.publish(b.events);
  }

  /**
   * fsync failed: what the file holds is unknown (the kernel may have dropped the
   * dirty pages), so no write since the last good sync is acknowledged and the
   * backend stops; a restart reads back what the disk really has.
   */
  private failSync(err: Error, file = 'the write-ahead log'): void {
    this.syncError = new StorageError('Unavailable', `sqlite: fsync of ${file} failed: ${err.message}`);
    for (const b of [...this.syncs.flat(), ...this.unsynced]) for (const w of b.writes) w.reject(this.syncError);
    this.syncs = [];
    this.unsynced = [];
    // So do writes queued for the next batch (the closed backend would never flush them).
    for (const w of this.queue) w.reject(this.syncError);
    this.queue = [];
    this.closeLocal();
    this.closeDatabase();
    for (const resolve of this.checkpointEnded.splice(0)) resolve();
  }

  private closeFds(): void {
    if (this.walFd !== undefined) closeSync(this.walFd);
    if (this.dbFd !== undefined) closeSync(this.dbFd);
    this.walFd = undefined;
    this.dbFd = undefined;
  }

  /** Runs inside the batch transaction; a failed check fails only its own op. */
  private apply(ops: WriteOp[]): { outcomes: Outcome[]; events: WatchEvent[]; revision: number } {
    let revision = this.committedRevision;
    const outcomes: Outcome[] = [];
    const events: WatchEvent[] = [];
    for (const op of ops) {
      if (op.kind === 'create') {
        // A create needs no read of the key: inserting its current row finds an existing one.
        const expiresAt = op.ttlSeconds !== undefined && op.ttlSeconds > 0 ? this.now() + op.ttlSeconds * 1000 : null;
        if (this.stmt.insertCurrent.run(op.key, revision + 1, expiresAt).changes === 0) {
          outcomes.push({ ok: false, error: new StorageError('KeyExists', `key already exists: ${op.key}`, op.key) });
          continue;
        }
        revision++;
        this.stmt.insertHistory.run(revision, op.key, op.value, revision, 0, 0);
        const kv: KeyValue = { key: op.key, value: op.value, createRevision: revision, modRevision: revision };
        outcomes.push({ ok: true, result: kv });
        events.push({ type: 'put', kv });
        continue;
      }
      const row = this.stmt.getCurrent.get(op.key);
      const stored = row ? toKv(row) : null;
      const error = this.check(op, stored);
      if (error) {
        outcomes.push({ ok: false, error });
        continue;
      }
      revision++;
      if (op.kind === 'delete') {
        const prevKv = stored!;
        this.stmt.insertHistory.run(revision, op.key, '', prevKv.createRevision, prevKv.modRevision, 1);
        this.stmt.deleteCurrent.run(op.key);
        outcomes.push({ ok: true, result: { prevKv, revision } });
        events.push({ type: 'delete', key: op.key, revision, prevKv });
      } else {
        const createRevision = stored ? stored.createRevision : revision;
        this.stmt.insertHistory.run(revision, op.key, op.value, createRevision, stored?.modRevision ?? 0, 0);
        const expiresAt = op.ttlSeconds !== undefined && op.ttlSeconds > 0 ? this.now() + op.ttlSeconds * 1000 : null;
        this.stmt.upsertCurrent.run(op.key, revision, expiresAt);
        const kv: KeyValue = { key: op.key, value: op.value, createRevision, modRevision: revision };
        outcomes.push({ ok: true, result: kv });
        events.push(stored ? { type: 'put', kv, prevKv: stored } : { type: 'put', kv });
      }
    }
    return { outcomes, events, revision };
  }

  /** An update's or delete's check against the stored key (apply() checks creates as it inserts them). */
  private check(op: Exclude<WriteOp, { kind: 'create' }>, stored: KeyValue | null): StorageError | null {
    if (!stored) return new StorageError('KeyNotFound', `key not found: ${op.key}`, op.key);
    if (op.expected !== undefined && stored.modRevision !== op.expected) {
      return new StorageError(
        'Conflict',
        `modRevision of ${op.key} is ${stored.modRevision}, expected ${op.expected}`,
        op.key,
        stored,
      );
    }
    return null;
  }

  protected *replay(prefix: string, afterRevision: number): Generator<WatchEvent[]> {
    this.checkReplayable(afterRevision);
    const end = prefix === '' ? MAX_KEY : prefixEnd(prefix);
    // Up to the revision committed now; publish() delivers what follows.
    const upTo = this.revision;
    let after = afterRevision;
    for (;;) {
      if (this.closed) return;
      const rows = this.stmt.replayPage.all(prefix, end, after, upTo, REPLAY_PAGE);
      if (rows.length === 0) return;
      yield rows.map((row) => this.toEvent(row));
      after = rows[rows.length - 1].revision;
    }
  }

  private toEvent(row: EventRow): WatchEvent {
    const prevKv: KeyValue | undefined =
      row.prev_value !== null && row.prev_create_revision !== null
        ? { key: row.key, value: row.prev_value, createRevision: row.prev_create_revision, modRevision: row.prev_revision }
        : undefined;
    if (row.deleted) {
      // A deletion row's prev row is never compacted away while the deletion is replayable.
      return { type: 'delete', key: row.key, revision: row.revision, prevKv: prevKv! };
    }
    const kv = toKv(row);
    return prevKv ? { type: 'put', kv, prevKv } : { type: 'put', kv };
  }
}
