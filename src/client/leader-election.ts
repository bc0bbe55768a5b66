// LeaderElector: one active instance among several, on a coordination.k8s.io/v1
// Lease, in the way client-go's tools/leaderelection with resourcelock.LeaseLock
// does it.
//
// The lease record (Lease.spec) names the holder (holderIdentity), how long a
// holder's claim lasts without renewal (leaseDurationSeconds), when the current
// holder acquired it (acquireTime), when it last renewed (renewTime, MicroTime)
// and how many times the holder changed (leaseTransitions). Every write is an
// update guarded by the resourceVersion just read, so two candidates can never
// both believe their write won.
//
// Timing invariants (checked by the constructor, as client-go checks them):
//   leaseDuration > renewDeadline > JITTER_FACTOR × retryPeriod > 0.
// - A candidate tries to acquire every retryPeriod (jittered up to ×2.2). It
//   takes a lease that is free (no holder) or expired: a lease is expired when
//   the record has not changed for leaseDurationSeconds as measured on this
//   candidate's own clock since it last saw the record change — never by
//   comparing renewTime with the local wall clock, so clock skew between
//   machines does not matter.
// - The leader renews every retryPeriod. If it cannot renew for renewDeadline
//   (errors, conflicts, someone else holds the lease) it stops leading. Since
//   renewDeadline < leaseDuration, a leader that lost contact has stopped
//   before any other candidate may take over.
// - run(signal) returns when leadership is lost or signal aborts. While
//   leading, onStartedLeading receives a signal that aborts the moment
//   leadership ends; unlike client-go, run() then waits for the promise
//   onStartedLeading returned (so it must settle promptly once the signal
//   aborts) before it releases the lease or returns: the leader's work has
//   stopped before anyone else can start it. onStoppedLeading is called exactly
//   once when run() ends, whether or not it ever led. With releaseOnCancel,
//   aborting run() while leading hands the lease back (empty holder,
//   leaseDurationSeconds 1) so a successor need not wait for expiry.

import { formatMicroTime } from '../machinery/names.js';
import { isAlreadyExists, isNotFound } from '../machinery/errors.js';
import type { Lease, LeaseSpec } from '../api/coordination/v1/types.js';
import { type Clock, realClock, sleep } from './clock.js';
import { type ClientLogger, defaultLogger, errorField } from './logger.js';
import type { ResourceClient, RestClient } from './rest-client.js';

/** client-go's JitterFactor for the acquire loop; also bounds renewDeadline from below. */
export const JITTER_FACTOR = 1.2;

export const DEFAULT_LEASE_DURATION_MS = 15_000;
export const DEFAULT_RENEW_DEADLINE_MS = 10_000;
export const DEFAULT_RETRY_PERIOD_MS = 2_000;

export interface LeaderCallbacks {
  /** This candidate became leader; `signal` aborts when it stops being leader. run() awaits the promise after that. */
  onStartedLeading(signal: AbortSignal): void | Promise<void>;
  /** run() is ending (leadership lost, or the caller aborted). Called once per run(). */
  onStoppedLeading(): void;
  /** The observed holder changed (including to this candidate). */
  onNewLeader?(identity: string): void;
}

export interface LeaderElectionConfig {
  client: RestClient;
  /** The Lease's namespace (default kube-system). */
  namespace?: string;
  /** The Lease's name. */
  name: string;
  /** This candidate's unique identity (holderIdentity). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** Hand the lease back when run() is aborted while leading. */
  releaseOnCancel?: boolean;
  callbacks: LeaderCallbacks;
  /** Monotonic time for expiry and deadlines (default: the process clock). */
  clock?: Clock;
  /** Wall-clock time written into acquireTime/renewTime (default: new Date()). */
  now?: () => Date;
  /** Random source for jitter, in [0, 1) (default Math.random). */
  random?: () => number;
  logger?: ClientLogger;
}

export class LeaderElector {
  private readonly leases: ResourceClient<Lease>;
  private readonly namespace: string;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;
  private readonly now: () => Date;
  private readonly random: () => number;
  private readonly logger: ClientLogger;
  /** The last record we saw and when (monotonic) we saw it change. */
  private observed: LeaseSpec | undefined;
  private observedRaw = '';
  private observedAt = 0;
  /** The Lease object from our last successful read or write (its resourceVersion guards the next write). */
  private cachedLease: Lease | undefined;
  private reportedLeader = '';

  constructor(private readonly config: LeaderElectionConfig) {
    this.leaseDurationMs = config.leaseDurationMs ?? DEFAULT_LEASE_DURATION_MS;
    this.renewDeadlineMs = config.renewDeadlineMs ?? DEFAULT_RENEW_DEADLINE_MS;
    this.retryPeriodMs = config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS;
    validateTiming(this.leaseDurationMs, this.renewDeadlineMs, this.retryPeriodMs);
    if (config.identity === '') throw new Error('Lock identity is empty');
    if (config.name === '') throw new Error('lease name is empty');
    this.namespace = config.namespace ?? 'kube-system';
    this.leases = config.client.leases<Lease>(this.namespace);
    this.clock = config.clock ?? realClock;
    this.now = config.now ?? (() => new Date());
    this.random = config.random ?? Math.random;
    this.logger = config.logger ?? defaultLogger();
  }

