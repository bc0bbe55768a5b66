// The priority-and-fairness filter (upstream's server/filters/priority-and-fairness.go):
// after authentication and impersonation it classifies the request, sets the
// X-Kubernetes-PF-* headers (the UIDs of the matched FlowSchema and
// PriorityLevelConfiguration), estimates the seats it takes, and serves it once
// its priority level admits it, or answers 429 with Retry-After when its queue
// is full, its level rejects, or it waited too long.
//
// Long-running requests other than watches (exec, attach, port-forward, proxy,
// logs) are not limited; a watch holds its seat only until its stream starts
// (its initial events are written), as upstream counts a watch's initialization only.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ALL_UNAUTHENTICATED, ANONYMOUS_USER, type UserInfo } from '../../machinery/user.js';
import type { RequestInfo } from '../request-info.js';
import { isTicket, type Classification, type FlowController, type Rejection, type Ticket } from './controller.js';
import type { ExecutionMetrics, FlowControlMetrics } from './metrics.js';
import { DEBUG_PREFIX, dumpPriorityLevels, dumpQueues, dumpRequests } from './debug.js';
import { RetryAfterTracker } from './retry-after.js';

export const FLOW_SCHEMA_UID_HEADER = 'X-Kubernetes-PF-FlowSchema-UID';
export const PRIORITY_LEVEL_UID_HEADER = 'X-Kubernetes-PF-PriorityLevel-UID';

const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);
const ANONYMOUS: UserInfo = { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };
const OBJECTS_PER_SEAT = 100;

export interface FlowControlFilterOptions {
  controller: FlowController;
  metrics?: FlowControlMetrics;
  /** Stored objects of a request's resource (upstream's object count tracker); undefined when unknown. */
  objectCount?(info: RequestInfo): number | undefined;
  now?: () => number;
}

export type ServeFn = () => Promise<void>;

export class FlowControlFilter {
  private readonly retryAfter: RetryAfterTracker;
  private readonly now: () => number;

  constructor(private readonly options: FlowControlFilterOptions) {
    this.now = options.now ?? Date.now;
    this.retryAfter = new RetryAfterTracker(this.now);
    const metrics = options.metrics;
    if (metrics !== undefined) {
      options.controller.events = {
        dispatched: (c, waitedMs, width) => metrics.onDispatched(c, waitedMs, width),
        rejected: (c, reason) => metrics.onRejected(c, reason),
        enqueued: (c, length) => metrics.onEnqueued(c, length),
      };
    }
  }

  /**
   * Serves `serve` under priority and fairness; `user` undefined: the server
   * authenticates nobody (anonymous). Not async on the common path (a seat is
   * free): the caller awaits only the promise it gets.
   */
  handle(req: IncomingMessage, res: ServerResponse, info: RequestInfo, user: UserInfo | undefined, serve: ServeFn): Promise<void> {
    const verb = info.verb;
    if (verb !== 'watch' && (verb === 'proxy' || (info.isResourceRequest && info.subresource !== '' && LONG_RUNNING_SUBRESOURCES.has(info.subresource)))) return serve();
    const who = user ?? ANONYMOUS;
    const controller = this.options.controller;
    const c = controller.classifyRequest(who.name, who.groups, info);
    res.setHeader(PRIORITY_LEVEL_UID_HEADER, c.level.config.uid);
    res.setHeader(FLOW_SCHEMA_UID_HEADER, c.flowSchema.metadata.uid ?? '');
    const width = info.isResourceRequest && (verb === 'list' || verb === 'watch') ? this.width(info, c) : 1;
    const admitted = controller.admit(c, width, res);
    if (admitted instanceof Promise) return this.afterWaiting(admitted, c, res, info, serve);
    return this.run(admitted, res, info, serve);
  }

  private async afterWaiting(admitted: Promise<Ticket | Rejection>, c: Classification, res: ServerResponse, info: RequestInfo, serve: ServeFn): Promise<void> {
    const tally = this.options.metrics?.tally(c);
    if (tally !== undefined) tally.waiting++;
    let outcome: Ticket | Rejection;
    try {
      outcome = await admitted;
    } finally {
      if (tally !== undefined) tally.waiting--;
    }
    return this.run(outcome, res, info, serve);
  }

