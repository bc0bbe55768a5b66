// metav1.Status errors. Every failure crosses layers as a StatusError carrying
// the exact Status body kube-apiserver would write; only the HTTP layer turns
// it into a response. Messages follow upstream's wording (k8s.io/apimachinery
// pkg/api/errors) so that clients print what they would print against a real
// cluster.

import { type GroupResource, groupKindString, groupResourceString } from './meta.js';
import { type FieldError, aggregateFieldErrors } from './field-errors.js';

export type StatusReason =
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Invalid'
  | 'ServerTimeout'
  | 'Timeout'
  | 'TooManyRequests'
  | 'BadRequest'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'InternalError'
  | 'Expired'
  | 'ServiceUnavailable'
  /** A list met stored values it could not read (AllowUnsafeMalformedObjectDeletion). */
  | 'StorageReadError'
  | '';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  /** Always set on failures; a Success status (a DELETE's answer) leaves it out, as upstream. */
  code?: number;
}

export class StatusError extends Error {
  readonly status: Status;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'StatusError';
    // Fields in upstream's order, so encoded bodies read as kube-apiserver's do.
    this.status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message };
    if (reason !== '') this.status.reason = reason;
    if (details !== undefined) this.status.details = details;
    this.status.code = code;
  }

  get code(): number {
    return this.status.code ?? 500;
  }

  get reason(): StatusReason {
    return this.status.reason ?? '';
  }

  /** Rebuilds an error from a Status body received over the wire (the client side). */
  static fromStatus(status: Status): StatusError {
    const err = new StatusError(status.code ?? 500, status.reason ?? '', status.message ?? '', status.details);
    err.status.metadata = status.metadata ?? {};
    return err;
  }
}

export function isStatusError(err: unknown): err is StatusError {
  return err instanceof StatusError;
}

export function reasonOf(err: unknown): StatusReason {
  return err instanceof StatusError ? err.reason : '';
}

export const isNotFound = (err: unknown): boolean => reasonOf(err) === 'NotFound';
export const isAlreadyExists = (err: unknown): boolean => reasonOf(err) === 'AlreadyExists';
export const isConflict = (err: unknown): boolean => reasonOf(err) === 'Conflict';
export const isInvalid = (err: unknown): boolean => reasonOf(err) === 'Invalid';
export const isGone = (err: unknown): boolean => reasonOf(err) === 'Gone' || reasonOf(err) === 'Expired';

/** StatusDetails in upstream's field order (name, group, kind), empty ones left out. */
function resourceDetails(gr: GroupResource, name: string): StatusDetails {
  const details: StatusDetails = {};
  if (name !== '') details.name = name;
  if (gr.group !== '') details.group = gr.group;
  details.kind = gr.resource;
  return details;
}

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError(404, 'NotFound', `${groupResourceString(gr)} ${quote(name)} not found`, resourceDetails(gr, name));
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError(409, 'AlreadyExists', `${groupResourceString(gr)} ${quote(name)} already exists`, resourceDetails(gr, name));
}

export function conflict(gr: GroupResource, name: string, detail: string): StatusError {
  return new StatusError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${groupResourceString(gr)} ${quote(name)}: ${detail}`,
    resourceDetails(gr, name),
  );
}

/** The optimistic-concurrency failure: a write carried a stale resourceVersion. */
export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function staleResourceVersion(gr: GroupResource, name: string): StatusError {
  return conflict(gr, name, OPTIMISTIC_LOCK_MESSAGE);
}

export function invalid(group: string, kind: string, name: string, errors: FieldError[]): StatusError {
  const causes: StatusCause[] = errors.map((e) => ({ reason: e.causeType(), message: e.body(), field: e.field }));
  // Go's omitempty: an empty name or group is left out (errors about request options name no object).
  const details: StatusDetails = {};
  if (name !== '') details.name = name;
  if (group !== '') details.group = group;
  if (kind !== '') details.kind = kind;
  details.causes = causes;
  const aggregate = aggregateFieldErrors(errors);
  const base = `${groupKindString(group, kind)} ${quote(name)} is invalid`;
  return new StatusError(422, 'Invalid', aggregate === '' ? base : `${base}: ${aggregate}`, details);
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

export function forbidden(gr: GroupResource | null, name: string, reason: string, details?: StatusDetails): StatusError {
  let message: string;
  if (gr === null) message = `forbidden: ${reason}`;
  else if (name === '') message = `${groupResourceString(gr)} is forbidden: ${reason}`;
  else message = `${groupResourceString(gr)} ${quote(name)} is forbidden: ${reason}`;
  return new StatusError(403, 'Forbidden', message, details ?? (gr ? resourceDetails(gr, name) : undefined));
}

export function methodNotSupported(gr: GroupResource, action: string): StatusError {
  return new StatusError(
    405,
    'MethodNotAllowed',
    `${action} is not supported on resources of kind ${quote(groupResourceString(gr))}`,
    resourceDetails(gr, ''),
  );
}

export function notAcceptable(accepted: string[]): StatusError {
  return new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
}

export function unsupportedMediaType(contentType: string, accepted: string[]): StatusError {
  const got = contentType === '' ? '' : ` ${quote(contentType)}`;
  return new StatusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format${got} - accepted media types include: ${accepted.join(', ')}`,
  );
}

export function requestEntityTooLarge(limitBytes: number): StatusError {
  return new StatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`);
}

export function gone(message: string): StatusError {
  return new StatusError(410, 'Gone', message);
}

/** A read or watch at a revision that compaction removed. */
export function resourceExpired(message: string): StatusError {
  return new StatusError(410, 'Expired', message);
}

/** storage.NewTooLargeResourceVersionError: a Timeout (its message prefixed so) with the ResourceVersionTooLarge cause. */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): StatusError {
  return new StatusError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    retryAfterSeconds,
  });
}

export function serverTimeout(gr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  return new StatusError(
    504,
    'ServerTimeout',
    `The ${operation} operation against ${groupResourceString(gr)} could not be completed at this time, please try again.`,
    { ...resourceDetails(gr, ''), retryAfterSeconds },
  );
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError(503, 'ServiceUnavailable', message);
}

/** What a plain (non-Status) error becomes upstream: 500, no reason, the error's text (ErrorToAPIStatus). */
export function unknownError(message: string): StatusError {
  return new StatusError(500, '', message);
}

export function internalError(err: unknown): StatusError {
  const text = err instanceof Error ? err.message : String(err);
  return new StatusError(500, 'InternalError', `Internal error occurred: ${text}`, { causes: [{ message: text }] });
}

/** Go's %q for the strings we quote (names, media types): a JSON string is the same for printable text. */
export function quote(s: string): string {
  return JSON.stringify(s);
}
