// The Retry-After of a 429 (upstream's dropped_requests_tracker.go, in brief):
// 1 second while rejections are rare; while a level keeps rejecting in every
// window of the current value it doubles (up to 32 s), and it halves again
// after a window without any.

const MAX_RETRY_AFTER = 32;

interface LevelDrops {
  retryAfter: number;
  windowStart: number;
  droppedInWindow: number;
}

export class RetryAfterTracker {
  private readonly levels = new Map<string, LevelDrops>();

  constructor(private readonly now: () => number) {}

  private advance(name: string): LevelDrops {
    const t = this.now();
    let l = this.levels.get(name);
    if (l === undefined) {
      l = { retryAfter: 1, windowStart: t, droppedInWindow: 0 };
      this.levels.set(name, l);
    }
    while (t - l.windowStart >= l.retryAfter * 1000) {
      const busy = l.droppedInWindow > 1;
      l.windowStart += l.retryAfter * 1000;
      l.retryAfter = busy ? Math.min(MAX_RETRY_AFTER, l.retryAfter * 2) : Math.max(1, l.retryAfter / 2);
      l.droppedInWindow = 0;
      if (!busy && t - l.windowStart >= l.retryAfter * 1000) {
        l.windowStart = t;
        l.retryAfter = 1;
      }
    }
    return l;
  }

  dropped(name: string): void {
    this.advance(name).droppedInWindow++;
  }

  get(name: string): number {
    return this.advance(name).retryAfter;
  }
}
