// One priority level's seats and queues (upstream's fairqueuing/queueset,
// simplified): requests take `width` seats each; while the level has seats
// (its current limit: its nominal seats as borrowing re-divides them every
// period, borrowing.ts) a request runs at once, else it waits in one of its flow's shuffle-sharded
// queues. Queues are served in fair order: the queue that has been given the
// least work so far (its virtual time, in seat-seconds) goes next, and a queue
// that was idle starts at the level's current virtual time, so idleness earns
// no credit. As upstream's, a request is charged at dispatch by an estimate
// (width × the level's recent mean execution time) and the charge is corrected
// by its measured time when it finishes: a flow of cheap requests (GETs) is
// charged less than a flow of dear ones (creates) and so goes first more often.
//
// Contract: every admitted request is released exactly once; a waiting request
// is settled exactly once (dispatched, rejected on time-out, or cancelled).

import { performance } from 'node:perf_hooks';
import { dealHand } from './shuffle-sharding.js';
import { SeatDemand } from './borrowing.js';

export type RejectReason = 'queue-full' | 'concurrency-limit' | 'time-out' | 'cancelled';

export interface LevelLimits {
  /** Seats of its own (nominal concurrency limit). */
  nominal: number;
  /** Of those, how many other levels may borrow while idle. */
  lendable: number;
  /** Seats it may hold in all, borrowing included (Infinity: no limit). */
  max: number;
}

/** A flow's requests under the dispatch limit (controller.ts): executing, and waiting in its level's queues. */
export interface FlowLoad {
  executing: number;
  waiting: number;
  /** When it last had nothing executing or waiting (it stays counted as active a little longer). */
  idleSince?: number;
  /** Its requests' mean loop time in ms (loop-cost.ts); unset until one finished. */
  meanCostMs?: number;
  /** Its loop time, decaying (loop-share.ts), and when that was last updated (ms, monotonic). */
  spentMs?: number;
  spentAt?: number;
}

export interface Waiter {
  readonly width: number;
  readonly flow: FlowLoad;
  readonly flowSchema: string;
  readonly queue: number;
  readonly enqueuedAt: number;
  settle(admitted: boolean, reason?: RejectReason): void;
}

interface Queue {
  items: Waiter[];
  head: number;
  /** Seats this queue's requests hold now. */
  executingSeats: number;
  virtualTime: number;
}

export interface LevelConfig {
  name: string;
  uid: string;
  exempt: boolean;
  /** limitResponse Reject: no queues, a request without a seat is refused at once. */
  reject: boolean;
  queues: number;
  handSize: number;
  queueLengthLimit: number;
  limits: LevelLimits;
}

export class PriorityLevelState {
  readonly queues: Queue[];
  seatsInUse = 0;
  executing = 0;
  waiting = 0;
  waitingSeats = 0;
  dispatched = 0;
  rejected = 0;
  timedOut = 0;
  cancelled = 0;
  private virtualNow = 0;
  /** Seats it may use until the next re-division (borrowing.ts); its nominal ones until the first. */
  currentLimit: number;
  /** Its seat demand (executing + waiting seats) over time, for the re-division. */
  readonly demand: SeatDemand;

  constructor(
    public config: LevelConfig,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.currentLimit = config.limits.nominal;
    this.demand = new SeatDemand(clock());
    this.queues = Array.from({ length: config.reject || config.exempt ? 0 : config.queues }, () => ({ items: [], head: 0, executingSeats: 0, virtualTime: 0 }));
  }

  /** A flow's hand of queues (empty for levels without queues). */
  dealHand(hash: number): number[] {
    if (this.queues.length === 0) return [];
    return dealHand(hash, this.queues.length, Math.min(this.config.handSize, this.queues.length));
  }

  /** The queue a flow's request goes to: the least loaded of its hand. */
  pickQueue(hand: readonly number[]): number {
    if (hand.length === 0) return -1;
    let best = hand[0]!;
    let bestLoad = Infinity;
    for (const q of hand) {
      const queue = this.queues[q]!;
      const load = queue.items.length - queue.head + queue.executingSeats;
      if (load < bestLoad) {
        best = q;
        bestLoad = load;
      }
    }
    return best;
  }

  queueLength(q: number): number {
    const queue = this.queues[q]!;
    return queue.items.length - queue.head;
  }

  /** Mean execution time of this level's requests (seconds; a moving average), the charge estimate. */
  meanSeconds = 0.001;

  /** Seats granted at `now` (the level's clock; read by the caller, which needs it too): counts the request as executing (in queue `q`, when the level has queues); returns its charge. */
  start(width: number, q: number, now: number = this.clock()): number {
    this.seatsInUse += width;
    this.executing++;
    this.dispatched++;
    this.noteDemand(now);
    if (q < 0) return 0;
    const queue = this.queues[q]!;
    queue.executingSeats += width;
    const startTag = Math.max(queue.virtualTime, this.virtualNow);
    const charge = width * this.meanSeconds;
    queue.virtualTime = startTag + charge;
    this.virtualNow = startTag;
    return charge;
  }

  /** A request done after `seconds`: frees its seats and corrects its queue's charge by what it really took. */
  finish(width: number, q: number, charged: number, seconds: number, now: number = this.clock()): void {
    this.seatsInUse -= width;
    this.executing--;
    this.noteDemand(now);
    this.meanSeconds += (seconds - this.meanSeconds) / 16;
    if (q >= 0) {
      const queue = this.queues[q]!;
      queue.executingSeats -= width;
      queue.virtualTime += width * seconds - charged;
    }
  }

  enqueue(w: Waiter): void {
    const queue = this.queues[w.queue]!;
    if (queue.items.length === queue.head) queue.virtualTime = Math.max(queue.virtualTime, this.virtualNow);
    queue.items.push(w);
    this.waiting++;
    this.waitingSeats += w.width;
    this.noteDemand();
  }

  private noteDemand(now: number = this.clock()): void {
    if (!this.config.exempt) this.demand.set(this.seatsInUse + this.waitingSeats, now);
  }

  /** Takes `w` out of its queue (time-out, client gone); false when it is no longer queued. */
  remove(w: Waiter): boolean {
    const queue = this.queues[w.queue]!;
    const i = queue.items.indexOf(w, queue.head);
    if (i < 0) return false;
    queue.items.splice(i, 1);
    this.waiting--;
    this.waitingSeats -= w.width;
    this.noteDemand();
    return true;
  }

  /** The next request in fair order that `ok` lets start (without taking it), or undefined. */
  peek(ok: (w: Waiter) => boolean = () => true): Waiter | undefined {
    let best: Queue | undefined;
    for (const queue of this.queues) {
      if (queue.items.length === queue.head) continue;
      if (best !== undefined && queue.virtualTime >= best.virtualTime) continue;
      if (ok(queue.items[queue.head]!)) best = queue;
    }
    return best?.items[best.head];
  }

  /** Takes the request peek() gave. */
  take(w: Waiter): void {
    const queue = this.queues[w.queue]!;
    queue.head++;
    if (queue.head > 64 && queue.head * 2 > queue.items.length) {
      queue.items = queue.items.slice(queue.head);
      queue.head = 0;
    }
    if (queue.items.length === queue.head) {
      queue.items.length = 0;
      queue.head = 0;
    }
    this.waiting--;
    this.waitingSeats -= w.width;
  }

  /** Waiting requests of every queue, head first (debug dumps). */
  *waiters(): Generator<Waiter> {
    for (const queue of this.queues) for (let i = queue.head; i < queue.items.length; i++) yield queue.items[i]!;
  }
}
