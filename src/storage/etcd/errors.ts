// gRPC failures as storage errors, and which of them allow a retry.

import { StorageError } from '../interface.js';

/** A failed gRPC call as the client reports it (unary.ts's UnaryCallError). */
export interface GrpcFailure {
  code: number;
  details?: string;
}

// gRPC status codes (google.rpc.Code).
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const UNAVAILABLE = 14;

// ---------------------------------------------------------------------------
// Errors.

export function grpcError(err: unknown): GrpcFailure | undefined {
  return err && typeof err === 'object' && 'code' in err && typeof err.code === 'number'
    ? (err as GrpcFailure)
    : undefined;
}

/** True when the call failed before anything was sent to etcd, so retrying a write is safe. */
export function neverSent(err: unknown): boolean {
  const e = grpcError(err);
  return e?.code === UNAVAILABLE && /No connection established|failed to connect/i.test(e.details ?? '');
}

/** True when another endpoint (or a later attempt) might succeed. */
export function endpointFailure(err: unknown): boolean {
  const e = grpcError(err);
  if (!e) return false;
  if (e.code === UNAVAILABLE) return true;
  return /no leader|leader changed|not capable/i.test(e.details ?? '');
}

export function toStorageError(err: unknown, key?: string): StorageError {
  if (err instanceof StorageError) return err;
  const e = grpcError(err);
  const details = e?.details ?? (err instanceof Error ? err.message : String(err));
  if (/required revision has been compacted/.test(details)) {
    return new StorageError('Compacted', `etcd: ${details}`, key);
  }
  if (/required revision is a future revision/.test(details)) {
    return new StorageError('FutureRevision', `etcd: ${details}`, key);
  }
  if (e) {
    switch (e.code) {
      case UNAVAILABLE:
      case DEADLINE_EXCEEDED:
        return new StorageError('Unavailable', `etcd unavailable: ${details}`, key);
      case RESOURCE_EXHAUSTED:
        if (/too many requests/.test(details)) return new StorageError('Unavailable', `etcd: ${details}`, key);
        if (/database space exceeded/.test(details)) return new StorageError('NoSpace', details, key);
        break;
      default:
        if (/no leader|leader changed|request timed out/.test(details)) {
          return new StorageError('Unavailable', `etcd: ${details}`, key);
        }
    }
  }
  return new StorageError('Internal', `etcd: ${details}`, key);
}

