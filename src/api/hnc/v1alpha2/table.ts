// Table printers of hnc.x-k8s.io/v1alpha2: the columns a kube-apiserver shows
// for HNC's CRDs (Name and Age where the CRD declares no columns; Name,
// Request and Limit for HierarchicalResourceQuotas), so `kubectl get` prints
// what it prints against a cluster running HNC.
import { column, NAME_COLUMN, type Printer } from '../../tables/printer.js';
import { at, str } from '../../tables/fields.js';
import type { TableCell } from '../../tables/types.js';
import { humanDuration } from '../../tables/duration.js';

function crdColumn(name: string, type: string, jsonPath: string) {
  return column(name, type, `Custom resource definition column (in JSONPath format): ${jsonPath}`);
}

const CRD_AGE_COLUMN = crdColumn('Age', 'date', '.metadata.creationTimestamp');

function ageCell(value: unknown, now: Date): TableCell {
  if (typeof value !== 'string') return null;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? '<invalid>' : humanDuration(now.getTime() - ms);
}

function stringCell(value: unknown): TableCell {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const nameAndAge: Printer = {
  columns: [NAME_COLUMN, CRD_AGE_COLUMN],
  print: (o, now) => ({ cells: [str(at(o, 'metadata', 'name')), ageCell(at(o, 'metadata', 'creationTimestamp'), now)] }),
};

export const hierarchicalResourceQuotaPrinter: Printer = {
  columns: [NAME_COLUMN, crdColumn('Request', 'string', '.status.requestsSummary'), crdColumn('Limit', 'string', '.status.limitsSummary')],
  print: (o) => ({
    cells: [str(at(o, 'metadata', 'name')), stringCell(at(o, 'status', 'requestsSummary')), stringCell(at(o, 'status', 'limitsSummary'))],
  }),
};

/** The printers by kind, for api/tables/index.ts. */
export const hncPrinters: Record<string, Printer> = {
  SubnamespaceAnchor: nameAndAge,
  HierarchyConfiguration: nameAndAge,
  HNCConfiguration: nameAndAge,
  HierarchicalResourceQuota: hierarchicalResourceQuotaPrinter,
};
