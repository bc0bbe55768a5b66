// A small HTTP/2 client connection (RFC 9113) for unary gRPC calls to etcd:
// one socket, requests as one HEADERS frame and the message in DATA frames,
// answers collected whole. It is what ./unary.ts runs on instead of
// node:http2, whose per-request cost (an Http2Stream duplex with its events,
// an async resource, header objects built and mapped both ways) was most of
// the etcd client thread's CPU per create (bench/etcd-client.ts has the
// figures).
//
// What it does of the protocol:
// - the preface and SETTINGS (no push; a 16 MiB stream window) and a
//   connection window raised to 16 MiB; received DATA is acknowledged with
//   WINDOW_UPDATE once half a window has been read, on the connection and on
//   each stream;
// - outgoing DATA within the peer's windows and frame size (a large value
//   waits for WINDOW_UPDATE);
// - HPACK decoding with the dynamic table (./hpack.ts); requests are encoded
//   as literals that never index;
// - SETTINGS, PING (answered; ours acknowledged), RST_STREAM, GOAWAY (streams
//   above its last stream id were never processed: they fail as refused), and
//   PUSH_PROMISE or a malformed frame as a connection error.
// Not done: the peer's SETTINGS_MAX_CONCURRENT_STREAMS is not enforced (etcd
// allows 2^32 - 1 by default; a stream it refuses fails as refused, which a
// caller may retry), nor priorities, server push or request trailers.
// Everything a call needs to know comes back through its H2StreamHandler,
// exactly once: onEnd with the response, or onError.

import * as net from 'node:net';
import * as tls from 'node:tls';
import { HpackDecoder, HpackError, type HeaderList } from './hpack.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const SETTINGS = 0x4;
const PUSH_PROMISE = 0x5;
const PING = 0x6;
const GOAWAY = 0x7;
const WINDOW_UPDATE = 0x8;
const CONTINUATION = 0x9;

const FLAG_END_STREAM = 0x1;
const FLAG_ACK = 0x1;
const FLAG_END_HEADERS = 0x4;
const FLAG_PADDED = 0x8;
const FLAG_PRIORITY = 0x20;

const SETTINGS_ENABLE_PUSH = 0x2;
const SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5;

const ERROR_NAMES = [
  'NO_ERROR',
  'PROTOCOL_ERROR',
  'INTERNAL_ERROR',
  'FLOW_CONTROL_ERROR',
  'SETTINGS_TIMEOUT',
  'STREAM_CLOSED',
  'FRAME_SIZE_ERROR',
  'REFUSED_STREAM',
  'CANCEL',
  'COMPRESSION_ERROR',
  'CONNECT_ERROR',
  'ENHANCE_YOUR_CALM',
  'INADEQUATE_SECURITY',
  'HTTP_1_1_REQUIRED',
];
const CODE_PROTOCOL_ERROR = 1;
const CODE_REFUSED_STREAM = 7;
const CODE_CANCEL = 8;
const CODE_COMPRESSION_ERROR = 9;

const DEFAULT_WINDOW = 65_535;
const MAX_STREAM_ID = 2 ** 31 - 1;

/** How one request's answer (or failure) is handed back. */
export interface H2StreamHandler {
  /** The stream ended: its first header block, the trailers (undefined for a trailers-only answer) and the DATA. */
  onEnd(headers: HeaderList, trailers: HeaderList | undefined, body: Buffer[]): void;
  /**
   * The stream failed. refused: the peer provably did not process it (RST_STREAM
   * REFUSED_STREAM, or above a GOAWAY's last stream id); otherwise its fate is unknown.
   */
  onError(refused: boolean, message: string): void;
  /**
   * A streaming answer: each DATA frame's payload as it arrives (a view of
   * the socket's read, to be used at once); onEnd then gets no body. Without
   * it the DATA are collected for onEnd.
   */
  onData?(chunk: Buffer): void;
}

interface Stream {
  readonly id: number;
  readonly handler: H2StreamHandler;
  headers: HeaderList | undefined;
  trailers: HeaderList | undefined;
  readonly body: Buffer[];
  /** What is still to be sent of the request's DATA. */
  pending: Buffer | undefined;
  /** The request ends with its DATA so far (END_STREAM), or stays open for write(). */
  readonly endAfter: boolean;
  sendWindow: number;
  /** DATA bytes received and not yet acknowledged with a WINDOW_UPDATE. */
  unacked: number;
}