  /** True while the last record we saw names us as holder. */
  isLeader(): boolean {
    return this.observed?.holderIdentity === this.config.identity;
  }

  /** The holder named by the last record we saw ('' when none). */
  getLeader(): string {
    return this.observed?.holderIdentity ?? '';
  }

  /**
   * Campaigns until leader, leads until leadership is lost, then resolves.
   * Aborting `signal` ends it at any point (releasing the lease when configured).
   */
  async run(signal: AbortSignal): Promise<void> {
    try {
      if (!(await this.acquire(signal))) return;
      const leading = new AbortController();
      const stopLeading = (): void => leading.abort();
      signal.addEventListener('abort', stopLeading, { once: true });
      let work: Promise<void> = Promise.resolve();
      try {
        work = Promise.resolve()
          .then(() => this.config.callbacks.onStartedLeading(leading.signal))
          .catch((err: unknown) => this.logger.error({ ...errorField(err), lease: this.leaseName() }, 'leader callback failed'));
        await this.renew(leading.signal);
      } finally {
        signal.removeEventListener('abort', stopLeading);
        leading.abort();
        await work;
      }
      if (signal.aborted && this.config.releaseOnCancel) await this.release();
    } finally {
      this.config.callbacks.onStoppedLeading();
    }
  }

  /** Retries every retryPeriod (jittered) until the lease is ours; false when aborted first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    this.logger.info({ lease: this.leaseName(), identity: this.config.identity }, 'attempting to acquire leader lease');
    for (;;) {
      if (signal.aborted) return false;
      if (await this.tryAcquireOrRenew(this.requestSignal(signal, this.renewDeadlineMs))) {
        this.logger.info({ lease: this.leaseName(), identity: this.config.identity }, 'successfully acquired lease');
        return true;
      }
      const wait = this.retryPeriodMs * (1 + this.random() * JITTER_FACTOR);
      if (!(await sleep(this.clock, wait, signal))) return false;
    }
  }

  /** Renews every retryPeriod; returns once a renewal has failed for renewDeadline or `signal` aborts. */
  private async renew(signal: AbortSignal): Promise<void> {
    for (;;) {
      const deadline = this.clock.now() + this.renewDeadlineMs;
      let renewed = false;
      while (!signal.aborted) {
        const left = deadline - this.clock.now();
        if (left <= 0) break;
        if (await this.tryAcquireOrRenew(this.requestSignal(signal, left))) {
          renewed = true;
          break;
        }
        if (deadline - this.clock.now() <= 0) break;
        if (!(await sleep(this.clock, Math.min(this.retryPeriodMs, deadline - this.clock.now()), signal))) break;
      }
      if (signal.aborted) return;
      if (!renewed) {
        this.logger.warn({ lease: this.leaseName(), identity: this.config.identity }, 'failed to renew lease: leadership lost');
        this.forgetLeadership();
        return;
      }
      if (!(await sleep(this.clock, this.retryPeriodMs, signal))) return;
    }
  }

