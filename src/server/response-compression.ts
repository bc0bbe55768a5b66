// gzip for large responses, as kube-apiserver's APIResponseCompression (beta,
// on by default in 1.32): a client whose Accept-Encoding lists `gzip` gets a
// body over 128 KiB compressed at level 1, with `Content-Encoding: gzip` and
// `Vary: Accept-Encoding` and no Content-Length (chunked). client-go and
// kubectl ask for it on every request (Go's transport does) and decompress
// transparently; a list of thousands of objects then crosses a slow network in
// a fraction of the bytes.
//
// Contract:
// - The same test as upstream's: the header is split at commas and a token
//   equal to `gzip` once trimmed selects it; parameters are not parsed, so
//   `gzip;q=1.0` does not (upstream's negotiateContentEncoding).
// - Only bodies of more than GZIP_THRESHOLD_BYTES; smaller ones go out as they
//   are (upstream compares the size of the encoded object).
// - The compression runs on libuv's thread pool (node:zlib's stream), never on
//   the event loop: level 1 costs 5–15 ms per MiB of JSON, which the loop cannot spare.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import { createGzip } from 'node:zlib';

/** Bodies larger than this are compressed for a client that asks (upstream's defaultGzipThresholdBytes). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** Upstream's defaultGzipContentEncodingLevel: the cheapest, within 1.1–1.3x of the best ratio on API objects. */
const GZIP_LEVEL = 1;
/** Input per thread-pool job: fewer round trips to the loop than zlib's default 16 KiB. */
const CHUNK_BYTES = 256 * 1024;

/** The --feature-gates switch (APIResponseCompression), set by the server at start. */
export const responseCompression = { enabled: true };

/** Whether the client's Accept-Encoding lists gzip (upstream's token test). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  for (const token of header.split(',')) if (token.trim() === 'gzip') return true;
  return false;
}

/** Whether a body of `size` bytes goes out compressed for this request. */
export function shouldGzip(req: IncomingMessage, size: number): boolean {
  return size > GZIP_THRESHOLD_BYTES && responseCompression.enabled && acceptsGzip(req.headers['accept-encoding']);
}

/**
 * Writes the status, the headers set so far plus the encoding's, and the
 * parts compressed. `done` runs once the compressor let go of the parts (or
 * the response failed), so that their memory may be reused.
 */
export function writeGzipped(req: IncomingMessage, res: ServerResponse, code: number, parts: readonly (string | Uint8Array)[], done?: () => void): void {
  res.removeHeader('Content-Length');
  res.setHeader('Content-Encoding', 'gzip');
  res.appendHeader('Vary', 'Accept-Encoding');
  res.writeHead(code);
  if (req.method === 'HEAD') {
    res.end();
    done?.();
    return;
  }
  const gzip = createGzip({ level: GZIP_LEVEL, chunkSize: CHUNK_BYTES });
  // An error (the client went away) ends both; the response is already failed then.
  pipeline(gzip, res, () => done?.());
  for (const part of parts) gzip.write(part);
  gzip.end();
}