function frameHeader(length: number, type: number, flags: number, stream: number): Buffer {
  const b = Buffer.allocUnsafe(9);
  b[0] = (length >>> 16) & 0xff;
  b[1] = (length >>> 8) & 0xff;
  b[2] = length & 0xff;
  b[3] = type;
  b[4] = flags;
  b.writeUInt32BE(stream, 5);
  return b;
}

function windowUpdate(stream: number, increment: number): Buffer {
  const b = frameHeader(4, WINDOW_UPDATE, 0, stream);
  return Buffer.concat([b, uint32(increment)]);
}

function uint32(value: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeUInt32BE(value >>> 0, 0);
  return b;
}

export interface H2ConnectOptions {
  /** http: or https: (TLS with ALPN h2 and the default roots). */
  protocol: string;
  hostname: string;
  port: number;
  /** The stream and connection window this side grants (default 16 MiB). */
  window?: number;
}

export class H2Session {
  /** No new streams: closing, closed, after a GOAWAY, or out of stream ids. */
  closed = false;
  /** The socket is gone. */
  destroyed = false;
  private readonly streams = new Map<number, Stream>();
  private nextStreamId = 1;
  private readonly decoder = new HpackDecoder();
  private readonly window: number;
  private connUnacked = 0;
  private connSendWindow = DEFAULT_WINDOW;
  private peerInitialWindow = DEFAULT_WINDOW;
  private peerMaxFrame = 16_384;
  /** Streams with DATA held back by flow control, in order. */
  private blocked: Stream[] = [];
  private out: Buffer[] = [];
  private flushScheduled = false;
  private input: Buffer | undefined;
  /** A header block being continued: its stream, whether it ends the stream, the parts so far. */
  private continuing: { stream: number; endStream: boolean; parts: Buffer[] } | undefined;
  private readonly pings: Array<(err?: Error) => void> = [];
  private readonly closeListeners: Array<() => void> = [];

  private constructor(private readonly socket: net.Socket, window: number) {
    this.window = window;
  }

  /** Opens a connection; resolves once the socket (and TLS) is up and the preface is written. */
  static connect(options: H2ConnectOptions): Promise<H2Session> {
    return new Promise((resolve, reject) => {
      const secure = options.protocol === 'https:';
      const socket = secure
        ? tls.connect({
            host: options.hostname,
            port: options.port,
            ALPNProtocols: ['h2'],
            ...(net.isIP(options.hostname) === 0 ? { servername: options.hostname } : {}),
          })
        : net.connect({ host: options.hostname, port: options.port });
      const fail = (err: Error): void => {
        socket.destroy();
        reject(err);
      };
      socket.once('error', fail);
      socket.once(secure ? 'secureConnect' : 'connect', () => {
        socket.off('error', fail);
        socket.setNoDelay(true);
        const session = new H2Session(socket, options.window ?? 16 * 1024 * 1024);
        session.start();
        resolve(session);
      });
    });
  }

  private start(): void {
    const socket = this.socket;
    const settings = Buffer.alloc(12);
    settings.writeUInt16BE(SETTINGS_ENABLE_PUSH, 0);
    settings.writeUInt32BE(0, 2);
    settings.writeUInt16BE(SETTINGS_INITIAL_WINDOW_SIZE, 6);
    settings.writeUInt32BE(this.window, 8);
    this.out.push(PREFACE, frameHeader(settings.length, SETTINGS, 0, 0), settings);
    if (this.window > DEFAULT_WINDOW) this.out.push(windowUpdate(0, this.window - DEFAULT_WINDOW));
    this.flush();
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', (err) => this.destroy(err.message));
    socket.on('close', () => this.destroy('socket closed'));
  }

  /** Called once the session is closed or destroyed, whichever comes first. */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /**
   * Opens a stream: the header block (./hpack.ts encoders) and the whole
   * request body. Returns the stream id, or undefined when the session takes
   * no new streams (nothing was sent).
   */
  request(headerBlock: Buffer, body: Buffer, handler: H2StreamHandler): number | undefined {
    return this.open(headerBlock, body, handler, true);
  }