  /**
   * One attempt, as client-go's tryAcquireOrRenew: read the lease (or create
   * it), give up if another holder's claim is still live, else write ourselves
   * in with an update guarded by the resourceVersion read. Never throws.
   */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const nowWall = formatMicroTime(this.now());
    const record: LeaseSpec = {
      holderIdentity: this.config.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: nowWall,
      renewTime: nowWall,
    };
    try {
      // Fast path: while leading, renew on the lease we last wrote without reading it first.
      if (this.isLeader() && this.cachedLease && this.observedValid()) {
        const spec = this.observed!;
        record.acquireTime = spec.acquireTime ?? nowWall;
        record.leaseTransitions = spec.leaseTransitions ?? 0;
        try {
          this.store(await this.leases.update({ ...this.cachedLease, spec: { ...this.cachedLease.spec, ...record } }, { signal }));
          return true;
        } catch (err) {
          if (signal.aborted) return false;
          this.logger.debug({ ...errorField(err), lease: this.leaseName() }, 'lease fast-path renewal failed; reading it again');
        }
      }

      let current: Lease;
      try {
        current = await this.leases.get(this.config.name, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
        record.leaseTransitions = 0;
        const created = await this.leases.create(
          { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: this.config.name, namespace: this.namespace }, spec: record },
          { signal },
        );
        this.store(created);
        return true;
      }

      const spec = current.spec ?? {};
      const raw = JSON.stringify(spec);
      if (raw !== this.observedRaw) {
        this.observed = spec;
        this.observedRaw = raw;
        this.observedAt = this.clock.now();
        this.cachedLease = current;
        this.reportLeader();
      }
      const holder = spec.holderIdentity ?? '';
      if (holder !== '' && holder !== this.config.identity && this.observedValid()) {
        this.logger.debug({ lease: this.leaseName(), holder }, 'lease is held by another candidate and has not expired');
        return false;
      }
      if (holder === this.config.identity) {
        record.acquireTime = spec.acquireTime ?? nowWall;
        record.leaseTransitions = spec.leaseTransitions ?? 0;
      } else {
        record.leaseTransitions = (spec.leaseTransitions ?? 0) + 1;
      }
      this.store(await this.leases.update({ ...current, spec: { ...spec, ...record } }, { signal }));
      return true;
    } catch (err) {
      if (!signal.aborted && !isAlreadyExists(err)) {
        this.logger.debug({ ...errorField(err), lease: this.leaseName() }, 'lease acquire/renew attempt failed');
      }
      return false;
    }
  }

  /**
   * Hands the lease back: empty holder, leaseDurationSeconds 1, transitions
   * kept. Reads the lease first (as client-go does): a renewal aborted in
   * flight may still have been applied, so the resourceVersion we cached can
   * be stale and an update guarded by it would conflict and leave us holding
   * the lease until it expires.
   */
  private async release(): Promise<void> {
    if (!this.isLeader() || !this.cachedLease) return;
    const signal = AbortSignal.timeout(this.renewDeadlineMs);
    try {
      const current = await this.leases.get(this.config.name, { signal });
      if (current.spec?.holderIdentity !== this.config.identity) return;
      const nowWall = formatMicroTime(this.now());
      const spec: LeaseSpec = {
        ...current.spec,
        leaseDurationSeconds: 1,
        acquireTime: nowWall,
        renewTime: nowWall,
        leaseTransitions: current.spec.leaseTransitions ?? 0,
      };
      delete spec.holderIdentity;
      this.store(await this.leases.update({ ...current, spec }, { signal }));
      this.logger.info({ lease: this.leaseName(), identity: this.config.identity }, 'released leader lease');
    } catch (err) {
      this.logger.warn({ ...errorField(err), lease: this.leaseName() }, 'failed to release lease');
    }
  }

  /** Records a lease we just wrote: it is what everyone will now observe. */
  private store(lease: Lease): void {
    this.cachedLease = lease;
    this.observed = lease.spec ?? {};
    this.observedRaw = JSON.stringify(this.observed);
    this.observedAt = this.clock.now();
    this.reportLeader();
  }

  /** After a failed renewal we no longer claim to lead, whatever the last record said. */
  private forgetLeadership(): void {
    this.observed = undefined;
    this.observedRaw = '';
    this.cachedLease = undefined;
  }

  /** True while the observed record's claim has not run out on our clock. */
  private observedValid(): boolean {
    const seconds = this.observed?.leaseDurationSeconds ?? 0;
    return this.observedAt + seconds * 1000 > this.clock.now();
  }

  private reportLeader(): void {
    const holder = this.observed?.holderIdentity ?? '';
    if (holder === this.reportedLeader) return;
    this.reportedLeader = holder;
    if (holder !== '') this.config.callbacks.onNewLeader?.(holder);
  }

  /** One request's signal: the caller's, bounded by ms. */
  private requestSignal(signal: AbortSignal, ms: number): AbortSignal {
    return AbortSignal.any([signal, AbortSignal.timeout(Math.max(1, Math.ceil(ms)))]);
  }

  private leaseName(): string {
    return `${this.namespace}/${this.config.name}`;
  }
}

/** Throws unless leaseDuration > renewDeadline > JITTER_FACTOR × retryPeriod > 0 (client-go's checks and messages). */
export function validateTiming(leaseDurationMs: number, renewDeadlineMs: number, retryPeriodMs: number): void {
  if (!(leaseDurationMs > renewDeadlineMs)) throw new Error('leaseDuration must be greater than renewDeadline');
  if (!(renewDeadlineMs > JITTER_FACTOR * retryPeriodMs)) throw new Error('renewDeadline must be greater than retryPeriod*JitterFactor');
  if (!(leaseDurationMs >= 1)) throw new Error('leaseDuration must be greater than zero');
  if (!(renewDeadlineMs >= 1)) throw new Error('renewDeadline must be greater than zero');
  if (!(retryPeriodMs >= 1)) throw new Error('retryPeriod must be greater than zero');
}

/**
 * Runs `lead` whenever this candidate is leader, campaigning again after each
 * loss, until `signal` aborts. `lead` gets a signal that aborts when leadership
 * ends and must stop its work promptly; its promise settles before the lease is
 * released and before the next campaign, so one candidate never runs two
 * `lead`s at once.
 */
export async function runWhileLeader(
  config: Omit<LeaderElectionConfig, 'callbacks'> & { onNewLeader?: (identity: string) => void },
  lead: (signal: AbortSignal) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const clock = config.clock ?? realClock;
  while (!signal.aborted) {
    const callbacks: LeaderCallbacks = { onStartedLeading: lead, onStoppedLeading: () => {} };
    if (config.onNewLeader !== undefined) callbacks.onNewLeader = config.onNewLeader;
    await new LeaderElector({ ...config, callbacks }).run(signal);
    if (!signal.aborted) await sleep(clock, config.retryPeriodMs ?? DEFAULT_RETRY_PERIOD_MS, signal);
  }
}
