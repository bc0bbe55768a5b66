// Server-side Table output (meta.k8s.io/v1 and v1beta1 Table), as
// kube-apiserver 1.32 produces it for `kubectl get`: per-kind column
// definitions and cells for the built-in kinds we serve (their printers live
// beside their types, api/<group>/<version>/table.ts), upstream's default
// NAME / CREATED AT table for any other kind, and the row object per
// includeObject.
//
// Contract:
// - buildTable never mutates its inputs. Row objects for includeObject=Object
//   are the given objects themselves (not copies).
// - Cells are printed in wide form (every column, priority 1 included), as
//   the apiserver always does; kubectl hides priority>0 columns itself.
// - includeObject defaults to Metadata when absent, as upstream does for a
//   request without the parameter (kubectl always sends Object).
// - Pass listMeta when rendering a list (its resourceVersion / continue /
//   remainingItemCount become the table's); without it the table carries the
//   resourceVersion of the single object, as for a get.
// - An unknown includeObject value fails with 400 BadRequest.

import { badRequest } from '../../machinery/errors.js';
import type { KubeObject, ListMeta } from '../../machinery/meta.js';
import { column, NAME_COLUMN, type Printer } from './printer.js';
import type { Obj } from './fields.js';
import type { IncludeObject, PartialObjectMetadata, Table, TableApiVersion, TableColumnDefinition, TableRow } from './types.js';
import { corePrinters } from '../core/v1/table.js';
import { appsPrinters } from '../apps/v1/table.js';
import { batchPrinters } from '../batch/v1/table.js';
import { policyPrinters } from '../policy/v1/table.js';
import { autoscalingPrinters } from '../autoscaling/v2/table.js';
import { coordinationPrinters } from '../coordination/v1/table.js';
import { eventsPrinters } from '../events/v1/table.js';
import { rbacPrinters } from '../rbac/v1/table.js';
import { networkingPrinters } from '../networking/v1/table.js';
import { discoveryPrinters } from '../discovery/v1/table.js';
import { storagePrinters } from '../storage/v1/table.js';
import { schedulingPrinters } from '../scheduling/v1/table.js';
import { nodePrinters } from '../node/v1/table.js';
import { certificatesPrinters } from '../certificates/v1/table.js';
import { admissionregistrationPrinters } from '../admissionregistration/v1/table.js';
import { flowcontrolPrinters } from '../flowcontrol/v1/table.js';
import { hncPrinters } from '../hnc/v1alpha2/table.js';

export type * from './types.js';
export type { Printer } from './printer.js';
export { humanDuration } from './duration.js';

/** Each group's printers (api/<group>/<version>/table.ts), by kind. */
const GROUP_PRINTERS: [group: string, printers: Record<string, Printer>][] = [
  ['', corePrinters],
  ['apps', appsPrinters],
  ['batch', batchPrinters],
  ['policy', policyPrinters],
  ['autoscaling', autoscalingPrinters],
  ['coordination.k8s.io', coordinationPrinters],
  ['events.k8s.io', eventsPrinters],
  ['rbac.authorization.k8s.io', rbacPrinters],
  ['networking.k8s.io', networkingPrinters],
  ['discovery.k8s.io', discoveryPrinters],
  ['storage.k8s.io', storagePrinters],
  ['scheduling.k8s.io', schedulingPrinters],
  ['node.k8s.io', nodePrinters],
  ['certificates.k8s.io', certificatesPrinters],
  ['admissionregistration.k8s.io', admissionregistrationPrinters],
  ['flowcontrol.apiserver.k8s.io', flowcontrolPrinters],
  ['hnc.x-k8s.io', hncPrinters],
];

const printers = new Map<string, Printer>(
  GROUP_PRINTERS.flatMap(([group, byKind]) => Object.entries(byKind).map(([kind, printer]): [string, Printer] => [`${group}/${kind}`, printer])),
);

