// The reviewed list of known differences (allow-list.json) and the report.
//
// An entry names a case, optionally a step (its index or title), and the
// path of the difference, each as a glob (`*` matches anything), with the
// reason the difference is accepted for now. A difference no entry covers
// fails the test; so does an entry that covered nothing in a full run (the
// list stays honest: a fixed divergence must leave it).

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { show, type Difference } from './diff.js';
import type { StepResult } from './runner.js';

export interface AllowEntry {
  case: string;
  /** A step index, or a glob on the step's title; absent = every step. */
  step?: number | string;
  /** A glob on the difference's path (`body.details.causes[0].message`). */
  path: string;
  reason: string;
  /**
   * For a broad entry (a wildcard case or path): the most steps it may cover.
   * A new difference hiding under a broad entry then fails the run instead of
   * passing unseen; raising the ceiling is a reviewed change like any entry.
   */
  maxSteps?: number;
}

export const ALLOW_LIST_FILE = join(dirname(fileURLToPath(import.meta.url)), 'allow-list.json');

export function loadAllowList(file = ALLOW_LIST_FILE): AllowEntry[] {
  const entries = JSON.parse(readFileSync(file, 'utf8')) as AllowEntry[];
  for (const e of entries) {
    if (typeof e.case !== 'string' || typeof e.path !== 'string' || typeof e.reason !== 'string' || e.reason.trim() === '') {
      throw new Error(`allow-list entry without case, path or reason: ${JSON.stringify(e)}`);
    }
    if (e.maxSteps !== undefined && !(Number.isInteger(e.maxSteps) && e.maxSteps > 0)) {
      throw new Error(`allow-list entry with a maxSteps that is not a positive integer: ${JSON.stringify(e)}`);
    }
  }
  return entries;
}

function glob(pattern: string): RegExp {
  return new RegExp(`^${pattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

function covers(entry: AllowEntry, result: StepResult, d: Difference): boolean {
  if (!glob(entry.case).test(result.caseName)) return false;
  if (typeof entry.step === 'number' && entry.step !== result.step) return false;
  if (typeof entry.step === 'string' && !glob(entry.step).test(result.title)) return false;
  return glob(entry.path).test(d.path);
}

export interface Report {
  steps: number;
  same: number;
  /** Differences no entry covers. */
  unlisted: { result: StepResult; difference: Difference }[];
  /** Differences an entry covers, with the first such entry. */
  allowed: { result: StepResult; difference: Difference; entry: AllowEntry }[];
  /** Entries that covered nothing. */
  stale: AllowEntry[];
  /** Entries that covered more steps than their maxSteps. */
  overCeiling: { entry: AllowEntry; steps: number }[];
  text: string;
}

/** `detailed` lists every known difference; otherwise one line per allow-list entry. */
export function buildReport(results: StepResult[], entries: AllowEntry[], detailed = false): Report {
  const used = new Set<AllowEntry>();
  const stepsOf = new Map<AllowEntry, Set<StepResult>>();
  const unlisted: Report['unlisted'] = [];
  const allowed: Report['allowed'] = [];
  for (const result of results) {
    for (const difference of result.differences) {
      const matching = entries.filter((e) => covers(e, result, difference));
      for (const e of matching) {
        used.add(e);
        stepsOf.set(e, (stepsOf.get(e) ?? new Set()).add(result));
      }
      if (matching.length === 0) unlisted.push({ result, difference });
      else allowed.push({ result, difference, entry: matching[0]! });
    }
  }
  const same = results.filter((r) => r.differences.length === 0).length;
  const stale = entries.filter((e) => !used.has(e));
  const overCeiling = entries
    .filter((e) => e.maxSteps !== undefined && (stepsOf.get(e)?.size ?? 0) > e.maxSteps)
    .map((entry) => ({ entry, steps: stepsOf.get(entry)!.size }));
  const where = (r: StepResult): string => `${r.caseName} › step ${r.step}${r.title ? ` (${r.title})` : ''} ${r.request}`;
  const line = (r: StepResult, d: Difference): string => `  ${where(r)}\n      ${d.path || '(answer)'}: apiary ${show(d.apiary)} · reference ${show(d.reference)}`;
  const lines = [`differential: ${same} same of ${results.length} steps (${allowed.length} known differences, ${unlisted.length} unlisted)`];
  if (unlisted.length > 0) lines.push('', 'differences not in the allow-list:', ...unlisted.map(({ result, difference }) => line(result, difference)));
  if (allowed.length > 0 && detailed) {
    lines.push('', 'known differences (allow-list.json):');
    for (const { result, difference, entry } of allowed) lines.push(`${line(result, difference)}\n      allowed: ${entry.reason}`);
  } else if (allowed.length > 0) {
    lines.push('', 'known differences (allow-list.json), by entry:');
    const byEntry = new Map<AllowEntry, { steps: Set<StepResult>; count: number }>();
    for (const { result, entry } of allowed) {
      const seen = byEntry.get(entry) ?? { steps: new Set(), count: 0 };
      seen.steps.add(result);
      seen.count++;
      byEntry.set(entry, seen);
    }
    for (const [entry, { steps, count }] of byEntry) {
      lines.push(`  ${count} in ${steps.size} steps (${entry.case}${entry.step === undefined ? '' : ` › ${entry.step}`} › ${entry.path}): ${entry.reason}`);
    }
  }
  if (stale.length > 0) lines.push('', 'allow-list entries that no longer occur (remove them):', ...stale.map((e) => `  ${JSON.stringify(e)}`));
  if (overCeiling.length > 0) {
    lines.push(
      '',
      'allow-list entries covering more steps than their maxSteps (a new difference hides under them: fix it, or review and raise the ceiling):',
      ...overCeiling.map(({ entry, steps }) => `  ${steps} steps > maxSteps ${entry.maxSteps}: ${entry.case} › ${entry.path}`),
    );
  }
  return { steps: results.length, same, unlisted, allowed, stale, overCeiling, text: lines.join('\n') };
}