  /**
   * Opens a stream that stays open for write(): a bidirectional call, which
   * ends when the peer ends it, on cancel(), or with the connection.
   */
  openStream(headerBlock: Buffer, handler: H2StreamHandler): number | undefined {
    return this.open(headerBlock, Buffer.alloc(0), handler, false);
  }

  /** Sends more of an open stream's request; false when the stream is gone. */
  write(id: number, data: Buffer): boolean {
    const stream = this.streams.get(id);
    if (stream === undefined || stream.endAfter || this.destroyed) return false;
    const wasBlocked = stream.pending !== undefined;
    stream.pending = wasBlocked ? Buffer.concat([stream.pending!, data]) : data;
    if (!wasBlocked && !this.sendData(stream)) this.blocked.push(stream);
    return true;
  }

  private open(headerBlock: Buffer, body: Buffer, handler: H2StreamHandler, endAfter: boolean): number | undefined {
    if (this.closed || this.destroyed) return undefined;
    if (this.nextStreamId > MAX_STREAM_ID) {
      this.goAway();
      return undefined;
    }
    const id = this.nextStreamId;
    this.nextStreamId += 2;
    const stream: Stream = {
      id,
      handler,
      headers: undefined,
      trailers: undefined,
      body: [],
      pending: body,
      endAfter,
      sendWindow: this.peerInitialWindow,
      unacked: 0,
    };
    this.streams.set(id, stream);
    this.queue(frameHeader(headerBlock.length, HEADERS, FLAG_END_HEADERS | (body.length === 0 && endAfter ? FLAG_END_STREAM : 0), id), headerBlock);
    if (body.length === 0) stream.pending = undefined;
    else if (!this.sendData(stream)) this.blocked.push(stream);
    return id;
  }

  /** Gives up on a stream (its handler hears nothing more) and tells the peer. */
  cancel(id: number): void {
    const stream = this.streams.get(id);
    if (stream === undefined) return;
    this.forget(stream);
    if (!this.destroyed) this.queue(frameHeader(4, RST_STREAM, 0, id), uint32(CODE_CANCEL));
  }

  /** Sends a PING; the callback hears its acknowledgement, or an error if the session ends first. */
  ping(callback: (err?: Error) => void): boolean {
    if (this.destroyed) return false;
    this.pings.push(callback);
    this.queue(frameHeader(8, PING, 0, 0), Buffer.alloc(8));
    return true;
  }

  /** Takes no new streams and ends the connection once the open ones have ended. */
  close(): void {
    if (this.destroyed) return;
    this.markClosed();
    if (this.streams.size === 0) this.destroy('session closed');
  }

