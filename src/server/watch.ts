// Watch streams over HTTP: a 200 chunked response of newline-delimited JSON
// events ({"type":"ADDED","object":{…}}), as kube-apiserver writes them for
// Accept application/json, or (with a WatchStreamFormat) length-prefixed
// protobuf WatchEvent frames, and event objects converted (as=Table). A stream ends when the client goes away, when
// timeoutSeconds passes (default: a random duration in [30, 60) minutes, as
// upstream spreads reconnects), when the store ends it, or when the server
// stops (WatchTracker.endAll).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { encodeWatchEventFrame } from '../api/schema/protobuf.js';
import type { KubeObject } from '../machinery/meta.js';
import type { RESTStore, WatchEvent, WatchOptions, Watcher } from '../registry/rest.js';
import { writeError } from './responses.js';

const MIN_REQUEST_TIMEOUT_SECONDS = 1800;

/** The watches in flight, so a stopping server can end them all. */
export class WatchTracker {
  private readonly active = new Set<() => void>();

  add(end: () => void): () => void {
    this.active.add(end);
    return () => this.active.delete(end);
  }

  get size(): number {
    return this.active.size;
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

/** The stream format for a negotiated media type, with event objects passed through `convert`. */
export function watchStreamFormat(mediaType: string, convert: (event: WatchEvent) => WatchEvent = (e) => e): WatchStreamFormat {
  const base = mediaType === 'application/vnd.kubernetes.protobuf' ? PROTOBUF_WATCH_FORMAT : JSON_WATCH_FORMAT;
  return { contentType: base.contentType, encode: (event) => base.encode(convert(event)) };
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

  const finish = (): void => {
    if (finished) return;
    finished = true;
    if (timer !== undefined) clearTimeout(timer);
    untrack();
    watcher?.stop();
    if (!res.writableEnded) res.end();
    resolveEnded();
  };

  untrack = tracker.add(finish);
  res.on('close', finish);

  try {
    watcher = await store.watch(namespace, options, {
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
        if (started) res.write(line);
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

  const seconds =
    options.timeoutSeconds !== undefined && options.timeoutSeconds > 0
      ? options.timeoutSeconds
      : MIN_REQUEST_TIMEOUT_SECONDS * (1 + Math.random());
  timer = setTimeout(finish, seconds * 1000);
  timer.unref();
  return ended;
}
