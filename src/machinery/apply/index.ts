// Server-side apply and managedFields: see each module's comment.
export { FieldSet } from './fieldset.js';
export type { TypeNode } from './schema.js';
export { scalar, untyped } from './schema.js';
export { toFieldSet, compare, merge, removeItems, ApplySchemaError } from './typed.js';
export { Updater, ConflictsError, type Conflict, type Managers } from './updater.js';
export {
  FieldManager,
  type FieldManagerOptions,
  LAST_APPLIED_ANNOTATION,
  decodeManagedFields,
  encodeManagedFields,
  managerKey,
  formatSeconds,
} from './field-manager.js';
export { conflictsStatusError, conflictMessage, printManager } from './conflicts.js';
export { pathString, elementString } from './path.js';
