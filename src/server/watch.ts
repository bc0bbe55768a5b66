// Watch streams over HTTP: a 200 chunked response of newline-delimited JSON
// events ({"type":"ADDED","object":{…}}), as kube-apiserver writes them for
// Accept application/json, or (with a WatchStreamFormat) length-prefixed
// protobuf WatchEvent frames, and event objects converted (as=Table). A stream ends when the client goes away, when
// timeoutSeconds passes (default: a random duration in [minRequestTimeout,
// 2 × minRequestTimeout), 30–60 minutes as upstream, so reconnects spread;
// the store sees it as timeoutSeconds and ends the watch cleanly, with a
// bookmark when asked), when the store ends it, or when the server stops
// (WatchTracker.endAll).
//
// Fan-out costs: an event the store shares between watchers (the same
// WatchEvent object) is encoded once per format and the bytes reused for every
// stream (encodedOnce); a batch the store hands to many watchers at once (the
// same array, WatchSink.events) is encoded once and queued as one item
// (encodedBatchOnce), so a stream's cost per dispatch does not grow with the
// events in it. Each stream writes what it gathered as ONE buffer per flush
// tick; streams that gathered the same items in a tick (every unfiltered
// watcher of a resource) share that buffer (WatchTracker.joined), so a tick
// costs one concatenation plus one socket write per stream, FLUSH_SLICE
// streams per turn of the event loop. Ticks start at least flushIntervalMs
// (10 ms) apart, start to start (an event after a quiet spell goes out at
// once). A socket write costs about the same up to tens of KiB, so the
// interval adapts to the load, up to maxFlushIntervalMs (25 ms) when writing
// to every stream takes a noticeable share of the loop: bigger, fewer writes
// keep the server and the clients out of syscalls.
// A watcher that cannot keep up is ended instead of buffering without bound:
// once its socket holds more than maxBufferedBytes beyond what its initial
// events put there, the stream ends and the client re-watches.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeWatchEventFrame } from '../api/schema/protobuf.js';
import type { KubeObject } from '../machinery/meta.js';
import type { RESTStore, WatchEvent, WatchOptions, Watcher } from '../registry/rest.js';
import { writeError } from './responses.js';

const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

export interface WatchLimits {
  /** kube-apiserver's --min-request-timeout in seconds (default 1800). */
  minRequestTimeoutSeconds?: number;
  /** Bytes a watch may leave unsent beyond its initial events before it is ended (default 8 MiB). */
  maxBufferedBytes?: number;
  /** Watch streams write what they gathered at least every this many ms (default 10; 0: on the next turn). */
  flushIntervalMs?: number;
  /** Under load the flush interval grows up to this many ms (default 25; see WatchTracker.scheduleFlush). */
  maxFlushIntervalMs?: number;
}

export const DEFAULT_FLUSH_INTERVAL_MS = 10;

export const DEFAULT_MAX_FLUSH_INTERVAL_MS = 25;

export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** The next interval is this many times what the last tick's writes took (so writing stays a minor share of the loop). */
const FLUSH_LOAD_FACTOR = 2;

/** Streams written per turn of the event loop within one tick. */
const FLUSH_SLICE = 100;

/** Per key, at most this many distinct concatenations are remembered in one tick (filtered watchers differ). */
const MAX_JOINED_PER_KEY = 4;

type Line = string | Uint8Array;

/** The watches in flight, so a stopping server can end them all; also carries the watch limits and the flush clock. */
export class WatchTracker {
  private readonly active = new Set<() => void>();
  readonly minRequestTimeoutSeconds: number;
  readonly maxBufferedBytes: number;

  readonly flushIntervalMs: number;
  readonly maxFlushIntervalMs: number;
  /** The current tick interval: between flushIntervalMs and maxFlushIntervalMs. */
  private intervalMs: number;
  private dirty: Array<() => void> = [];
  private flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  /** A tick is writing (possibly over several turns of the loop). */
  private flushing = false;
  private lastTickStart = 0;
  /** Concatenations made during the running tick, by their first line (see joined). */
  private joinedInTick = new Map<Line | readonly Line[], Array<{ lines: ReadonlyArray<Line | readonly Line[]>; bytes: Uint8Array }>>();