  /** Ends the connection now: every open stream fails (unknown fate). */
  destroy(reason: string): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.markClosed();
    this.flush();
    this.socket.destroy();
    const streams = [...this.streams.values()];
    this.streams.clear();
    this.blocked = [];
    for (const s of streams) s.handler.onError(false, reason);
    for (const ping of this.pings.splice(0)) ping(new Error(reason));
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.closeListeners.splice(0)) listener();
  }

  private goAway(): void {
    this.markClosed();
    if (this.streams.size === 0) this.destroy('session closed');
  }

  private forget(stream: Stream): void {
    this.streams.delete(stream.id);
    if (stream.pending !== undefined) {
      stream.pending = undefined;
      this.blocked = this.blocked.filter((s) => s !== stream);
    }
    if (this.closed && this.streams.size === 0) queueMicrotask(() => this.destroy('session closed'));
  }

  // -- writing -------------------------------------------------------------------

  private queue(...buffers: Buffer[]): void {
    for (const b of buffers) this.out.push(b);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // What one turn of the event loop sends goes out in one write, at the
    // turn's end: a write to etcd's socket costs more than the frames in it
    // (bench/etcd-client.ts: 5-15 % less CPU per call than a write per microtask).
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.out.length === 0) return;
    const out = this.out;
    this.out = [];
    if (this.destroyed && !this.socket.writable) return;
    this.socket.write(out.length === 1 ? out[0]! : Buffer.concat(out));
  }

  /** Sends what the windows allow of a stream's body; the rest waits for WINDOW_UPDATE. */
  private sendData(stream: Stream): boolean {
    let pending = stream.pending;
    while (pending !== undefined) {
      const room = Math.min(stream.sendWindow, this.connSendWindow, this.peerMaxFrame);
      if (room <= 0) return false;
      const n = Math.min(room, pending.length);
      const last = n === pending.length;
      this.queue(frameHeader(n, DATA, last && stream.endAfter ? FLAG_END_STREAM : 0, stream.id), last ? pending : pending.subarray(0, n));
      stream.sendWindow -= n;
      this.connSendWindow -= n;
      pending = last ? undefined : pending.subarray(n);
      stream.pending = pending;
    }
    return true;
  }

  private sendBlocked(): void {
    while (this.blocked.length > 0) {
      const stream = this.blocked[0]!;
      if (!this.sendData(stream)) return;
      this.blocked.shift();
    }
  }

  // -- reading -------------------------------------------------------------------

  private read(chunk: Buffer): void {
    let buf = this.input === undefined ? chunk : Buffer.concat([this.input, chunk]);
    this.input = undefined;
    let pos = 0;
    try {
      while (buf.length - pos >= 9) {
        const length = (buf[pos]! << 16) | (buf[pos + 1]! << 8) | buf[pos + 2]!;
        if (buf.length - pos < 9 + length) break;
        const type = buf[pos + 3]!;
        const flags = buf[pos + 4]!;
        const id = buf.readUInt32BE(pos + 5) & 0x7fffffff;
        const payload = buf.subarray(pos + 9, pos + 9 + length);
        pos += 9 + length;
        this.frame(type, flags, id, payload);
        if (this.destroyed) return;
      }
    } catch (err) {
      this.connectionError(err instanceof HpackError ? CODE_COMPRESSION_ERROR : CODE_PROTOCOL_ERROR, (err as Error).message);
      return;
    }
    if (pos < buf.length) this.input = pos === 0 ? buf : buf.subarray(pos);
    // Keep the last frame's bytes only: a copy, so the chunk it came in can go.
    if (this.input !== undefined && this.input.length < 9 + 16_384 && pos > 0) this.input = Buffer.from(this.input);
  }

  private connectionError(code: number, message: string): void {
    if (this.destroyed) return;
    // Last stream id 0: this client processes no streams the server opens.
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(code, 4);
    this.out.push(frameHeader(8, GOAWAY, 0, 0), payload);
    this.destroy(`HTTP/2 ${ERROR_NAMES[code] ?? code}: ${message}`);
  }

  private frame(type: number, flags: number, id: number, payload: Buffer): void {
    if (this.continuing !== undefined && type !== CONTINUATION) throw new Error('expected CONTINUATION');
    switch (type) {
      case DATA:
        this.onData(flags, id, payload);
        return;
      case HEADERS: {
        let start = 0;
        let end = payload.length;
        if (flags & FLAG_PADDED) {
          end -= payload[0]!;
          start = 1;
        }
        if (flags & FLAG_PRIORITY) start += 5;
        if (start > end) throw new Error('HEADERS padding exceeds the frame');
        const fragment = payload.subarray(start, end);
        const endStream = (flags & FLAG_END_STREAM) !== 0;
        if (flags & FLAG_END_HEADERS) this.onHeaders(id, fragment, endStream);
        else this.continuing = { stream: id, endStream, parts: [Buffer.from(fragment)] };
        return;
      }
      case CONTINUATION: {
        const c = this.continuing;
        if (c === undefined || c.stream !== id) throw new Error('unexpected CONTINUATION');
        c.parts.push(Buffer.from(payload));
        if (flags & FLAG_END_HEADERS) {
          this.continuing = undefined;
          this.onHeaders(id, Buffer.concat(c.parts), c.endStream);
        }
        return;
      }
      case RST_STREAM: {
        const stream = this.streams.get(id);
        if (stream === undefined) return;
        const code = payload.readUInt32BE(0);
        this.forget(stream);
        stream.handler.onError(code === CODE_REFUSED_STREAM, `Stream closed with error code ${ERROR_NAMES[code] ?? code}`);
        return;
      }
      case SETTINGS:
        if (flags & FLAG_ACK) return;
        this.onSettings(payload);
        return;
      case PING:
        if (flags & FLAG_ACK) this.pings.shift()?.();
        else this.queue(frameHeader(8, PING, FLAG_ACK, 0), Buffer.from(payload));
        return;
      case GOAWAY:
        this.onGoaway(payload.readUInt32BE(0) & 0x7fffffff, payload.readUInt32BE(4));
        return;
      case WINDOW_UPDATE: {
        const increment = payload.readUInt32BE(0) & 0x7fffffff;
        if (id === 0) this.connSendWindow += increment;
        else {
          const stream = this.streams.get(id);
          if (stream === undefined) return;
          stream.sendWindow += increment;
        }
        this.sendBlocked();
        return;
      }
      case PUSH_PROMISE:
        throw new Error('PUSH_PROMISE although push is disabled');
      default:
        return; // PRIORITY and unknown frame types are ignored
    }
  }

  private onData(flags: number, id: number, payload: Buffer): void {
    // Flow control counts the whole payload, padding included.
    this.connUnacked += payload.length;
    if (this.connUnacked >= this.window / 2) {
      this.queue(windowUpdate(0, this.connUnacked));
      this.connUnacked = 0;
    }
    const stream = this.streams.get(id);
    if (stream === undefined) return; // cancelled or finished: the connection window is what counts
    let data = payload;
    if (flags & FLAG_PADDED) {
      const pad = payload[0]!;
      if (pad >= payload.length) throw new Error('DATA padding exceeds the frame');
      data = payload.subarray(1, payload.length - pad);
    }
    if (data.length > 0) {
      if (stream.handler.onData !== undefined) stream.handler.onData(data);
      else stream.body.push(data);
      // The handler may have cancelled the stream, or the session gone.
      if (this.streams.get(id) !== stream) return;
    }
    if (flags & FLAG_END_STREAM) {
      this.end(stream);
      return;
    }
    stream.unacked += payload.length;
    if (stream.unacked >= this.window / 2) {
      this.queue(windowUpdate(id, stream.unacked));
      stream.unacked = 0;
    }
  }

  private onHeaders(id: number, block: Buffer, endStream: boolean): void {
    // Every block is decoded, wanted or not: the dynamic table depends on it.
    const fields = this.decoder.decode(block);
    const stream = this.streams.get(id);
    if (stream === undefined) return;
    if (stream.headers === undefined) stream.headers = fields;
    else stream.trailers = fields;
    if (endStream) this.end(stream);
  }

  private end(stream: Stream): void {
    this.forget(stream);
    // The DATA are views of the socket's reads: the handler decodes them at once and keeps none.
    stream.handler.onEnd(stream.headers ?? [], stream.trailers, stream.body);
  }

  private onSettings(payload: Buffer): void {
    if (payload.length % 6 !== 0) throw new Error('SETTINGS length is not a multiple of 6');
    for (let i = 0; i < payload.length; i += 6) {
      const id = payload.readUInt16BE(i);
      const value = payload.readUInt32BE(i + 2);
      if (id === SETTINGS_INITIAL_WINDOW_SIZE) {
        const delta = value - this.peerInitialWindow;
        this.peerInitialWindow = value;
        for (const stream of this.streams.values()) stream.sendWindow += delta;
      } else if (id === SETTINGS_MAX_FRAME_SIZE) {
        this.peerMaxFrame = value;
      }
      // HEADER_TABLE_SIZE limits an encoder that indexes; ours never does.
    }
    this.queue(frameHeader(0, SETTINGS, FLAG_ACK, 0));
    this.sendBlocked();
  }

  private onGoaway(lastStreamId: number, code: number): void {
    this.markClosed();
    for (const stream of [...this.streams.values()]) {
      if (stream.id <= lastStreamId) continue;
      this.forget(stream);
      stream.handler.onError(true, `Stream refused: GOAWAY (${ERROR_NAMES[code] ?? code}) before it was processed`);
    }
    if (this.streams.size === 0) this.destroy('session closed after GOAWAY');
  }
}
