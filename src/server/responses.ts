// Writing responses. This module (with the watch stream) is the only place a
// status code is written: objects and lists in the negotiated media type, and
// every failure as a metav1.Status body carrying its code.
//
// Errors are negotiated like objects (a YAML client gets a YAML Status); when
// the Accept header itself cannot be satisfied the error is written as
// indented JSON, as upstream's ErrorNegotiated does.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, internalError, isStatusError, type Status } from '../machinery/errors.js';
import { stringifySliced } from '../machinery/json-slices.js';
import { encodeBody } from './codecs.js';
import { BODY_MIN, responseBuffers } from './response-buffers.js';
import { shouldGzip, writeGzipped } from './response-compression.js';
import { ItemRuns, listJSONParts, type ListJSONParts } from './list-json.js';
import { splitTarget } from './request-info.js';
import { DEFAULT_RESTRICTIONS, DOCUMENT_MEDIA_TYPES, type EndpointRestrictions, type NegotiatedOutput, negotiateOutput } from './negotiation.js';

/** Upstream's isPrettyPrint: ?pretty=true, or a human's client (curl, wget, browsers). */
export function wantsPretty(req: IncomingMessage): boolean {
  const url = req.url ?? '/';
  // Parse the query only when there is one (this runs on every response).
  const query = url.includes('?') ? splitTarget(url).query.get('pretty') : null;
  if (query !== null) return ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(query);
  const agent = req.headers['user-agent'] ?? '';
  return agent.startsWith('curl') || agent.startsWith('Wget') || agent.startsWith('Mozilla/5.0');
}

/** Sets the headers every object answer has; returns the body's size in bytes. */
function setCommonHeaders(res: ServerResponse, contentType: string, body: string | Uint8Array | number): number {
  const size = typeof body === 'number' ? body : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', size);
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  return size;
}

/** Writes an object in an already negotiated representation. */
export function writeNegotiated(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  value: unknown,
  output: NegotiatedOutput,
  contentType = output.mediaType,
  /** JSON.stringify(value), when the caller has it (written instead of stringifying, for plain JSON). */
  json?: string,
): void {
  if (res.headersSent) return;
  const pretty = output.pretty || (output.mediaType === 'application/json' && wantsPretty(req));
  if (output.mediaType === 'application/json' && !pretty && isList(value)) {
    const spliced = listJSONParts(value, '\n', itemRuns, allocateBody);
    if (spliced !== undefined) return writeParts(req, res, code, contentType, spliced);
  }
  const encoded = json !== undefined && output.mediaType === 'application/json' && !pretty ? `${json}\n` : encodeBody(value, output.mediaType, pretty);
  // Text goes out as text: node writes the head and a string body in one write (a Buffer body is
  // a second chunk of a writev, after a copy into it), which costs less than Content-Length's scan.
  const size = setCommonHeaders(res, contentType, encoded);
  if (shouldGzip(req, size)) return writeGzipped(req, res, code, [encoded]);
  res.writeHead(code);
  res.end(req.method === 'HEAD' ? undefined : encoded);
}

const isList = (value: unknown): value is { items: unknown[] } => typeof value === 'object' && value !== null && Array.isArray((value as { items?: unknown }).items);

/** Runs of list items' bytes served again unchanged (list-json.ts). */
const itemRuns = new ItemRuns();
const allocateBody = (size: number): Buffer => responseBuffers.acquire(size);

/** A spliced list: its parts in one writev; a pooled buffer goes back once its bytes are in the socket (never while they may still be read). */
function writeParts(req: IncomingMessage, res: ServerResponse, code: number, contentType: string, body: ListJSONParts): void {
  setCommonHeaders(res, contentType, body.size);
  const pooled = body.pooled;
  if (shouldGzip(req, body.size)) {
    return writeGzipped(req, res, code, body.parts, () => {
      if (pooled !== undefined) responseBuffers.release(pooled);
    });
  }
  res.writeHead(code);
  if (req.method === 'HEAD') {
    res.end();
    if (pooled !== undefined) responseBuffers.release(pooled);
    return;
  }
  if (pooled !== undefined && pooled.length >= BODY_MIN) res.once('finish', () => responseBuffers.release(pooled));
  const { parts } = body;
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts[parts.length - 1]);
}

/**
 * writeNegotiated for the answer to a large request: JSON is encoded a slice
 * at a time with `pause` between slices (json-slices.ts), so that encoding a
 * maximal object does not hold the event loop; the bytes are the same.
 */
export async function writeNegotiatedSliced(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  value: unknown,
  output: NegotiatedOutput,
  pause: () => Promise<void>,
): Promise<void> {
  if (res.headersSent) return;
  if (output.mediaType !== 'application/json' || output.pretty || wantsPretty(req)) {
    writeNegotiated(req, res, code, value, output);
    return;
  }
  const body = `${await stringifySliced(value, pause)}\n`;
  if (res.headersSent) return;
  const size = setCommonHeaders(res, output.mediaType, body);
  if (shouldGzip(req, size)) return writeGzipped(req, res, code, [body]);
  res.writeHead(code);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Negotiates from the request's Accept header and writes the object (or the 406). */
export function writeObject(
  req: IncomingMessage,
  res: ServerResponse,
  code: number,
  value: unknown,
  restrictions: EndpointRestrictions = DEFAULT_RESTRICTIONS,
): void {
  let output: NegotiatedOutput;
  try {
    output = negotiateOutput(req.headers.accept, restrictions, DOCUMENT_MEDIA_TYPES);
  } catch (err) {
    writeError(req, res, err);
    return;
  }
  writeNegotiated(req, res, code, value, output);
}

/** Turns anything thrown into the Status a client sees. */
export function toStatusError(err: unknown): StatusError {
  return isStatusError(err) ? err : internalError(err);
}

/** Writes a failure as a Status body with its code. */
export function writeError(req: IncomingMessage, res: ServerResponse, err: unknown): void {
  const status: Status = toStatusError(err).status;
  writeStatus(req, res, status);
}

export function writeStatus(req: IncomingMessage, res: ServerResponse, status: Status): void {
  if (res.headersSent) {
    // A stream already started (watch): the best we can do is end it.
    res.end();
    return;
  }
  // As upstream's ErrorNegotiated: a Status that says when to retry says it in the header too.
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined && retryAfter > 0) res.setHeader('Retry-After', String(retryAfter));
  let output: NegotiatedOutput;
  try {
    output = negotiateOutput(req.headers.accept);
  } catch {
    // As upstream's WriteObjectNegotiated: an error is never hidden behind the
    // negotiation failure; it goes out as indented JSON (WriteRawJSON, no newline).
    const body = JSON.stringify(status, null, 2);
    setCommonHeaders(res, 'application/json', body);
    res.writeHead(status.code ?? 500);
    res.end(req.method === 'HEAD' ? undefined : body);
    return;
  }
  writeNegotiated(req, res, status.code ?? 500, status, output);
}

/** Plain text answers (health checks, Go's default 404 for paths no API serves). */
export function writeText(req: IncomingMessage, res: ServerResponse, code: number, text: string): void {
  if (res.headersSent) return;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.writeHead(code);
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** The Status go-restful's error handler writes when no route produces what Accept asks for. */
export function routeNotAcceptable(produces: readonly string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `406: Not Acceptable\n\nAvailable representations: ${produces.join(', ')}`, {});
}

/** The Status go-restful's error handler writes for a path or method no route serves. */
export function routeError(code: 404 | 405): StatusError {
  return code === 404
    ? new StatusError(404, 'NotFound', 'the server could not find the requested resource', {})
    : new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}
