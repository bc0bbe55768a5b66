// Large request bodies and the event loop.
//
// apiary serves every request on one event loop, so a request's synchronous
// work delays every other request by its length. Every per-request cost is
// linear in the body (the quadratic paths are gone), but a maximal body (3 MiB:
// 100,000 keys, a million list elements) still costs from hundreds of
// milliseconds to seconds of parse, typed decode, field checks, field sets,
// validation and encoding.
// What this module does about it, and why:
//
// - One large body at a time. A body of LARGE_BODY_BYTES or more waits for the
//   large body before it to finish (first come, first served); small requests
//   never wait here. Eight maximal creates sent at once then delay a small GET
//   by one stage of one of them, not by the sum of all eight (the work of
//   concurrent requests interleaves on one thread: each stage of each request
//   would sit between the GET and its turn).
// - A pause between the stages of a large request (parse, typed decode and
//   field checks, the store's defaults, field sets, validation, the write, the
//   response's encoding) twice as long as the stage before it (up to 1 s):
//   requests that arrived meanwhile are served in between, so a small GET
//   waits for at most one stage, not for the whole request, and other clients
//   keep about two thirds of the loop while a large request runs (the large
//   request, usually the noisy one, takes about three times as long).
//
// The mechanism per stage of a large write, and why:
//
//   stage                               where                  why
//   parse, duplicate keys, typed        worker thread          pure functions of the body and the kind
//   decode, unknown fields, owner       (body-worker.ts)       (write-body.ts); what they leave behind
//   reference dedup (create, update)                           is often small (a million identical
//                                                              owner references are one)
//   the decoded object back on the      slices, a few ms a     a structured clone of it would hold the
//   loop                                turn (json-slices.ts)  loop as long as the parse it saved
//   the field set of a create           worker thread          pure (created.ts); the object goes as
//   (managedFields)                     (store trackCreate)    JSON written in slices, the set comes
//                                                              back in slices
//   the stored value's encoding         worker thread          pure (storage/managed-fields-codec.ts:
//   (every write's storage step)        (offload.storedValue)  the object's JSON, and per key its index
//                                                              among its node's keys: 100,000 keys held
//                                                              the loop ~480 ms); the JSON goes in
//                                                              slices, one string comes back
//   the field manager of an update,     worker thread          pure (field-manager.ts, given both
//   a patch, a subresource write        (store trackUpdate-    objects with their managedFields, the
//   (decode the live object's field     Offloaded)             write's time and which entry versions
//   sets, compare old and new, encode                          convert: FieldManagerJob); both go as
//   the entries again)                                         JSON in slices, the entries come back
//                                                              in slices (100,000 keys: 250 ms in one
//                                                              block on an idle core)
//   server-side apply's merge and       worker thread          pure as above (FieldManager.apply); the
//   field sets (a JSON body)            (store apply)          merged object comes back in slices, a
//                                                              conflict as the same 409 (a forced apply
//                                                              of 100,000 keys: ~780 ms in one block);
//                                                              a YAML body's merge stays here (its
//                                                              values may not survive JSON)
//   a JSON, merge or strategic merge    worker thread          pure (patch-stages.ts) for a built-in
//   patch's stages: the patch applied,  (handlers.ts           kind; the current object goes as JSON
//   the typed decode of the result,     patchedOffThread)      in slices, the patched one comes back in
//   its re-decode and field checks                             slices (four walks of the object, each
//                                                              up to a hundred ms); a custom resource's
//                                                              (its decode needs the server's CRD
//                                                              schemas) run here, a stage each
//   prune, defaults, zero values,       here, a stage each,    they change the object in place, and
//   admission, validation, the write    paused between         admission and the store (watch cache,
//   (create, update, patch, apply)                             storage) live on this thread; each is
//                                                              one walk (a map of scalars is not even
//                                                              walked by prune), tens of milliseconds
//                                                              for 100,000 keys on an idle core
//   a ConfigMap's or Secret's           here, in steps with    it reads the object as admission left
//   validation (its data keys and       pauses (steps.ts:      it, and reads it here; 100,000 keys
//   sizes)                              a 2 ms budget)         were one block of 25-40 ms
//   the answer's JSON: a create's       spliced from the       the stored value is the object's JSON
//                                       stored value           (createdJSON): no walk at all
//   ... any other write's               slices (responses.ts)  JSON.stringify of a maximal object is
//                                                              one block of a hundred milliseconds
//
// The key lists of the large maps assembled from slices are kept while the
// request runs (machinery/wide-keys.ts): the JSON walks above, deepCopy and
// ConfigMap/Secret validation read them instead of listing the map again
// (each Object.keys of a 100,000-key map is one block of ~15 ms, and a
// create listed its data map five times). A key added to such a map drops
// its list (the map is listed again where needed); the turn's end gives the
// maps back their plain prototype.
//
// Worker threads only above LARGE_BODY_BYTES: the round trip costs more than
// decoding a small body. YAML and protobuf bodies and custom resources (whose
// decode needs the server's CRD schemas) stay here. Hard limits do the rest:
// the body (3 MiB, kube-apiserver's --max-request-body-bytes default), its
// nesting depth (json-depth.ts), the stored object (--max-object-size-bytes).
//
// Not yet bounded (each one block on this thread, every cost linear):
// - a patch body's parse (JSON.parse of 3 MiB, tens of milliseconds; the
//   worker parses it again for the stages, but the main thread's parse comes
//   first so that a malformed patch is a 400 before the object is read), an
//   apply body's parse, and the storage read's decode and copy of the current
//   object at the start of an update or patch;
// - each enumeration of a 100,000-key map that is not kept (Object.keys of a
//   dictionary-mode object sorts its keys: ~10-20 ms on an idle core): a map
//   of the stored object an update or patch reads, a map changed by adding
//   a key, a map of a YAML or custom resource's body (decoded here), and the
//   validation of kinds other than ConfigMap and Secret (the zero-value
//   walks' "is it empty?" does not list: machinery/known-keys.ts);
// - the growth of a large map's dictionary while it is assembled (V8 rehashes
//   all its keys when it doubles: ~10 ms at 65,536 keys) and the garbage
//   collector's pauses (scavenges copying the surviving halves of a large
//   object, a full collection of a heap holding several);
// - the storage read of an update's current object (its stored value decoded
//   and copied: tens of milliseconds, storage/object-store.ts), the update's
//   copy of the decoded body for its attempt (store/update.ts).

