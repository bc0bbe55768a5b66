// One etcd watch stream, reconnecting from the last revision it delivered.
// The stream is a bidirectional gRPC call on the backend's watch connection
// (unary.ts's ClientStream over h2.ts).

import { StorageError, prefixEnd, type WatchEvent, type WatchHandlers } from '../interface.js';
import { bytes, num, text, toKeyValue, type PbWatchResponse } from './protocol.js';
import { toStorageError } from './errors.js';
import type { EtcdBackend, EtcdWatchHandle } from './backend.js';
import type { ClientStream } from './unary.js';

export class EtcdWatch implements EtcdWatchHandle {
  private stream: ClientStream | null = null;
  /**
   * Every event up to this revision has been delivered: the resume point after a
   * reconnect. Only delivered events move it, never a progress notification
   * (which older etcd may send ahead of events still to come).
   */
  private lastRevision: number;
  private cancelled = false;
  private reconnectTimer: NodeJS.Timeout | null = null;
  /** When the current run of failed connection attempts began. */
  private failingSince: number | null = null;
  private backoffMs = 100;

  constructor(
    private readonly backend: EtcdBackend,
    private readonly prefix: string,
    afterRevision: number,
    private readonly handlers: WatchHandlers,
  ) {
    this.lastRevision = afterRevision;
  }

  start(rotate = false): void {
    if (this.cancelled) return;
    // hasleader: have etcd cancel the watch if this member loses its leader, rather than go quiet.
    const stream: ClientStream = this.backend.watchChannel(rotate).stream(this.backend.proto.watch, [['hasleader', 'true']], {
      onMessage: (res) => {
        if (this.stream === stream) this.onResponse(res as PbWatchResponse);
      },
      onError: (err) => {
        if (this.stream === stream) this.reconnect(err);
      },
      onEnd: () => {
        if (this.stream === stream) this.reconnect(new Error('watch stream ended'));
      },
    });
    this.stream = stream;
    stream.write({
      create_request: {
        key: bytes(this.prefix),
        range_end: bytes(prefixEnd(this.prefix)),
        start_revision: this.lastRevision + 1,
        prev_kv: true,
        progress_notify: true,
      },
    });
  }

  private onResponse(res: PbWatchResponse): void {
    if (res.canceled) {
      const compactRevision = num(res.compact_revision);
      if (compactRevision > 0) {
        this.fail(
          new StorageError(
            'Compacted',
            `watch from revision ${this.lastRevision + 1}: required revision has been compacted`,
            undefined,
            undefined,
            compactRevision,
          ),
        );
      } else if (/no leader|leader changed/.test(res.cancel_reason)) {
        this.reconnect(new Error(res.cancel_reason));
      } else {
        this.fail(new StorageError('Internal', `etcd cancelled the watch: ${res.cancel_reason || 'no reason given'}`));
      }
      return;
    }
    if (res.created) {
      this.failingSince = null;
      this.backoffMs = 100;
      return;
    }
    if (res.events.length === 0) {
      // A progress notification: nothing under the prefix up to this revision is
      // pending, if this etcd keeps that promise (see progressFixedIn).
      const revision = num(res.header?.revision);
      if (revision < this.lastRevision || !this.backend.consistentProgress) return;
      this.deliver(() => this.handlers.onProgress?.(revision));
      return;
    }
    const events: WatchEvent[] = [];
    for (const event of res.events) {
      if (!event.kv) continue;
      const revision = num(event.kv.mod_revision);
      if (revision <= this.lastRevision) continue; // replayed after a reconnect
      if (event.type === 1) {
        if (!event.prev_kv) {
          this.fail(new StorageError('Internal', `etcd delete event without prev_kv for ${text(event.kv.key)} at ${revision}`));
          return;
        }
        events.push({ type: 'delete', key: text(event.kv.key), revision, prevKv: toKeyValue(event.prev_kv) });
      } else {
        const put: WatchEvent = { type: 'put', kv: toKeyValue(event.kv) };
        if (event.prev_kv) put.prevKv = toKeyValue(event.prev_kv);
        events.push(put);
      }
      this.lastRevision = revision;
    }
    if (events.length > 0) this.deliver(() => this.handlers.onEvents(events));
  }

  /** Calls a handler; one that throws ends the watch with Internal, as in the other backends. */
  private deliver(call: () => void): void {
    if (this.cancelled) return;
    try {
      call();
    } catch (err) {
      this.fail(new StorageError('Internal', `watch handler failed: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  private reconnect(err: Error): void {
    if (this.cancelled) return;
    this.dropStream();
    if (this.backend.isClosed()) {
      this.fail(new StorageError('Unavailable', 'storage backend is closed'));
      return;
    }
    const now = Date.now();
    this.failingSince ??= now;
    if (now - this.failingSince > this.backend.watchRetryWindowMs) {
      this.fail(toStorageError(err));
      return;
    }
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, 1000);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.start(true);
    }, delay);
  }

  private dropStream(): void {
    const stream = this.stream;
    this.stream = null;
    // Cancelled, it calls none of its handlers again.
    stream?.cancel();
  }

  /** Ends the watch with err: the last handler call. */
  fail(err: StorageError): void {
    if (this.cancelled) return;
    this.cancel();
    this.handlers.onError(err);
  }

  requestProgress(): void {
    this.stream?.write({ progress_request: {} });
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.dropStream();
    this.backend.forgetWatch(this);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