  constructor(limits: WatchLimits = {}) {
    this.flushIntervalMs = limits.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.maxFlushIntervalMs = Math.max(this.flushIntervalMs, limits.maxFlushIntervalMs ?? DEFAULT_MAX_FLUSH_INTERVAL_MS);
    this.intervalMs = this.flushIntervalMs;
    this.minRequestTimeoutSeconds = limits.minRequestTimeoutSeconds ?? MIN_REQUEST_TIMEOUT_SECONDS;
    this.maxBufferedBytes = limits.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  }

  /** A watch's duration in seconds: the one asked for, else minRequestTimeout times a random factor in [1, 2) (upstream's). */
  timeoutSeconds(requested: number | undefined): number {
    return requested !== undefined && requested > 0 ? requested : Math.floor(this.minRequestTimeoutSeconds * (1 + Math.random()));
  }

  add(end: () => void): () => void {
    this.active.add(end);
    return () => this.active.delete(end);
  }

  get size(): number {
    return this.active.size;
  }

  /** For tests and metrics: the current flush interval in ms. */
  get currentFlushIntervalMs(): number {
    return this.intervalMs;
  }

  /**
   * Runs `flush` on the next flush tick. Streams gather their events and write
   * them together once per tick: with many watchers, per-event socket writes
   * (one syscall per watcher per event) cost more than the events. A tick
   * writes FLUSH_SLICE streams per turn of the event loop, so requests (and the
   * commits whose events the watchers wait for) are served in between. Ticks
   * start intervalMs apart (or back to back when a tick takes longer); the
   * interval is FLUSH_LOAD_FACTOR times what the last tick's writes took
   * (socket writes included), within [flushIntervalMs, maxFlushIntervalMs].
   */
  scheduleFlush(flush: () => void): void {
    this.dirty.push(flush);
    if (this.flushTimer === undefined && !this.flushing) this.arm();
  }

  /** Ticks start at least intervalMs apart (start to start): the next one is due intervalMs after the last began. */
  private arm(): void {
    if (this.flushIntervalMs <= 0) {
      this.flushTimer = setImmediate(this.runTick);
      return;
    }
    const wait = Math.max(0, this.lastTickStart + this.intervalMs - performance.now());
    this.flushTimer = setTimeout(this.runTick, wait);
  }

  private readonly runTick = (): void => {
    this.flushTimer = undefined;
    this.flushing = true;
    this.lastTickStart = performance.now();
    const due = this.dirty;
    this.dirty = [];
    let next = 0;
    let busyMs = 0;
    const slice = (): void => {
      const started = performance.now();
      const end = Math.min(due.length, next + FLUSH_SLICE);
      try {
        while (next < end) due[next++]!();
      } finally {
        // The socket writes themselves happen on the ticks queued by the
        // responses' uncork: measure once they are done.
        process.nextTick(() => {
          busyMs += performance.now() - started;
          if (next < due.length) {
            setImmediate(slice);
            return;
          }
          this.joinedInTick.clear();
          this.flushing = false;
          this.intervalMs = Math.min(this.maxFlushIntervalMs, Math.max(this.flushIntervalMs, Math.round(busyMs * FLUSH_LOAD_FACTOR)));
          if (this.dirty.length > 0) this.arm();
        });
      }
    };
    slice();
  };

  /**
   * The lines as one buffer. During a flush tick, streams that gathered the
   * same lines (the same encoded event objects, in the same order) get the same
   * buffer, so the concatenation is made once per tick, not once per stream.
   */
  joined(lines: ReadonlyArray<Line | readonly Line[]>): Line {
    if (lines.length === 1 && !Array.isArray(lines[0])) return lines[0] as Line;
    const first = lines[0]!;
    let made = this.joinedInTick.get(first);
    if (made !== undefined) for (const m of made) if (sameLines(m.lines, lines)) return m.bytes;
    const bytes = Buffer.concat(lines.flat().map((l) => (typeof l === 'string' ? Buffer.from(l) : l)));
    if (made === undefined) this.joinedInTick.set(first, (made = []));
    if (made.length < MAX_JOINED_PER_KEY) made.push({ lines, bytes });
    return bytes;
  }

  endAll(): void {
    for (const end of [...this.active]) end();
    this.active.clear();
  }
}

