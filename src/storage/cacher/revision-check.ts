// RevisionCheck: one backend revision read shared by concurrent consistent reads.
//
// A consistent read must reflect every write acknowledged before it began, so
// it needs a revision read that STARTED after it arrived. A read already in
// flight may have started before, so a caller arriving meanwhile joins the
// next read, which starts when the one in flight settles; every caller that
// arrives during one read shares that next one. N concurrent callers cost at
// most two backend round trips between them, and none gets a revision older
// than its own arrival.

import type { Backend } from '../interface.js';

interface Deferred {
  promise: Promise<number>;
  resolve(value: Promise<number>): void;
}

export class RevisionCheck {
  private inFlight = false;
  private next: Deferred | undefined;
  /** Backend revision reads made, for tests and benchmarks. */
  reads = 0;

  constructor(private readonly read: () => Promise<number>) {}

  /** A revision the backend reported after this call: every write acknowledged before the call is at or below it. */
  current(): Promise<number> {
    if (!this.inFlight) return this.start();
    if (this.next === undefined) {
      let resolve!: (value: Promise<number>) => void;
      const promise = new Promise<number>((r) => (resolve = r));
      this.next = { promise, resolve };
    }
    return this.next.promise;
  }

  private start(): Promise<number> {
    this.inFlight = true;
    this.reads++;
    let p: Promise<number>;
    try {
      p = this.read();
    } catch (err) {
      p = Promise.reject(err);
    }
    const settled = (): void => {
      // Synchronous hand-over: nobody can slip in between this read and the next.
      this.inFlight = false;
      const next = this.next;
      this.next = undefined;
      if (next !== undefined) next.resolve(this.start());
    };
    p.then(settled, settled);
    return p;
  }
}

const checks = new WeakMap<Backend, RevisionCheck>();

/** The RevisionCheck every cache on this backend shares (one etcd round trip serves every resource). */
export function revisionCheckFor(backend: Backend): RevisionCheck {
  let check = checks.get(backend);
  if (check === undefined) {
    check = new RevisionCheck(() => backend.currentRevision());
    checks.set(backend, check);
  }
  return check;
}
