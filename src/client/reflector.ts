// Reflector: keeps a store in step with one resource on the server by
// List&Watch (client-go tools/cache reflector.go).
//
// Cycle (listAndWatch):
// 1. List at relistResourceVersion(): "0" the first time (any recent state
//    will do), then the last synced version, or "" (a fresh consistent read)
//    after the server said that version is too old. Paginated (limit/
//    continue) except at a specific version (see listLimit).
//    store.replace() receives the complete list.
// 2. Watch from the list's resourceVersion with allowWatchBookmarks and a
//    randomized timeoutSeconds; every event moves lastSyncResourceVersion.
//    When a watch ends cleanly (timeout, dropped connection), watch again
//    from lastSyncResourceVersion: no relist, nothing missed.
// 3. When a watch fails with 410 Gone / Expired (e.g. an ERROR event "too
//    old resource version"), or otherwise errs, return, and run() relists
//    after a backoff.
//
// Pacing: run() waits a jittered exponential backoff (800 ms doubling to
// 30 s, reset after 2 min of health) after every return of listAndWatch, and
// a refused connection or 429 while starting a watch waits the same backoff
// before retrying. A watch that ends in under a second without a single
// event counts as an error. So there is no busy loop, whatever the server
// does. All waiting goes through the injected Clock and ends on abort.
//
// Periodic resync: every resyncPeriodMs (if > 0) while watching,
// store.resync() runs if shouldResync() agrees.

import { StatusError } from '../machinery/errors.js';
import type { KubeList, KubeObject } from '../machinery/meta.js';
import { Backoff, type BackoffOptions } from './backoff.js';
import { type Clock, type Timer, realClock, sleep } from './clock.js';
import { isConnectionRefused } from './errors.js';
import type { ListerWatcher } from './list-watch.js';
import { type ClientLogger, defaultLogger, errorField } from './logger.js';
import type { ReflectorStore } from './store.js';
import type { Watch } from './watch.js';

export interface ReflectorOptions {
  /** For logs: usually the resource, e.g. "configmaps". */
  name?: string;
  clock?: Clock;
  /** 0 (the default) disables periodic resync. */
  resyncPeriodMs?: number;
  shouldResync?: () => boolean;
  /** Items per list page (limit); 500 like client-go's pager. */
  pageSize?: number;
  backoff?: BackoffOptions;
  /** Watches ask the server to end after between this and twice this. */
  minWatchTimeoutSeconds?: number;
  random?: () => number;
  logger?: ClientLogger;
}

/** A watch that ended in under a second without any event. */
export class VeryShortWatchError extends Error {
  constructor(name: string) {
    super(`very short watch: ${name}: Unexpected watch close - watch lasted less than a second and no items received`);
    this.name = 'VeryShortWatchError';
  }
}

export class Reflector<T extends KubeObject = KubeObject> {
  readonly name: string;
  private readonly clock: Clock;
  private readonly backoff: Backoff;
  private readonly resyncPeriodMs: number;
  private readonly shouldResync: () => boolean;
  private readonly pageSize: number;
  private readonly minWatchTimeoutSeconds: number;
  private readonly random: () => number;
  private readonly log: ClientLogger;
  private lastSyncRV = '';
  private rvUnavailable = false;
  /** The first list came back in pages: the server has no watch cache to answer whole lists from. */
  private paginatedResult = false;

  constructor(
    private readonly listerWatcher: ListerWatcher<T>,
    private readonly store: ReflectorStore<T>,
    options: ReflectorOptions = {},
  ) {
    this.name = options.name ?? 'reflector';
    this.clock = options.clock ?? realClock;
    this.random = options.random ?? Math.random;
    this.backoff = new Backoff(this.clock, { random: this.random, ...options.backoff });
    this.resyncPeriodMs = options.resyncPeriodMs ?? 0;
    this.shouldResync = options.shouldResync ?? (() => true);
    this.pageSize = options.pageSize ?? 500;
    this.minWatchTimeoutSeconds = options.minWatchTimeoutSeconds ?? 300;
    this.log = options.logger ?? defaultLogger();
  }

  /** The resourceVersion of the last list or watch event applied to the store. */
  lastSyncResourceVersion(): string {
    return this.lastSyncRV;
  }

  /** List&Watch until signal aborts, relisting after a backoff whenever a cycle ends. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await this.listAndWatch(signal);
      } catch (err) {
        if (signal.aborted) break;
        this.log.warn({ reflector: this.name, ...errorField(err) }, 'list and watch failed; backing off');
      }
      if (signal.aborted) break;
      await sleep(this.clock, this.backoff.next(), signal);
    }
  }

  /** One list followed by watches until one fails; resolves on abort. */
  async listAndWatch(signal: AbortSignal): Promise<void> {
    await this.list(signal);
    if (signal.aborted) return;
    const stopResync = this.startResync();
    try {
      await this.watchLoop(signal);
    } finally {
      stopResync();
    }
  }

  private relistResourceVersion(): string {
    if (this.rvUnavailable) return '';
    return this.lastSyncRV === '' ? '0' : this.lastSyncRV;
  }

  private async list(signal: AbortSignal): Promise<void> {
    const rv = this.relistResourceVersion();
    let list: { items: T[]; resourceVersion: string };
    try {
      list = await this.listAllPages(rv, signal);
    } catch (err) {
      if (rv === '' || !(isExpiredError(err) || isTooLargeResourceVersion(err))) throw err;
      // Our version is no longer served: read the current state instead.
      this.rvUnavailable = true;
      list = await this.listAllPages('', signal);
    }
    if (signal.aborted) return;
    this.store.replace(list.items, list.resourceVersion);
    this.lastSyncRV = list.resourceVersion;
    this.rvUnavailable = false;
  }

