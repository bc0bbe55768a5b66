// gRPC failures as storage errors, and which of them allow a retry.

import * as grpc from '@grpc/grpc-js';
import { StorageError } from '../interface.js';

// ---------------------------------------------------------------------------
// Errors.

export function grpcError(err: unknown): grpc.ServiceError | undefined {
  return err && typeof err === 'object' && 'code' in err && typeof err.code === 'number'
    ? (err as grpc.ServiceError)
    : undefined;
}

/** True when the call failed before anything was sent to etcd, so retrying a write is safe. */
export function neverSent(err: unknown): boolean {
  const e = grpcError(err);
  return e?.code === grpc.status.UNAVAILABLE && /No connection established|failed to connect/i.test(e.details ?? '');
}

/** True when another endpoint (or a later attempt) might succeed. */
export function endpointFailure(err: unknown): boolean {
  const e = grpcError(err);
  if (!e) return false;
  if (e.code === grpc.status.UNAVAILABLE) return true;
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
      case grpc.status.UNAVAILABLE:
      case grpc.status.DEADLINE_EXCEEDED:
        return new StorageError('Unavailable', `etcd unavailable: ${details}`, key);
      case grpc.status.RESOURCE_EXHAUSTED:
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

