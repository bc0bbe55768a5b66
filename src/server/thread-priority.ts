// Lowering one thread's CPU priority (Linux: a thread's nice value is its own,
// set through its kernel thread id; elsewhere nothing happens).
//
// Used by threads that do one tenant's large work off the event loop (the body
// worker): on a machine whose cores are all busy they yield to the threads
// every request needs (the event loop, the TLS front), so a large request
// slows itself rather than the small requests of everyone else.

import { readlinkSync } from 'node:fs';
import os from 'node:os';

/** The calling thread's kernel id: /proc/thread-self links to `<pid>/task/<tid>`; undefined where there is no such link. */
export function kernelThreadId(): number | undefined {
  try {
    const match = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}

/** Raises the calling thread's nice value by `by` (at most 19); false where that cannot be done. */
export function lowerThreadPriority(by: number): boolean {
  const tid = kernelThreadId();
  if (tid === undefined) return false;
  try {
    os.setPriority(tid, Math.min(os.getPriority(tid) + by, 19));
    return true;
  } catch {
    return false;
  }
}