import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { releaseWideKeys } from '../machinery/wide-keys.js';

/** Bodies at least this large take turns and yield between stages (kubectl's largest common bodies, CRDs, are below). */
export const LARGE_BODY_BYTES = 256 * 1024;

/**
 * Lets the loop serve others between two stages of a large request. Called
 * with `afterWaiting` when the time since the last pause was spent waiting
 * (for a worker thread), not holding the loop: it then only restarts the
 * stage clock.
 */
export type Pause = (afterWaiting?: boolean) => Promise<void>;

/** First come, first served turns for large bodies (one at a time). */
export class LargeRequestTurns {
  private running = false;
  private readonly waiting: Array<() => void> = [];

  /** Runs `work` in this body's turn when `size` is large; at once otherwise. */
  async run<T>(size: number, work: (pause: Pause) => Promise<T>): Promise<T> {
    if (size < LARGE_BODY_BYTES) return work(noPause);
    if (this.running) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running = true;
    try {
      return await work(pacedPauses());
    } finally {
      // The maps this request assembled get their plain prototype back before they are anyone else's (wide-keys.ts).
      releaseWideKeys();
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.running = false;
    }
  }
}

/** The pause of a small request: nothing to wait for (callers skip awaiting it: each await is a turn of the microtask queue). */
export const noPause: Pause = () => Promise.resolve();

/**
 * Pauses for one large request: two turns of the loop (a request on a
 * connection accepted during the last stage is read in the turn after its
 * accept), then PAUSE_FACTOR times as long as the stage before ran (at least
 * PAUSE_MS, at most MAX_PAUSE_MS).
 */
function pacedPauses(): Pause {
  let resumed = performance.now();
  return async (afterWaiting) => {
    if (afterWaiting === true) {
      resumed = performance.now();
      return;
    }
    const stage = performance.now() - resumed;
    await nextTurn();
    await nextTurn();
    await sleep(Math.min(MAX_PAUSE_MS, Math.max(PAUSE_MS, PAUSE_FACTOR * stage)));
    resumed = performance.now();
  };
}

const PAUSE_MS = 5;
const PAUSE_FACTOR = 2;
const MAX_PAUSE_MS = 1000;

/** The process's turns: every server in it shares the one event loop they protect. */
export const largeRequestTurns = new LargeRequestTurns();