  private run(admitted: Ticket | Rejection, res: ServerResponse, info: RequestInfo, serve: ServeFn): Promise<void> {
    if (!isTicket(admitted)) {
      this.reject(admitted, res);
      return Promise.resolve();
    }
    const ticket = admitted;
    const metrics = this.options.metrics;
    const execution = metrics?.executing(ticket.classification);
    if (info.verb === 'watch') {
      // The stream's headers go out once its initial events are gathered: the seat is free from then on.
      const writeHead = res.writeHead;
      const filter = this;
      res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
        res.writeHead = writeHead;
        filter.release(ticket, execution, true);
        return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
      } as typeof res.writeHead;
    }
    if (!info.isResourceRequest && info.path.startsWith(DEBUG_PREFIX)) {
      try {
        this.serveDebug(res, info);
      } finally {
        this.release(ticket, execution, false);
      }
      return Promise.resolve();
    }
    return this.execute(ticket, execution, info.verb === 'watch', serve);
  }

  /** Serves, then frees the seat (an async function rather than closures handed to then(): less to build per request). */
  private async execute(ticket: Ticket, execution: ExecutionMetrics | undefined, watch: boolean, serve: ServeFn): Promise<void> {
    try {
      await serve();
    } finally {
      this.release(ticket, execution, watch);
    }
  }

  /** Frees a request's seat (once: a watch's may go at its first writeHead) and records its execution. */
  private release(ticket: Ticket, execution: ExecutionMetrics | undefined, watch: boolean): void {
    if (ticket.released) return;
    const seconds = ticket.finish();
    if (execution !== undefined) this.options.metrics!.executed(execution, seconds, watch);
  }

  private reject(rejection: Rejection, res: ServerResponse): void {
    const name = rejection.classification.level.config.name;
    this.retryAfter.dropped(name);
    if (res.headersSent || res.destroyed) return;
    res.setHeader('Retry-After', String(this.retryAfter.get(name)));
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.writeHead(429);
    res.end('Too many requests, please try again later.\n');
  }

  /** Seats of a request: one, but for lists (and watches sending initial events) by the objects they read. */
  private width(info: RequestInfo, c: Classification): number {
    if (!info.isResourceRequest || info.name !== '') return 1;
    if (info.verb !== 'list' && !(info.verb === 'watch' && info.query.get('sendInitialEvents') === 'true')) return 1;
    const count = this.options.objectCount?.(info);
    if (count === undefined) return 1;
    const maxSeats = this.options.controller.maxSeats(c.level);
    const q = info.query;
    const limitText = q.get('limit');
    const limitValue = limitText === null ? 0 : Number(limitText);
    const limit = limitValue > 0 && limitValue < count ? limitValue : count;
    const rv = q.get('resourceVersion') ?? '';
    const match = q.get('resourceVersionMatch') ?? '';
    const fromStorage = (q.get('continue') ?? '') !== '' || (match !== '' && match !== 'NotOlderThan') || (limitValue > 0 && match === '' && rv !== '' && rv !== '0');
    let objects: number;
    if (info.verb === 'watch' || !fromStorage) objects = count;
    else if ((q.get('labelSelector') ?? '') !== '' || (q.get('fieldSelector') ?? '') !== '') objects = count + limit;
    else objects = 2 * limit;
    return Math.max(1, Math.min(maxSeats, Math.ceil(objects / OBJECTS_PER_SEAT)));
  }

  private serveDebug(res: ServerResponse, info: RequestInfo): void {
    const name = info.path.slice(DEBUG_PREFIX.length);
    const controller = this.options.controller;
    let body: string | undefined;
    if (name === 'dump_priority_levels') body = dumpPriorityLevels(controller);
    else if (name === 'dump_queues') body = dumpQueues(controller);
    else if (name === 'dump_requests') body = dumpRequests(controller, this.now());
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (body === undefined) {
      res.writeHead(404);
      res.end('404 page not found\n');
      return;
    }
    res.writeHead(200);
    res.end(body);
  }
}
