// Watch: one watch request's event stream. The server sends one JSON object
// per line ({"type": ..., "object": ...}); Watch turns the chunked body into
// those events, in order, for exactly one consumer (for await ... of watch).
//
// Ending: the stream ends when the server closes it (timeoutSeconds, restart,
// dropped connection) or when stop() is called; both end the iteration
// quietly, like client-go's StreamWatcher treats EOF. A transport failure
// that ended it is kept in `closeError` for those who care. An ERROR event
// (e.g. 410 "too old resource version") is delivered as an event: deciding
// what it means is the consumer's job. stop() is idempotent and releases the
// connection; breaking out of the loop stops the watch too.
//
// Watch.ofEvents makes the same from events already decoded: the server's
// in-process reads for its own controllers (src/server/in-process-reads.ts).

import { StringDecoder } from 'node:string_decoder';
import type { Status } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export type WatchEvent<T = KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };

export class Watch<T = KubeObject> implements AsyncIterable<WatchEvent<T>> {
  private stopped = false;
  private consumed = false;
  private failure: unknown;

  private decoded: AsyncIterable<WatchEvent<T>> | undefined;

  constructor(
    private readonly body: AsyncIterable<Buffer | string>,
    private readonly abort: () => void,
    /** Applied to every non-ERROR event's object. */
    private readonly transform?: (object: T) => T,
  ) {}

  /** A Watch over events that need no decoding; abort ends their source. */
  static ofEvents<T>(events: AsyncIterable<WatchEvent<T>>, abort: () => void, transform?: (object: T) => T): Watch<T> {
    const watch = new Watch<T>(NO_BYTES, abort, transform);
    watch.decoded = events;
    return watch;
  }

  /** Ends the watch and closes its connection. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort();
  }

  isStopped(): boolean {
    return this.stopped;
  }

  /** The transport error that ended the stream, if it did not end cleanly. */
  get closeError(): unknown {
    return this.failure;
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.consumed) throw new Error('a Watch can be iterated only once');
    this.consumed = true;
    return this.decoded !== undefined ? this.passThrough(this.decoded) : this.events();
  }

  private transformed(event: WatchEvent<T>): WatchEvent<T> {
    if (this.transform === undefined || event.type === 'ERROR') return event;
    return { type: event.type, object: this.transform(event.object) };
  }

  private async *events(): AsyncGenerator<WatchEvent<T>> {
    const decoder = new StringDecoder('utf8');
    let pending = '';
    try {
      for await (const chunk of this.body) {
        pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
        let newline: number;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          const event = parseEvent<T>(line);
          if (event !== undefined) yield this.transformed(event);
        }
        if (this.stopped) return;
      }
      const event = parseEvent<T>(pending + decoder.end());
      if (event !== undefined) yield this.transformed(event);
    } catch (err) {
      if (!this.stopped) this.failure = err;
    } finally {
      this.stop();
    }
  }

  private async *passThrough(events: AsyncIterable<WatchEvent<T>>): AsyncGenerator<WatchEvent<T>> {
    try {
      for await (const event of events) {
        if (this.stopped) return;
        yield this.transformed(event);
      }
    } catch (err) {
      if (!this.stopped) this.failure = err;
    } finally {
      this.stop();
    }
  }
}

const NO_BYTES: AsyncIterable<string> = { [Symbol.asyncIterator]: async function* () {} };

function parseEvent<T>(line: string): WatchEvent<T> | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  const value = JSON.parse(text) as { type?: unknown; object?: unknown };
  if (typeof value.type !== 'string' || value.object === null || typeof value.object !== 'object') {
    throw new Error(`malformed watch event: ${text.slice(0, 200)}`);
  }
  return value as WatchEvent<T>;
}