/** Go's time.RFC3339 in UTC without fractions: "2024-05-01T10:00:00Z". */
function rfc3339(value: unknown): string {
  const ms = typeof value === 'string' ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) return '0001-01-01T00:00:00Z';
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** Upstream's default table convertor, for kinds without a printer. */
const defaultPrinter: Printer = {
  columns: [NAME_COLUMN, column('Created At', 'date', 'Time the object was created.')],
  print: (o) => {
    const meta = (o.metadata ?? {}) as Obj;
    return { cells: [typeof meta.name === 'string' ? meta.name : '', rfc3339(meta.creationTimestamp)] };
  },
};

function printerFor(group: string, kind: string): Printer {
  return printers.get(`${group}/${kind}`) ?? defaultPrinter;
}

/** The column definitions of a kind's table, e.g. for the first event of a Table watch. */
export function tableColumnsFor(group: string, kind: string): TableColumnDefinition[] {
  return printerFor(group, kind).columns.map((c) => ({ ...c }));
}

export interface BuildTableOptions {
  includeObject?: IncludeObject;
  /** The clock for AGE cells; defaults to the current time. */
  now?: Date;
  apiVersion?: TableApiVersion;
  listMeta?: ListMeta;
  /** TableOptions.noHeaders: leave columnDefinitions out, null (later pages, watch events). */
  omitHeaders?: boolean;
  /** The printer to use instead of the built-in one for group/kind (custom resources). */
  printer?: Printer;
}

export function buildTable(group: string, kind: string, objects: KubeObject[], options: BuildTableOptions = {}): Table {
  const apiVersion: TableApiVersion = options.apiVersion ?? 'meta.k8s.io/v1';
  const include: string = options.includeObject ?? 'Metadata';
  if (include !== 'None' && include !== 'Metadata' && include !== 'Object') {
    throw badRequest(`unrecognized includeObject value: ${JSON.stringify(include)}`);
  }
  const now = options.now ?? new Date();
  const printer = options.printer ?? printerFor(group, kind);
  const ordered = options.listMeta !== undefined && printer.listOrder !== undefined ? [...objects].sort((a, b) => printer.listOrder!(a as Obj, b as Obj)) : objects;
  const rows: TableRow[] = ordered.map((object) => {
    const printed = printer.print(object as Obj, now);
    const row: TableRow = { cells: printed.cells };
    if (printed.conditions !== undefined) row.conditions = printed.conditions.map((c) => ({ ...c }));
    if (include === 'Object') row.object = object;
    else if (include === 'Metadata') row.object = partialObjectMetadata(object, apiVersion, printer);
    // A RawExtension struct is never omitted by Go's encode: an empty one prints null.
    else row.object = null;
    return row;
  });
  return {
    kind: 'Table',
    apiVersion,
    metadata: tableListMeta(objects, options.listMeta),
    columnDefinitions: options.omitHeaders === true ? null : printer.columns.map((c) => ({ ...c })),
    rows,
  };
}

function partialObjectMetadata(object: KubeObject, apiVersion: TableApiVersion, printer: Printer): PartialObjectMetadata {
  const metadata = object.metadata ?? {};
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: printer.rowMetadata !== undefined ? (printer.rowMetadata(metadata as Record<string, unknown>) as typeof metadata) : metadata };
}

function tableListMeta(objects: KubeObject[], listMeta: ListMeta | undefined): ListMeta {
  const meta: ListMeta = {};
  if (listMeta !== undefined) {
    if (listMeta.resourceVersion) meta.resourceVersion = listMeta.resourceVersion;
    if (listMeta.continue) meta.continue = listMeta.continue;
    if (listMeta.remainingItemCount !== undefined) meta.remainingItemCount = listMeta.remainingItemCount;
    return meta;
  }
  const rv = objects.length === 1 ? objects[0]!.metadata?.resourceVersion : undefined;
  if (rv) meta.resourceVersion = rv;
  return meta;
}
