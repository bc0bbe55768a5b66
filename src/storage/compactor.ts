// Periodic compaction, as kube-apiserver's --etcd-compaction-interval does it.
//
// Every interval the compactor compacts to the revision it read one interval
// earlier, so history is kept for at least one interval (a watch or paged list
// that started within it can still resume) and never grows without bound. The
// first tick only records the current revision.
//
// Several servers on one store must not fight: a backend that implements
// CoordinatedCompaction (the etcd backend) runs kube-apiserver's election on a
// shared key instead — every server takes part, one wins per interval and
// compacts, the others learn the new round and follow. Backends without it
// (SQLite, memory: one server per store) simply compact.
//
// Errors never stop the loop: they go to onError and the next tick tries again.

import type { Backend } from './interface.js';

export interface CoordinatedCompaction {
  /**
   * One election round: when the shared round counter still equals lastVersion,
   * record revision, compact to it (unless 0) and return lastVersion + 1;
   * otherwise return the counter's current value. Either way, also return the
   * store's current revision, the target of the next round.
   */
  compactCoordinated(lastVersion: number, revision: number): Promise<{ version: number; currentRevision: number }>;
}

export interface CompactorOptions {
  /** Time between compactions (kube-apiserver's default is 5 minutes). */
  intervalMs: number;
  /** Receives failures of a round; the compactor carries on. */
  onError?: (err: unknown) => void;
}

export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60 * 1000;

function isCoordinated(backend: Backend): backend is Backend & CoordinatedCompaction {
  return typeof (backend as Partial<CoordinatedCompaction>).compactCoordinated === 'function';
}

export function startCompactor(backend: Backend, options: CompactorOptions): { stop(): void } {
  const { intervalMs, onError = () => {} } = options;
  if (!(intervalMs > 0)) throw new Error(`compaction interval must be positive, got ${intervalMs}`);
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  /** The revision read one interval ago: this round's target (0 before the first round). */
  let revision = 0;
  /** The election round we last saw (coordinated backends only). */
  let version = 0;

  async function round(): Promise<void> {
    if (isCoordinated(backend)) {
      const next = await backend.compactCoordinated(version, revision);
      version = next.version;
      revision = next.currentRevision;
      return;
    }
    if (revision > 0) await backend.compact(revision);
    revision = await backend.currentRevision();
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = null;
      round()
        .catch((err: unknown) => {
          if (!stopped) onError(err);
        })
        .finally(schedule);
    }, intervalMs);
    // A compactor alone must not keep the process alive.
    timer.unref();
  }

  schedule();
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
    },
  };
}
