// Client-side errors. Every failure the server reports becomes a StatusError
// carrying its Status (reason, code, causes): a Status body is used as is; a
// non-Status error body gets the generic reason and message client-go gives
// that status code. Failures to reach the server at all (refused, reset,
// timed out, TLS) are NetworkErrors, so callers can tell "the server said no"
// from "the server was not there".

import { type Status, type StatusReason, StatusError } from '../machinery/errors.js';

export class NetworkError extends Error {
  /** The system or undici error code, e.g. "ECONNREFUSED", "UND_ERR_SOCKET". */
  readonly code: string | undefined;

  constructor(message: string, options: { cause?: unknown; code?: string } = {}) {
    super(message, { cause: options.cause });
    this.name = 'NetworkError';
    this.code = options.code;
  }
}

export function isNetworkError(err: unknown): err is NetworkError {
  return err instanceof NetworkError;
}

/** Wraps a transport failure of method url. */
export function networkError(method: string, url: string, cause: unknown): NetworkError {
  const code = errorCode(cause);
  const text = cause instanceof Error ? cause.message : String(cause);
  return new NetworkError(`${method} ${url}: ${text}${code && !text.includes(code) ? ` (${code})` : ''}`, { cause, code });
}

function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 4; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the server refused the connection (client-go's isConnectionRefused). */
export function isConnectionRefused(err: unknown): boolean {
  return err instanceof NetworkError && err.code === 'ECONNREFUSED';
}

const GENERIC: Record<number, [StatusReason, string]> = {
  400: ['BadRequest', 'the server rejected our request for an unknown reason'],
  401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
  403: ['Forbidden', 'the server does not allow access to the requested resource'],
  404: ['NotFound', 'the server could not find the requested resource'],
  405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
  406: ['NotAcceptable', 'the server was unable to respond with a content type that the client supports'],
  409: ['Conflict', 'the server reported a conflict'],
  410: ['Gone', 'the server responded with the status code 410 but did not return more information'],
  413: ['RequestEntityTooLarge', 'the server has rejected the request because it is too large'],
  415: ['UnsupportedMediaType', 'the server was unable to respond with a content type that the client supports'],
  422: ['Invalid', 'the server rejected our request due to an error in our request'],
  429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
};

/** The error for a non-2xx response with the given (possibly empty) body text. */
export function errorFromResponse(code: number, bodyText: string): StatusError {
  const status = parseStatus(bodyText);
  if (status !== undefined) {
    if (typeof status.code !== 'number' || status.code === 0) status.code = code;
    return StatusError.fromStatus(status);
  }
  const generic = GENERIC[code];
  if (generic !== undefined) {
    const [reason, message] = generic;
    return new StatusError(code, reason, message);
  }
  if (code >= 500) {
    const shown = bodyText.trim() === '' ? 'unknown' : JSON.stringify(bodyText.trim().slice(0, 200));
    return new StatusError(code, 'InternalError', `an error on the server (${shown}) has prevented the request from succeeding`);
  }
  return new StatusError(code, '', `the server responded with the status code ${code} but did not return more information`);
}

/** The Status in a body, if it is one. */
export function parseStatus(bodyText: string): Status | undefined {
  if (bodyText.trim() === '') return undefined;
  try {
    const value = JSON.parse(bodyText) as unknown;
    if (value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'Status') return value as Status;
  } catch {
    // not JSON: fall through to the generic error
  }
  return undefined;
}
