// gRPC calls to one etcd member over HTTP/2: the unary KV, Lease and
// Maintenance calls of the backend (Range, Txn, DeleteRange, Compact,
// LeaseGrant, Status), and bidirectional ones (ClientStream: the Watch
// streams of watch.ts, on a connection of their own).
//
// Why not @grpc/grpc-js for these: a unary call there goes through a resolving
// call, a load-balancing call, a subchannel call, filters, a metadata copy,
// status objects and several promise hops; the wire exchange is one HTTP/2
// stream with one framed message each way. Measured on etcd 3.5 from Node
// (bench/etcd-client.ts: concurrency 32, the same protobufjs messages on both
// sides; a shared, loaded 2-core machine, medians of 4 rounds): a create (a
// txn with a 1 KiB value) took 223 µs of the client's CPU with grpc-js and
// 108 µs over node:http2 (1,073 vs 1,767 calls/s); a get 193 vs 101 µs. The
// library, not etcd, was the limit: the etcd client was about 40 % of
// apiary's CPU per create on etcd. node:http2 itself was then most of what
// was left (an Http2Stream duplex per call, its events and async resource,
// header objects mapped both ways), so the calls run on a small HTTP/2
// connection of our own (h2.ts), with the hot messages encoded by hand
// (wire.ts). The same benchmark, two runs at load 11-14: a create 26-37 µs
// of the client's CPU (4,045-8,470 calls/s), against 88-96 µs for a bare
// gRPC loop over node:http2 and 183-185 µs with grpc-js; a get 16-17 µs
// against 63-68 and 160-174 µs.
//
// What it keeps of gRPC's behaviour, as the backend relies on it (errors.ts):
// - failures are { code, details } with gRPC's status codes: grpc-status and
//   grpc-message from the trailers (or a trailers-only answer), UNAVAILABLE
//   "No connection established: …" when no connection could be made or the
//   server refused the stream unprocessed (nothing was applied: a write may be
//   retried), UNAVAILABLE "Connection dropped" when the connection broke
//   under a sent request (a write's fate is unknown), DEADLINE_EXCEEDED at
//   the call's deadline (which etcd also gets as grpc-timeout);
// - one HTTP/2 connection per member, reconnected on the next call after it
//   closed or failed; a keepalive ping every 30 s that must be answered within
//   10 s, else the connection is dropped (a silently dead peer);
// - no message size limit (etcd's own request limit applies).

import type { Method } from './protocol.js';
import { H2Session, type H2StreamHandler } from './h2.js';
import {
  STATIC_AUTHORITY,
  STATIC_CONTENT_TYPE,
  STATIC_METHOD_POST,
  STATIC_PATH,
  STATIC_SCHEME_HTTP,
  STATIC_SCHEME_HTTPS,
  encodeIndexed,
  encodeIndexedName,
  encodeLiteral,
  type HeaderList,
} from './hpack.js';

// gRPC status codes (google.rpc.Code).
export const CODE_UNKNOWN = 2;
export const CODE_DEADLINE_EXCEEDED = 4;
export const CODE_INTERNAL = 13;
export const CODE_UNAVAILABLE = 14;
const CODE_UNIMPLEMENTED = 12;
const CODE_UNAUTHENTICATED = 16;
const CODE_PERMISSION_DENIED = 7;

const KEEPALIVE_MS = 30_000;
/** How long a bidirectional call waits for its connection. */
const STREAM_CONNECT_MS = 5_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;
/** Large range answers (lists) should not stall on the default 64 KiB windows. */
const WINDOW = 16 * 1024 * 1024;

/** A failed call, shaped as grpc-js's ServiceError where errors.ts reads it. */
export class UnaryCallError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`${code} ${details}`);
    this.name = 'UnaryCallError';
  }
}

/** gRPC's mapping of an HTTP status that is not 200 (doc/http-grpc-status-mapping.md). */
function codeForHttpStatus(status: number): number {
  switch (status) {
    case 400:
      return CODE_INTERNAL;
    case 401:
      return CODE_UNAUTHENTICATED;
    case 403:
      return CODE_PERMISSION_DENIED;
    case 404:
      return CODE_UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return CODE_UNAVAILABLE;
    default:
      return CODE_UNKNOWN;
  }
}

