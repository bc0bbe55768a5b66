// upstream 1.32's unsafe deletion of a corrupt object (KEP-3926,
// corrupt_obj_deleter.go): DELETE with
// ignoreStoreReadErrorWithClusterBreakingPotential=true, behind the
// AllowUnsafeMalformedObjectDeletion gate (the HTTP layer drops the option when
// the gate is off and checks the extra `unsafe-delete-ignore-read-errors` verb).
//
// Contract:
// - The object must be unreadable: when a read of it succeeds (or it does not
//   exist) the answer is 422 Invalid on the option, as upstream's.
// - Admission runs (on an empty object of the kind, as upstream's: the stored
//   one cannot be read); then the key is deleted at the revision it was read
//   at, its value never decoded: no preconditions, no finalizers, no grace
//   period, no garbage collection of dependents (why upstream calls it
//   cluster-breaking).
// - The answer is a Success Status naming the object (the deleted value cannot
//   be shown); a key someone else deleted first also answers Success.

import { StatusError, invalid, type Status } from '../machinery/errors.js';
import { fieldErrors } from '../machinery/field-errors.js';
import type { GroupResource } from '../machinery/meta.js';
import { isCorruptObjectError } from '../storage/corrupt-values.js';
import type { ObjectStore } from '../storage/object-store.js';

export interface UnreadableDeleter {
  /** Deletes the key without reading its value; false when it was gone already. */
  deleteUnreadable(namespace: string, name: string): Promise<boolean>;
}

function unreadableDeleterOf(storage: ObjectStore): UnreadableDeleter | undefined {
  const candidate = storage as Partial<UnreadableDeleter>;
  return typeof candidate.deleteUnreadable === 'function' ? (candidate as UnreadableDeleter) : undefined;
}

export async function deleteCorruptObject(
  storage: ObjectStore,
  gr: GroupResource,
  kind: string,
  namespace: string,
  name: string,
  admit: () => Promise<void>,
): Promise<Status> {
  const deleter = unreadableDeleterOf(storage);
  if (deleter === undefined) {
    // upstream's developer error: a resource whose storage cannot do it.
    throw new StatusError(500, 'InternalError', 'Internal error occurred: no unsafe deleter provided, can not honor ignoreStoreReadErrorWithClusterBreakingPotential', {
      causes: [{ message: 'no unsafe deleter provided, can not honor ignoreStoreReadErrorWithClusterBreakingPotential' }],
    });
  }
  let readable = true;
  try {
    await storage.get(namespace, name);
  } catch (err) {
    readable = !isCorruptObjectError(err);
  }
  if (readable) {
    // upstream names the resource where the kind goes (its TODO says so).
    throw invalid(gr.group, gr.resource, name, [
      fieldErrors.invalid(
        'ignoreStoreReadErrorWithClusterBreakingPotential',
        true,
        'is exclusively used to delete corrupt object(s), try again by removing this option',
      ),
    ]);
  }
  await admit();
  await deleter.deleteUnreadable(namespace, name);
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200, details: { name, kind } } as Status;
}
