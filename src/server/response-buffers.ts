// Large response bodies written from reused memory.
//
// A list of 500 ConfigMaps of 1 KiB is a 690 KB body. Allocated afresh for each
// request (Buffer.concat), such a body costs far more than copying its bytes:
// the allocator hands out new pages that fault in on first touch, and V8
// counts the external memory, so a busy list endpoint triggered garbage
// collections of the whole heap. Measured with bench/profile-ops.ts (list,
// SQLite): Buffer.concat and the collector took 34 % of the apiserver's
// thread. Here a body of BODY_MIN bytes or more is copied into a buffer of a
// small pool, given back once the response has been written to the socket.
//
// Contract:
// - acquire(n) returns a buffer of exactly n bytes for the caller to fill and
//   write; release(buffer) takes it back, and only the caller who is sure that
//   nothing references it any more (the response's 'finish': its bytes are in
//   the kernel) may call it. A buffer never released is simply collected.
// - The pool keeps at most POOL_BYTES of idle buffers; sizes are rounded up to
//   a power of two so that a buffer serves the next body of about its size.

/** Bodies smaller than this are allocated as usual (Node's own pool serves the small ones). */
export const BODY_MIN = 64 * 1024;
/** Bodies larger than this are allocated as usual: rare, and not worth holding on to. */
const BODY_MAX = 16 * 1024 * 1024;
/** The most idle memory the pool holds. */
const POOL_BYTES = 16 * 1024 * 1024;

export class ResponseBuffers {
  /** Idle buffers by capacity (a power of two). */
  private readonly free = new Map<number, Buffer[]>();
  /** The capacity each handed-out view belongs to, by view. */
  private readonly owners = new WeakMap<Buffer, Buffer>();
  private idleBytes = 0;

  constructor(private readonly limit = POOL_BYTES) {}

  /** A buffer of n bytes (its content is garbage until written). */
  acquire(n: number): Buffer {
    if (n < BODY_MIN || n > BODY_MAX) return Buffer.allocUnsafe(n);
    const capacity = 2 ** Math.ceil(Math.log2(n));
    const idle = this.free.get(capacity);
    let whole = idle?.pop();
    if (whole === undefined) whole = Buffer.allocUnsafeSlow(capacity);
    else this.idleBytes -= capacity;
    const view = whole.subarray(0, n);
    this.owners.set(view, whole);
    return view;
  }

  /** Gives back a buffer from acquire once nothing reads it any more (others are ignored). */
  release(view: Buffer): void {
    const whole = this.owners.get(view);
    if (whole === undefined) return;
    this.owners.delete(view);
    if (this.idleBytes + whole.length > this.limit) return;
    let idle = this.free.get(whole.length);
    if (idle === undefined) this.free.set(whole.length, (idle = []));
    idle.push(whole);
    this.idleBytes += whole.length;
  }

  /** Idle bytes held (tests). */
  get idle(): number {
    return this.idleBytes;
  }
}

/** The process's pool for response bodies. */
export const responseBuffers = new ResponseBuffers();