  /** Every page of the list; an expired continue token falls back to one unpaginated list. */
  private async listAllPages(resourceVersion: string, signal: AbortSignal): Promise<{ items: T[]; resourceVersion: string }> {
    const items: T[] = [];
    const limit = this.listLimit(resourceVersion);
    let page: KubeList<T> = await this.listerWatcher.list({ resourceVersion, ...(limit === undefined ? {} : { limit }), signal });
    if (resourceVersion === '0' && page.metadata.continue) this.paginatedResult = true;
    items.push(...page.items);
    while (page.metadata.continue) {
      try {
        page = await this.listerWatcher.list({ continue: page.metadata.continue, limit: this.pageSize, signal });
      } catch (err) {
        if (!isExpiredError(err)) throw err;
        const full = await this.listerWatcher.list({ resourceVersion, signal });
        return { items: full.items, resourceVersion: full.metadata.resourceVersion ?? '' };
      }
      items.push(...page.items);
    }
    return { items, resourceVersion: page.metadata.resourceVersion ?? '' };
  }

  /**
   * The page size of a list at resourceVersion rv. As client-go does, a relist
   * at a specific version asks for no limit: a paginated list at a version is
   * an exact read of that (possibly old) revision, and a watch from there
   * would fail with "too old resource version" again after a server restart,
   * forever; without a limit the server answers with its current state (not
   * older than rv). Servers that paginated the first list keep paginating.
   */
  private listLimit(rv: string): number | undefined {
    if (rv === '' || rv === '0' || this.paginatedResult) return this.pageSize;
    return undefined;
  }

  private async watchLoop(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const timeoutSeconds = Math.floor(this.minWatchTimeoutSeconds * (1 + this.random()));
      let watch: Watch<T>;
      try {
        watch = await this.listerWatcher.watch({ resourceVersion: this.lastSyncRV, allowWatchBookmarks: true, timeoutSeconds, signal });
      } catch (err) {
        if (signal.aborted) return;
        if (isConnectionRefused(err) || isTooManyRequests(err)) {
          this.log.info({ reflector: this.name, ...errorField(err) }, 'watch failed; backing off');
          await sleep(this.clock, this.backoff.next(), signal);
          continue;
        }
        throw err;
      }
      const err = await this.handleWatch(watch, signal);
      if (signal.aborted || err === undefined) continue;
      if (isTooManyRequests(err)) {
        await sleep(this.clock, this.backoff.next(), signal);
        continue;
      }
      // Expired: relist from lastSyncRV (a list at an RV returns data at least that fresh).
      const level = isExpiredError(err) ? 'info' : 'warn';
      this.log[level]({ reflector: this.name, ...errorField(err) }, 'watch ended with an error; relisting');
      return;
    }
  }

  /** Applies one watch's events to the store; returns the error that ended it, if any. */
  private async handleWatch(watch: Watch<T>, signal: AbortSignal): Promise<Error | undefined> {
    const start = this.clock.now();
    let events = 0;
    const stop = (): void => watch.stop();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const event of watch) {
        if (event.type === 'ERROR') return StatusError.fromStatus(event.object);
        events++;
        const obj = event.object;
        try {
          if (event.type === 'ADDED') this.store.add(obj);
          else if (event.type === 'MODIFIED') this.store.update(obj);
          else if (event.type === 'DELETED') this.store.delete(obj);
          else if (event.type !== 'BOOKMARK') {
            this.log.warn({ reflector: this.name, type: String(event.type) }, 'unknown watch event type');
            continue;
          }
        } catch (err) {
          this.log.error({ reflector: this.name, ...errorField(err) }, 'unable to apply watch event');
        }
        const rv = obj.metadata?.resourceVersion;
        if (rv) this.lastSyncRV = rv;
      }
    } finally {
      signal.removeEventListener('abort', stop);
      watch.stop();
    }
    if (signal.aborted) return undefined;
    if (events === 0 && this.clock.now() - start < 1000) return new VeryShortWatchError(this.name);
    return undefined;
  }

  private startResync(): () => void {
    if (this.resyncPeriodMs <= 0) return () => {};
    let timer: Timer | undefined;
    const tick = (): void => {
      if (this.shouldResync()) {
        try {
          this.store.resync();
        } catch (err) {
          this.log.error({ reflector: this.name, ...errorField(err) }, 'resync failed');
        }
      }
      timer = this.clock.setTimer(tick, this.resyncPeriodMs);
    };
    timer = this.clock.setTimer(tick, this.resyncPeriodMs);
    return () => {
      if (timer !== undefined) this.clock.clearTimer(timer);
    };
  }
}

/** 410 Gone / Expired, or an ERROR event saying our version was compacted away. */
export function isExpiredError(err: unknown): boolean {
  if (!(err instanceof StatusError)) return false;
  return err.code === 410 || err.reason === 'Gone' || err.reason === 'Expired' || err.message.includes('too old resource version');
}

function isTooManyRequests(err: unknown): boolean {
  return err instanceof StatusError && err.reason === 'TooManyRequests';
}

/** 504 "Too large resource version": the server has not caught up to our version. */
function isTooLargeResourceVersion(err: unknown): boolean {
  return err instanceof StatusError && (err.status.details?.causes ?? []).some((c) => c.reason === 'ResourceVersionTooLarge');
}