function sameLines(a: ReadonlyArray<Line | readonly Line[]>, b: ReadonlyArray<Line | readonly Line[]>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function encodeWatchEvent(event: WatchEvent): string {
  return JSON.stringify({ type: event.type, object: event.object }) + '\n';
}

/** How events of one watch are written: the response Content-Type and one event's bytes. */
export interface WatchStreamFormat {
  contentType: string;
  encode(event: WatchEvent): string | Uint8Array;
  /**
   * Optional: a batch's lines, in order, as encode() would give them one by
   * one; `failed` when an event could not be encoded (`lines` then holds those
   * before it). The lines array may be shared between streams: never change it.
   */
  encodeAll?(events: readonly WatchEvent[]): { lines: readonly Line[]; failed: boolean };
}

export const JSON_WATCH_FORMAT: WatchStreamFormat = { contentType: 'application/json', encode: encodeWatchEvent };

/** Protobuf frames: a 4-byte big-endian length, then a WatchEvent message (upstream's LengthDelimitedFramer). */
export const PROTOBUF_WATCH_FORMAT: WatchStreamFormat = {
  contentType: 'application/vnd.kubernetes.protobuf;stream=watch',
  encode: (event) => encodeWatchEventFrame(event.type, event.object as KubeObject),
};

/** Bytes of shared events, per content type: one encoding per event, whatever the number of watchers. */
const encodedEvents = new WeakMap<WatchEvent, Map<string, Uint8Array>>();

/** The last event encodedOnce returned: every watcher asks for the same event in a row. */
let lastEncoded: { event: WatchEvent | undefined; base: WatchStreamFormat | undefined; bytes: Uint8Array } = {
  event: undefined,
  base: undefined,
  bytes: new Uint8Array(0),
};

/** Encodes an event with `base`, reusing the bytes when the same event object was encoded before. */
function encodedOnce(event: WatchEvent, base: WatchStreamFormat): Uint8Array {
  if (lastEncoded.event === event && lastEncoded.base === base) return lastEncoded.bytes;
  const bytes = encodedOnceSlow(event, base);
  lastEncoded = { event, base, bytes };
  return bytes;
}

function encodedOnceSlow(event: WatchEvent, base: WatchStreamFormat): Uint8Array {
  let byType = encodedEvents.get(event);
  const hit = byType?.get(base.contentType);
  if (hit !== undefined) return hit;
  const raw = base.encode(event);
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  if (byType === undefined) encodedEvents.set(event, (byType = new Map()));
  byType.set(base.contentType, bytes);
  return bytes;
}

/** The last batch encodedBatchOnce returned: every stream of a dispatch asks for the same batch in a row. */
let lastBatch: {
  events: readonly WatchEvent[] | undefined;
  base: WatchStreamFormat | undefined;
  result: { lines: readonly Line[]; failed: boolean };
} = { events: undefined, base: undefined, result: { lines: [], failed: false } };

/** The stream format for a negotiated media type, with event objects passed through `convert`. */
export function watchStreamFormat(mediaType: string, convert?: (event: WatchEvent) => WatchEvent): WatchStreamFormat {
  const base = mediaType === 'application/vnd.kubernetes.protobuf' ? PROTOBUF_WATCH_FORMAT : JSON_WATCH_FORMAT;
  if (convert === undefined) {
    // Every event goes out as it is: shared events (and batches) are encoded once for every stream.
    return {
      contentType: base.contentType,
      encode: (event) => encodedOnce(event, base),
      encodeAll: (events) => encodedBatchOnce(events, base),
    };
  }
  return {
    contentType: base.contentType,
    encode: (event) => {
      const converted = convert(event);
      // Unconverted events may be shared by many watchers: encode those once.
      return converted === event ? encodedOnce(event, base) : base.encode(converted);
    },
    encodeAll: (events) => {
      // convert runs once per event (a Table converter keeps state between events).
      const converted = events.map(convert);
      if (converted.every((c, i) => c === events[i])) return encodedBatchOnce(events, base);
      const lines: Line[] = [];
      for (let i = 0; i < events.length; i++) {
        const event = events[i]!;
        const c = converted[i]!;
        try {
          lines.push(c === event ? encodedOnce(event, base) : base.encode(c));
        } catch {
          return { lines, failed: true };
        }
      }
      return { lines, failed: false };
    },
  };
}

/** A batch of unconverted events encoded with `base`; the same result for the same batch asked again in a row. */
function encodedBatchOnce(events: readonly WatchEvent[], base: WatchStreamFormat): { lines: readonly Line[]; failed: boolean } {
  if (lastBatch.events === events && lastBatch.base === base) return lastBatch.result;
  const lines: Line[] = [];
  let failed = false;
  for (const event of events) {
    try {
      lines.push(encodedOnce(event, base));
    } catch {
      failed = true;
      break;
    }
  }
  const result = { lines, failed };
  lastBatch = { events, base, result };
  return result;
}

/**
 * Runs one watch to its end. Resolves when the response has ended. Errors the
 * store throws before the stream starts become ordinary Status responses.
 */
export async function serveWatch(
  req: IncomingMessage,
  res: ServerResponse,
  store: RESTStore,
  namespace: string,
  options: WatchOptions,
  tracker: WatchTracker,
  format: WatchStreamFormat = JSON_WATCH_FORMAT,
): Promise<void> {
  let started = false;
  let finished = false;
  let watcher: Watcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  const pending: Array<string | Uint8Array | null> = [];
  let untrack: () => void = () => {};
  let resolveEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));

  /** Lines gathered since the last flush; a batch's lines stay one (shared) array. */
  let queued: Array<Line | readonly Line[]> = [];
  let overflowed = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    untrack();
    watcher?.stop();
    // A clean end still delivers what was gathered (the closing bookmark); an overflow does not.
    if (started && !overflowed && !res.writableEnded) for (const line of queued.flat()) res.write(line);
    queued = [];
    if (!res.writableEnded) res.end();
    resolveEnded();
  };

  untrack = tracker.add(finish);
  res.on('close', finish);

  let allowance = tracker.maxBufferedBytes;
  const flush = (): void => {
    if (finished || queued.length === 0) return;
    const lines = queued;
    queued = [];
    // One write (one chunk) for everything gathered since the last flush.
    res.write(tracker.joined(lines));
    if (res.writableLength > allowance) {
      overflowed = true;
      finish();
    }
  };
  const send = (line: string | Uint8Array): void => {
    if (queued.length === 0) tracker.scheduleFlush(flush);
    queued.push(line);
  };

  const sinkEvent = (e: WatchEvent): void => {
    if (finished) return;
    let line: string | Uint8Array;
    try {
      line = format.encode(e);
    } catch {
      // An object that cannot be written in this format ends the stream, as upstream's encoder error does.
      if (started) finish();
      else pending.push(null);
      return;
    }
    if (started) send(line);
    else pending.push(line);
  };

  // The default duration goes to the store as timeoutSeconds, so its clean end (and bookmark) applies.
  const timeoutSeconds = tracker.timeoutSeconds(options.timeoutSeconds);
  const storeOptions: WatchOptions = { ...options, timeoutSeconds };

  try {
    watcher = await store.watch(namespace, storeOptions, {
      event: sinkEvent,
      events: (events) => {
        if (finished) return;
        if (format.encodeAll === undefined) {
          for (const e of events) sinkEvent(e);
          return;
        }
        const { lines, failed } = format.encodeAll(events);
        if (!started) {
          for (const line of lines) pending.push(line);
          if (failed) pending.push(null);
          return;
        }
        if (lines.length > 0) {
          if (queued.length === 0) tracker.scheduleFlush(flush);
          queued.push(lines);
        }
        // An object that cannot be written in this format ends the stream, as upstream's encoder error does.
        if (failed) finish();
      },
      done: () => {
        // The store may end the watch before we have started the stream.
        if (!started) pending.push(null);
        else finish();
      },
    });
  } catch (err) {
    untrack();
    finished = true;
    writeError(req, res, err);
    resolveEnded();
    return ended;
  }
  if (finished) {
    // The client left (or the server stopped) while the watch was being set up.
    watcher.stop();
    return ended;
  }

  res.setHeader('Content-Type', format.contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Transfer-Encoding', 'chunked');
  res.writeHead(200);
  res.flushHeaders();
  started = true;
  for (const line of pending) {
    if (line === null) {
      finish();
      return ended;
    }
    res.write(line);
  }
  pending.length = 0;
  // Initial events may be many: they do not count against the slow-watcher allowance.
  allowance = res.writableLength + tracker.maxBufferedBytes;

  // A backstop in case the store does not end the watch itself.
  timer = setTimeout(finish, (timeoutSeconds + 1) * 1000);
  timer.unref();
  return ended;
}
