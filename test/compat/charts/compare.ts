// Compares the chart pass's outcomes on apiary with the reference's, step by
// step and field by field (exit code, error classes, release status, each
// object's generation and managers), and reports what differs; an entry of
// allow-list.json (chart, step and field globs, each with its reason) accepts
// a difference. Entries that no longer match anything are reported (stale).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StepOutcome } from './steps.js';

export interface ChartAllowEntry {
  chart: string;
  step: string;
  /** 'exit', 'errors', 'release', or 'objects.<kind/namespace/name>' (globs). */
  field: string;
  reason: string;
}

export interface ChartDifference {
  chart: string;
  step: string;
  field: string;
  apiary: string;
  reference: string;
  allowedBy?: ChartAllowEntry;
}

export const CHART_ALLOW_LIST = join(dirname(fileURLToPath(import.meta.url)), 'allow-list.json');

export function loadChartAllowList(file = CHART_ALLOW_LIST): ChartAllowEntry[] {
  const entries = JSON.parse(readFileSync(file, 'utf8')) as ChartAllowEntry[];
  for (const e of entries) {
    if (!e.chart || !e.step || !e.field || !e.reason?.trim()) throw new Error(`chart allow-list entry without chart, step, field or reason: ${JSON.stringify(e)}`);
    if (e.chart === '*' && e.step === '*' && e.field === '*') throw new Error(`chart allow-list entry too broad: ${JSON.stringify(e)}`);
  }
  return entries;
}

const glob = (pattern: string): RegExp => new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);

export function compareOutcomes(apiary: StepOutcome[], reference: StepOutcome[], allow: ChartAllowEntry[]): { steps: number; differingSteps: number; differences: ChartDifference[]; stale: ChartAllowEntry[] } {
  const differences: ChartDifference[] = [];
  const key = (o: StepOutcome): string => `${o.chart}\u0000${o.step}`;
  const ref = new Map(reference.map((o) => [key(o), o]));
  const seen = new Set<string>();
  const differing = new Set<string>();
  const add = (o: StepOutcome, field: string, a: unknown, r: unknown): void => {
    const d: ChartDifference = { chart: o.chart, step: o.step, field, apiary: String(a ?? '(none)'), reference: String(r ?? '(none)') };
    const entry = allow.find((e) => glob(e.chart).test(d.chart) && glob(e.step).test(d.step) && glob(e.field).test(d.field));
    if (entry) d.allowedBy = entry;
    differences.push(d);
    differing.add(key(o));
  };
  for (const a of apiary) {
    seen.add(key(a));
    const r = ref.get(key(a));
    if (r === undefined) {
      add(a, 'step', 'ran', 'did not run');
      continue;
    }
    if (a.exit !== r.exit) add(a, 'exit', a.exit, r.exit);
    if (a.errors !== r.errors) add(a, 'errors', a.errors, r.errors);
    if (a.release !== r.release) add(a, 'release', a.release, r.release);
    const names = new Set([...Object.keys(a.objects ?? {}), ...Object.keys(r.objects ?? {})]);
    for (const n of [...names].sort()) {
      const av = a.objects?.[n];
      const rv = r.objects?.[n];
      if (av !== rv) add(a, `objects.${n}`, av, rv);
    }
  }
  for (const r of reference) if (!seen.has(key(r))) add(r, 'step', 'did not run', 'ran');
  const used = new Set(differences.map((d) => d.allowedBy).filter((e) => e !== undefined));
  return { steps: apiary.length, differingSteps: differing.size, differences, stale: allow.filter((e) => !used.has(e)) };
}
