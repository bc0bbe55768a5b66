// The generic REST store: every verb of RESTStore for one resource, from its
// ResourceType, its Strategy and an ObjectStore (upstream's registry/generic
// Store with rest.BeforeCreate/BeforeUpdate/BeforeDelete).
//
// Write path, as upstream: type and namespace checks → prune unknown fields
// → defaults → system fields (uid, creationTimestamp, generateName) →
// strategy prepare → mutating admission → validation (ObjectMeta + strategy)
// → validating admission → guarded write. A rejected request writes nothing.
//
// Deletion: an object with metadata.finalizers (or a strategy hold, or a
// graceful period) gets deletionTimestamp and stays; an update that leaves such
// an object with no finalizers deletes it.
//
// The verbs live one file each under store/ (base.ts: options and shared
// checks; reads.ts; create.ts; delete.ts; update.ts with patch and apply;
// scale.ts), each a class extending the previous one; this closes the chain.

import type { RESTStore } from './rest.js';
import { ScaleStore } from './store/scale.js';

export { DEFAULT_BOOKMARK_INTERVAL_MS, type ApplyOptions, type GenericStoreOptions } from './store/base.js';

export class GenericStore extends ScaleStore implements RESTStore {}
