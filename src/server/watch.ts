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
// stream (encodedOnce); each stream's events are gathered and written together
// every flushIntervalMs (one writev per stream per tick, whatever the rate).
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
  /** Watch streams write what they gathered every this many ms (default 10; 0: on the next turn). */
  flushIntervalMs?: number;
}

export const DEFAULT_FLUSH_INTERVAL_MS = 10;

export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

/** The watches in flight, so a stopping server can end them all; also carries the watch limits. */
export class WatchTracker {
  private readonly active = new Set<() => void>();
  readonly minRequestTimeoutSeconds: number;
  readonly maxBufferedBytes: number;

  readonly flushIntervalMs: number;
  private dirty: Array<() => void> = [];
  private flushTimer: NodeJS.Timeout | NodeJS.Immediate | undefined;

  constructor(limits: WatchLimits = {}) {
    this.flushIntervalMs = limits.flushIntervalMs ?? DEFAULT_FLUSH_INTERVAL_MS;
    this.minRequestTimeoutSeconds = limits.minRequestTimeoutSeconds ?? MIN_REQUEST_TIMEOUT_SECONDS;
    this.maxBufferedBytes = limits.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  }

  add(end: () => void): () => void {
    this.active.add(end);
    return () => this.active.delete(end);
  }

  get size(): number {
    return this.active.size;
  }

  /**
   * Runs `flush` on the next flush tick. Streams gather their events and write
   * them together every flushIntervalMs: with many watchers, per-event socket
   * writes (one syscall per watcher per event) cost more than the events.
   */
  scheduleFlush(flush: () => void): void {
    this.dirty.push(flush);
    if (this.flushTimer !== undefined) return;
    const run = (): void => {
      this.flushTimer = undefined;
      const due = this.dirty;
      this.dirty = [];
      for (const f of due) f();
    };
    this.flushTimer = this.flushIntervalMs > 0 ? setTimeout(run, this.flushIntervalMs) : setImmediate(run);
  }

  endAll(): void {
    for (const end of [...this.active]) end();
    this.active.clear();
  }
}

export function encodeWatchEvent(event: WatchEvent): string {
  return JSON.stringify({ type: event.type, object: event.object }) + '\n';
}

/** How events of one watch are written: the response Content-Type and one event's bytes. */
export interface WatchStreamFormat {
  contentType: string;
  encode(event: WatchEvent): string | Uint8Array;
}

export const JSON_WATCH_FORMAT: WatchStreamFormat = { contentType: 'application/json', encode: encodeWatchEvent };

/** Protobuf frames: a 4-byte big-endian length, then a WatchEvent message (upstream's LengthDelimitedFramer). */
export const PROTOBUF_WATCH_FORMAT: WatchStreamFormat = {
  contentType: 'application/vnd.kubernetes.protobuf;stream=watch',
  encode: (event) => encodeWatchEventFrame(event.type, event.object as KubeObject),
};

/** Bytes of shared events, per content type: one encoding per event, whatever the number of watchers. */
const encodedEvents = new WeakMap<WatchEvent, Map<string, Uint8Array>>();

/** Encodes an event with `base`, reusing the bytes when the same event object was encoded before. */
function encodedOnce(event: WatchEvent, base: WatchStreamFormat): Uint8Array {
  let byType = encodedEvents.get(event);
  const hit = byType?.get(base.contentType);
  if (hit !== undefined) return hit;
  const raw = base.encode(event);
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : raw;
  if (byType === undefined) encodedEvents.set(event, (byType = new Map()));
  byType.set(base.contentType, bytes);
  return bytes;
}

/** The stream format for a negotiated media type, with event objects passed through `convert`. */
export function watchStreamFormat(mediaType: string, convert: (event: WatchEvent) => WatchEvent = (e) => e): WatchStreamFormat {
  const base = mediaType === 'application/vnd.kubernetes.protobuf' ? PROTOBUF_WATCH_FORMAT : JSON_WATCH_FORMAT;
  return {
    contentType: base.contentType,
    encode: (event) => {
      const converted = convert(event);
      // Unconverted events may be shared by many watchers: encode those once.
      return converted === event ? encodedOnce(event, base) : base.encode(converted);
    },
  };
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

  let queued: Array<string | Uint8Array> = [];
  let overflowed = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    untrack();
    watcher?.stop();
    // A clean end still delivers what was gathered (the closing bookmark); an overflow does not.
    if (started && !overflowed && !res.writableEnded) for (const line of queued) res.write(line);
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
    // One writev for everything gathered since the last flush.
    res.cork();
    for (const line of lines) res.write(line);
    res.uncork();
    if (res.writableLength > allowance) {
      overflowed = true;
      finish();
    }
  };
  const send = (line: string | Uint8Array): void => {
    if (queued.length === 0) tracker.scheduleFlush(flush);
    queued.push(line);
  };

  // The default duration goes to the store as timeoutSeconds, so its clean end (and bookmark) applies.
  const storeOptions: WatchOptions = { ...options };
  if (storeOptions.timeoutSeconds === undefined || storeOptions.timeoutSeconds <= 0) {
    storeOptions.timeoutSeconds = Math.floor(tracker.minRequestTimeoutSeconds * (1 + Math.random()));
  }

  try {
    watcher = await store.watch(namespace, storeOptions, {
      event: (e) => {
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
  timer = setTimeout(finish, (storeOptions.timeoutSeconds + 1) * 1000);
  timer.unref();
  return ended;
}