function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function field(list: HeaderList | undefined, name: string): string | undefined {
  if (list === undefined) return undefined;
  for (const [n, v] of list) if (n === name) return v;
  return undefined;
}

/** grpc-timeout: at most 8 digits, in milliseconds while they fit. */
function grpcTimeout(ms: number): string {
  const whole = Math.ceil(ms);
  return whole < 100_000_000 ? `${whole}m` : `${Math.min(Math.ceil(whole / 1000), 99_999_999)}S`;
}

/** A call's failure as its answer's status tells it, or undefined for OK. */
function statusError(headers: HeaderList, trailers: HeaderList | undefined): UnaryCallError | undefined {
  const httpStatus = Number(field(headers, ':status') ?? 0);
  // A trailers-only answer carries the status in its one header block.
  const status = trailers ?? headers;
  const grpcStatusText = field(status, 'grpc-status');
  if (httpStatus !== 200 && httpStatus !== 0 && grpcStatusText === undefined) {
    return new UnaryCallError(codeForHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`);
  }
  if (grpcStatusText === undefined) return new UnaryCallError(CODE_UNAVAILABLE, 'Connection dropped');
  const grpcStatus = Number(grpcStatusText);
  if (grpcStatus !== 0) return new UnaryCallError(grpcStatus, percentDecoded(field(status, 'grpc-message') ?? ''));
  return undefined;
}

/** What a bidirectional call tells its user: each answer, then its end or failure (one of the two, once). */
export interface StreamHandlers {
  onMessage(value: unknown): void;
  /** The server ended the call with OK. */
  onEnd(): void;
  onError(err: UnaryCallError): void;
}

/** A bidirectional call (etcd's Watch) on a channel's connection. */
export class ClientStream implements H2StreamHandler {
  private session: H2Session | undefined;
  private id = 0;
  /** Messages written before the stream was open. */
  private queued: Buffer[] = [];
  private done = false;
  /** Bytes of a message not yet complete. */
  private partial: Buffer | undefined;

  constructor(
    private readonly method: Method,
    private readonly handlers: StreamHandlers,
  ) {}

  /** Sends a request message (method.frame encodes it). */
  write(value: object): void {
    if (this.done) return;
    const frame = this.method.frame(value);
    if (this.session === undefined) this.queued.push(frame);
    else this.session.write(this.id, frame);
  }

  /** Ends the call from this side; its handlers hear nothing more. */
  cancel(): void {
    if (this.done) return;
    this.done = true;
    this.session?.cancel(this.id);
  }

  /** @internal The stream is open on `session` as `id`. */
  attach(session: H2Session, id: number): void {
    this.session = session;
    this.id = id;
    for (const frame of this.queued.splice(0)) session.write(id, frame);
  }

  /** @internal */
  get cancelled(): boolean {
    return this.done;
  }

  fail(err: UnaryCallError): void {
    if (this.done) return;
    this.done = true;
    if (this.session !== undefined) this.session.cancel(this.id);
    this.handlers.onError(err);
  }

  onData(chunk: Buffer): void {
    let data = this.partial === undefined ? chunk : Buffer.concat([this.partial, chunk]);
    this.partial = undefined;
    while (!this.done && data.length >= 5) {
      if (data[0] !== 0) {
        this.fail(new UnaryCallError(CODE_INTERNAL, 'Compressed messages are not accepted'));
        return;
      }
      const length = data.readUInt32BE(1);
      if (data.length < 5 + length) break;
      let value: unknown;
      try {
        value = this.method.deserialize(data.subarray(5, 5 + length));
      } catch (err) {
        this.fail(new UnaryCallError(CODE_INTERNAL, `Response message parsing error: ${(err as Error).message}`));
        return;
      }
      data = data.subarray(5 + length);
      this.handlers.onMessage(value);
    }
    // What is left is a view of the socket's read: keep a copy.
    if (!this.done && data.length > 0) this.partial = Buffer.from(data);
  }

  onEnd(headers: HeaderList, trailers: HeaderList | undefined): void {
    if (this.done) return;
    const failed = statusError(headers, trailers) ?? (this.partial === undefined ? undefined : new UnaryCallError(CODE_INTERNAL, 'the stream ended inside a message'));
    this.done = true;
    if (failed !== undefined) this.handlers.onError(failed);
    else this.handlers.onEnd();
  }

  onError(refused: boolean, message: string): void {
    if (this.done) return;
    this.done = true;
    this.handlers.onError(new UnaryCallError(CODE_UNAVAILABLE, refused ? `No connection established: ${message}` : `Connection dropped: ${message}`));
  }
}

/** One call's answer or failure, settled once (by the stream, or by its deadline). */
class UnaryCall implements H2StreamHandler {
  private settled = false;
  timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly method: Method,
    private readonly resolve: (value: unknown) => void,
    private readonly reject: (err: UnaryCallError) => void,
  ) {}

  fail(err: UnaryCallError): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.reject(err);
  }

  onError(refused: boolean, message: string): void {
    this.fail(new UnaryCallError(CODE_UNAVAILABLE, refused ? `No connection established: ${message}` : `Connection dropped: ${message}`));
  }

  onEnd(headers: HeaderList, trailers: HeaderList | undefined, body: Buffer[]): void {
    if (this.settled) return;
    const failed = statusError(headers, trailers);
    if (failed !== undefined) {
      this.fail(failed);
      return;
    }
    const data = body.length === 1 ? body[0]! : Buffer.concat(body);
    if (data.length < 5 || data[0] !== 0) {
      this.fail(new UnaryCallError(CODE_INTERNAL, data.length < 5 ? 'No message received' : 'Compressed messages are not accepted'));
      return;
    }
    let value: unknown;
    try {
      value = this.method.deserialize(data.subarray(5, 5 + data.readUInt32BE(1)));
    } catch (err) {
      this.fail(new UnaryCallError(CODE_INTERNAL, `Response message parsing error: ${(err as Error).message}`));
      return;
    }
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(value);
  }
}

export class UnaryChannel {
  private session: H2Session | undefined;
  private connecting: Promise<H2Session> | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly url: URL;
  /** The header fields every call sends before :path and grpc-timeout. */
  private readonly fixedHeaders: number[];
  /** Each method's :path field, encoded once. */
  private readonly paths = new Map<string, number[]>();

  /** endpoint: http://host:port, or https:// (TLS with the system roots). */
  constructor(endpoint: string) {
    this.url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
    const fixed: number[] = [];
    encodeIndexed(fixed, STATIC_METHOD_POST);
    encodeIndexed(fixed, this.url.protocol === 'https:' ? STATIC_SCHEME_HTTPS : STATIC_SCHEME_HTTP);
    encodeIndexedName(fixed, STATIC_AUTHORITY, this.url.host);
    this.fixedHeaders = fixed;
  }

  /**
   * Opens a bidirectional call; `metadata` are extra header fields. A call
   * made while the connection is being set up waits for it (at most
   * STREAM_CONNECT_MS) and fails as Unavailable if it cannot be made.
   */
  stream(method: Method, metadata: Array<[string, string]>, handlers: StreamHandlers): ClientStream {
    const call = new ClientStream(method, handlers);
    const open = (session: H2Session): void => {
      if (call.cancelled) return;
      const block: number[] = [...this.fixedHeaders];
      encodeIndexedName(block, STATIC_PATH, method.path);
      encodeIndexedName(block, STATIC_CONTENT_TYPE, 'application/grpc');
      encodeLiteral(block, 'te', 'trailers');
      for (const [name, value] of metadata) encodeLiteral(block, name, value);
      const id = session.openStream(Buffer.from(block), call);
      // Its user hears of a failure after stream() has returned, as of any other.
      if (id === undefined) queueMicrotask(() => call.fail(new UnaryCallError(CODE_UNAVAILABLE, 'No connection established: session closed')));
      else call.attach(session, id);
    };
    const session = this.session;
    if (session !== undefined && !session.closed) open(session);
    else this.connect(Date.now() + STREAM_CONNECT_MS).then(open, (err: UnaryCallError) => call.fail(err));
    return call;
  }

  private headerBlock(path: string, timeoutMs: number): Buffer {
    let pathField = this.paths.get(path);
    if (pathField === undefined) {
      pathField = [];
      encodeIndexedName(pathField, STATIC_PATH, path);
      encodeIndexedName(pathField, STATIC_CONTENT_TYPE, 'application/grpc');
      encodeLiteral(pathField, 'te', 'trailers');
      this.paths.set(path, pathField);
    }
    const timeout: number[] = [];
    encodeLiteral(timeout, 'grpc-timeout', grpcTimeout(timeoutMs));
    const block = Buffer.allocUnsafe(this.fixedHeaders.length + pathField.length + timeout.length);
    let pos = 0;
    for (const part of [this.fixedHeaders, pathField, timeout]) for (const b of part) block[pos++] = b;
    return block;
  }

  call(method: Method, request: object, deadline: number): Promise<unknown> {
    const frame = method.frame(request);
    const session = this.session;
    if (session !== undefined && !session.closed) return this.send(session, method, frame, deadline);
    return this.connect(deadline).then((s) => this.send(s, method, frame, deadline));
  }

  close(): void {
    this.closed = true;
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.session?.close();
    this.session = undefined;
  }

  private connect(deadline: number): Promise<H2Session> {
    if (this.closed) return Promise.reject(new UnaryCallError(CODE_UNAVAILABLE, 'No connection established: channel closed'));
    this.connecting ??= H2Session.connect({ protocol: this.url.protocol, hostname: this.url.hostname.replace(/^\[|\]$/g, ''), port: Number(this.url.port || (this.url.protocol === 'https:' ? 443 : 80)), window: WINDOW }).then(
      (session) => {
        this.connecting = undefined;
        this.adopt(session);
        return session;
      },
      (err: Error) => {
        this.connecting = undefined;
        throw new UnaryCallError(CODE_UNAVAILABLE, `No connection established: ${err.message}`);
      },
    );
    const timeoutMs = deadline - Date.now();
    if (timeoutMs <= 0) return Promise.reject(new UnaryCallError(CODE_DEADLINE_EXCEEDED, 'Deadline exceeded while connecting'));
    // The connection attempt goes on for later calls; this call gives up at its deadline.
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new UnaryCallError(CODE_DEADLINE_EXCEEDED, 'Deadline exceeded while connecting')), timeoutMs);
      this.connecting!.then(
        (s) => {
          clearTimeout(timer);
          resolve(s);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  /** The connection requests now go to: forgotten when it closes or fails, pinged while it lives. */
  private adopt(session: H2Session): void {
    if (this.closed) {
      session.close();
      return;
    }
    this.session = session;
    session.onClose(() => {
      if (this.session === session) {
        this.session = undefined;
        if (this.keepalive !== undefined) clearInterval(this.keepalive);
        this.keepalive = undefined;
      }
    });
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.keepalive = setInterval(() => {
      if (session.destroyed) return;
      const timer = setTimeout(() => session.destroy('keepalive ping not answered'), KEEPALIVE_TIMEOUT_MS);
      timer.unref();
      const sent = session.ping((err) => {
        clearTimeout(timer);
        if (err) session.destroy(err.message);
      });
      if (!sent) clearTimeout(timer);
    }, KEEPALIVE_MS);
    this.keepalive.unref();
  }

  private send(session: H2Session, method: Method, frame: Buffer, deadline: number): Promise<unknown> {
    const timeoutMs = deadline - Date.now();
    if (timeoutMs <= 0) return Promise.reject(new UnaryCallError(CODE_DEADLINE_EXCEEDED, 'Deadline exceeded'));
    return new Promise((resolve, reject) => {
      const call = new UnaryCall(method, resolve, reject);
      const id = session.request(this.headerBlock(method.path, timeoutMs), frame, call);
      if (id === undefined) {
        // The session closed under us: nothing was sent.
        call.fail(new UnaryCallError(CODE_UNAVAILABLE, 'No connection established: session closed'));
        return;
      }
      call.timer = setTimeout(() => {
        call.fail(new UnaryCallError(CODE_DEADLINE_EXCEEDED, 'Deadline exceeded'));
        session.cancel(id);
      }, timeoutMs);
    });
  }
}
