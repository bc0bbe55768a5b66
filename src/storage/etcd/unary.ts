// Unary gRPC calls to one etcd member over node:http2: the KV, Lease and
// Maintenance calls of the backend (Range, Txn, DeleteRange, Compact,
// LeaseGrant, Status). Watch streams stay on @grpc/grpc-js (watch.ts).
//
// Why not @grpc/grpc-js for these: a unary call there goes through a resolving
// call, a load-balancing call, a subchannel call, filters, a metadata copy,
// status objects and several promise hops; the wire exchange is one HTTP/2
// stream with one framed message each way. Measured on etcd 3.5 from Node
// (bench/etcd-client.ts: concurrency 32, the same protobufjs messages on both
// sides; a shared, loaded 2-core machine, medians of 4 rounds): a create (a
// txn with a 1 KiB value) took 223 µs of the client's CPU with grpc-js and
// 108 µs here (1,073 vs 1,767 calls/s); a get 193 vs 101 µs (1,363 vs 2,702/s).
// The library, not etcd, was the limit: the etcd client was about 40 % of
// apiary's CPU per create on etcd.
//
// What it keeps of gRPC's behaviour, as the backend relies on it (errors.ts):
// - failures are { code, details } with gRPC's status codes: grpc-status and
//   grpc-message from the trailers (or a trailers-only answer), UNAVAILABLE
//   "No connection established: …" when no connection could be made (nothing
//   was sent: a write may be retried), UNAVAILABLE "Connection dropped" when
//   the connection broke under a sent request (a write's fate is unknown),
//   DEADLINE_EXCEEDED at the call's deadline (which etcd also gets as
//   grpc-timeout);
// - one HTTP/2 connection per member, reconnected on the next call after it
//   closed or failed; a keepalive ping every 30 s that must be answered within
//   10 s, else the connection is dropped (a silently dead peer);
// - no message size limit (etcd's own request limit applies).

import * as http2 from 'node:http2';
import type { Method } from './protocol.js';

// gRPC status codes (google.rpc.Code).
export const CODE_UNKNOWN = 2;
export const CODE_DEADLINE_EXCEEDED = 4;
export const CODE_INTERNAL = 13;
export const CODE_UNAVAILABLE = 14;
const CODE_UNIMPLEMENTED = 12;
const CODE_UNAUTHENTICATED = 16;
const CODE_PERMISSION_DENIED = 7;

const KEEPALIVE_MS = 30_000;
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

export class UnaryChannel {
  private session: http2.ClientHttp2Session | undefined;
  private connecting: Promise<http2.ClientHttp2Session> | undefined;
  private keepalive: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly origin: string;

  /** endpoint: http://host:port, or https:// (TLS with the system roots). */
  constructor(endpoint: string) {
    const url = new URL(endpoint.includes('://') ? endpoint : `http://${endpoint}`);
    this.origin = `${url.protocol}//${url.host}`;
  }

