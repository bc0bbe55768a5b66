// The shape of one kind's printer: its column definitions (in upstream's
// order, with upstream's names, types, formats and priorities) and a function
// producing one row's cells. The apiserver always prints the wide form, so a
// row carries a cell for every column, priority 1 included. The printers live
// beside their types (api/<group>/<version>/table.ts); this module holds
// what they share.

import type { TableCell, TableColumnDefinition, TableRowCondition } from './types.js';
import { at, str, type Obj } from './fields.js';
import { timeSince } from './duration.js';

export interface PrintedRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
}

export interface Printer {
  columns: readonly TableColumnDefinition[];
  print(object: Obj, now: Date): PrintedRow;
  /**
   * The metadata of an includeObject=Metadata row, when it differs from the
   * object's: upstream cuts it from the internal object, before the v1
   * conversion adds what v1 alone carries (a DaemonSet's template-generation annotation).
   */
  rowMetadata?(metadata: Record<string, unknown>): Record<string, unknown>;
  /** The order of a list's rows, when upstream's list printer sorts them (FlowSchemas: by matchingPrecedence, then name). */
  listOrder?(a: Obj, b: Obj): number;
}

/** A column definition; descriptions are our own words (kubectl never shows them). */
export function column(
  name: string,
  type: string,
  description: string,
  extra: { format?: string; priority?: number } = {},
): TableColumnDefinition {
  return { name, type, format: extra.format ?? '', description, priority: extra.priority ?? 0 };
}

export const NAME_COLUMN = column('Name', 'string', 'Name of the object, unique within its namespace.', { format: 'name' });
export const AGE_COLUMN = column('Age', 'string', 'Time since the object was created.');
export const CONTAINERS_COLUMN = column('Containers', 'string', 'Names of the containers in the pod template.', {
  priority: 1,
});
export const IMAGES_COLUMN = column('Images', 'string', 'Images of the containers in the pod template.', { priority: 1 });

/** A Selector column (priority 1) with the given description. */
export function selectorColumn(description: string): TableColumnDefinition {
  return column('Selector', 'string', description, { priority: 1 });
}

/** The NAME cell. */
export function objectName(o: Obj): string {
  return str(at(o, 'metadata', 'name'));
}

/** The AGE cell. */
export function objectAge(o: Obj, now: Date): string {
  return timeSince(at(o, 'metadata', 'creationTimestamp'), now);
}

/** Container names and images joined by commas, in template order. */
export function containerCells(containers: unknown): [string, string] {
  const list = Array.isArray(containers) ? containers : [];
  const names: string[] = [];
  const images: string[] = [];
  for (const c of list) {
    const container = (c ?? {}) as Obj;
    names.push(typeof container.name === 'string' ? container.name : '');
    images.push(typeof container.image === 'string' ? container.image : '');
  }
  return [names.join(','), images.join(',')];
}
