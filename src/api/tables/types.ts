// The wire shapes of meta.k8s.io Table (v1 and v1beta1 are identical on the
// wire): column definitions, rows and their conditions. Field names match
// upstream's metav1.Table exactly; every column definition field is always
// present (upstream's fields carry no omitempty).

import type { ListMeta, ObjectMeta } from '../../machinery/meta.js';

export type TableApiVersion = 'meta.k8s.io/v1' | 'meta.k8s.io/v1beta1';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type of the cells: "string", "integer", "number", "boolean", "date". */
  type: string;
  /** OpenAPI format hint: "name" marks the column holding the object's name. */
  format: string;
  description: string;
  /** 0 for the default view, 1 and above only shown by `kubectl get -o wide`. */
  priority: number;
}

export type TableCell = string | number | boolean | null;

export interface TableRowCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
}

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: TableApiVersion;
  metadata: ObjectMeta;
}

export interface TableRow {
  cells: TableCell[];
  conditions?: TableRowCondition[];
  object?: unknown;
}

export interface Table {
  kind: 'Table';
  apiVersion: TableApiVersion;
  metadata: ListMeta;
  /** null when left out (TableOptions.noHeaders: later pages, watch events after the first), as Go prints a nil slice. */
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}