  call(method: Method, request: object, deadline: number): Promise<unknown> {
    const message = method.serialize(request);
    const frame = Buffer.allocUnsafe(5 + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    const session = this.session;
    if (session !== undefined && !session.closed && !session.destroyed) return this.send(session, method, frame, deadline);
    return this.connect(deadline).then((s) => this.send(s, method, frame, deadline));
  }

  close(): void {
    this.closed = true;
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.session?.close();
    this.session = undefined;
  }

  private connect(deadline: number): Promise<http2.ClientHttp2Session> {
    if (this.closed) return Promise.reject(new UnaryCallError(CODE_UNAVAILABLE, 'No connection established: channel closed'));
    this.connecting ??= new Promise<http2.ClientHttp2Session>((resolve, reject) => {
      const session = http2.connect(this.origin, { settings: { enablePush: false, initialWindowSize: WINDOW } });
      const fail = (err: Error): void => {
        this.connecting = undefined;
        session.destroy();
        reject(new UnaryCallError(CODE_UNAVAILABLE, `No connection established: ${err.message}`));
      };
      session.once('error', fail);
      session.once('connect', () => {
        session.off('error', fail);
        session.setLocalWindowSize(WINDOW);
        this.adopt(session);
        this.connecting = undefined;
        resolve(session);
      });
    });
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
  private adopt(session: http2.ClientHttp2Session): void {
    if (this.closed) {
      session.close();
      return;
    }
    this.session = session;
    const forget = (): void => {
      if (this.session === session) {
        this.session = undefined;
        if (this.keepalive !== undefined) clearInterval(this.keepalive);
        this.keepalive = undefined;
      }
    };
    session.on('error', () => {
      forget();
      session.destroy();
    });
    session.on('goaway', forget);
    session.on('close', forget);
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.keepalive = setInterval(() => {
      if (session.destroyed) return;
      const timer = setTimeout(() => session.destroy(), KEEPALIVE_TIMEOUT_MS);
      timer.unref();
      const sent = session.ping((err) => {
        clearTimeout(timer);
        if (err) session.destroy();
      });
      if (!sent) clearTimeout(timer);
    }, KEEPALIVE_MS);
    this.keepalive.unref();
  }

  private send(session: http2.ClientHttp2Session, method: Method, frame: Buffer, deadline: number): Promise<unknown> {
    const timeoutMs = deadline - Date.now();
    if (timeoutMs <= 0) return Promise.reject(new UnaryCallError(CODE_DEADLINE_EXCEEDED, 'Deadline exceeded'));
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request({
        ':method': 'POST',
        ':path': method.path,
        'content-type': 'application/grpc',
        te: 'trailers',
        'grpc-timeout': `${Math.ceil(timeoutMs)}m`,
      });
    } catch (err) {
      // The session closed under us: nothing was sent.
      return Promise.reject(new UnaryCallError(CODE_UNAVAILABLE, `No connection established: ${(err as Error).message}`));
    }
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let httpStatus = 0;
      let grpcStatus: number | undefined;
      let grpcMessage = '';
      let settled = false;
      const settle = (err: UnaryCallError | undefined, value?: unknown): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err !== undefined) reject(err);
        else resolve(value);
      };
      const timer = setTimeout(() => {
        settle(new UnaryCallError(CODE_DEADLINE_EXCEEDED, 'Deadline exceeded'));
        stream.close(http2.constants.NGHTTP2_CANCEL);
      }, timeoutMs);
      const readStatus = (headers: http2.IncomingHttpHeaders): void => {
        const s = headers['grpc-status'];
        if (s !== undefined) grpcStatus = Number(s);
        const m = headers['grpc-message'];
        if (typeof m === 'string') grpcMessage = percentDecoded(m);
      };
      stream.on('response', (headers) => {
        httpStatus = Number(headers[':status'] ?? 0);
        readStatus(headers);
      });
      stream.on('trailers', readStatus);
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (err: Error) => {
        const refused = (err as { code?: string }).code === 'ERR_HTTP2_STREAM_ERROR' && /REFUSED_STREAM/.test(err.message);
        settle(new UnaryCallError(CODE_UNAVAILABLE, refused ? `No connection established: ${err.message}` : `Connection dropped: ${err.message}`));
      });
      stream.on('close', () => {
        if (settled) return;
        if (httpStatus !== 200 && httpStatus !== 0 && grpcStatus === undefined) {
          settle(new UnaryCallError(codeForHttpStatus(httpStatus), `Received HTTP status code ${httpStatus}`));
          return;
        }
        if (grpcStatus === undefined) {
          settle(new UnaryCallError(CODE_UNAVAILABLE, 'Connection dropped'));
          return;
        }
        if (grpcStatus !== 0) {
          settle(new UnaryCallError(grpcStatus, grpcMessage));
          return;
        }
        const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        if (body.length < 5 || body[0] !== 0) {
          settle(new UnaryCallError(CODE_INTERNAL, body.length < 5 ? 'No message received' : 'Compressed messages are not accepted'));
          return;
        }
        try {
          settle(undefined, method.deserialize(body.subarray(5, 5 + body.readUInt32BE(1))));
        } catch (err) {
          settle(new UnaryCallError(CODE_INTERNAL, `Response message parsing error: ${(err as Error).message}`));
        }
      });
      stream.end(frame);
    });
  }
}
