/**
 * The Status of an apply that conflicts with other managers (upstream's
 * NewConflictError / NewApplyConflict): 409 Conflict, one
 * FieldManagerConflict cause per field, and a message naming each manager
 * the way kubectl prints it back.
 */
import { StatusError } from '../errors.js';
import { parseManagerKey } from './field-manager.js';
import { pathString } from './path.js';
import type { Conflict } from './updater.js';

/** `"mgr"`, `"mgr" with subresource "status"`, and ` using v1` for Update entries. */
export function printManager(key: string): string {
  let id;
  try {
    id = parseManagerKey(key);
  } catch {
    return JSON.stringify(key);
  }
  let out = JSON.stringify(id.manager);
  if (id.subresource !== '') out = `${out} with subresource ${JSON.stringify(id.subresource)}`;
  if (id.operation === 'Update') out = `${out} using ${id.apiVersion}`;
  return out;
}

export function conflictMessage(conflicts: readonly Conflict[]): string {
  if (conflicts.length === 1) {
    const c = conflicts[0]!;
    return `Apply failed with 1 conflict: conflict with ${printManager(c.manager)}: ${pathString(c.path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

export function conflictsStatusError(conflicts: readonly Conflict[]): StatusError {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(c.manager)}`,
    field: pathString(c.path),
  }));
  return new StatusError(409, 'Conflict', conflictMessage(conflicts), { causes });
}
