// Runs the differential cases from the command line and prints the report,
// for working on cases and fixes without the whole test pass:
//
//   node --import tsx test/compat/differential/run.ts [--ref-url URL --ref-token TOKEN] [--json FILE] [--summary] [case name substring …]
//
// Without --ref-url it starts its own reference (as the test does). Filtered
// runs do not report stale allow-list entries. Exit status 1 on unlisted
// differences. It lists every known difference with the entry that allows
// it (--summary: one line per entry, as the test prints); --json writes every
// step's differences to FILE.

import { writeFileSync } from 'node:fs';
import { buildReport, loadAllowList } from './allow-list.js';
import { startApiary } from './apiary.js';
import { startReference } from './reference.js';
import { loadCases, runCases } from './runner.js';
import type { Target } from './client.js';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const refUrl = option('--ref-url');
const refToken = option('--ref-token');
const jsonFile = option('--json');
const summary = args.includes('--summary');
if (summary) args.splice(args.indexOf('--summary'), 1);
const filters = args;

const all = await loadCases();
const cases = filters.length === 0 ? all : all.filter((c) => filters.some((f) => c.name.includes(f)));
const apiary = await startApiary();
const reference = refUrl === undefined ? await startReference() : { target: { name: 'reference', base: refUrl, token: refToken } as Target, stop: async () => {} };
try {
  const started = Date.now();
  const results = await runCases(cases, apiary.target, reference.target, {
    namespacePrefix: `${refUrl === undefined ? 'diff' : 'fidelity-harness'}-${Math.random().toString(36).slice(2, 6)}-`,
  });
  if (jsonFile !== undefined) writeFileSync(jsonFile, JSON.stringify(results, null, 1));
  const report = buildReport(results, loadAllowList(), !summary);
  const text = filters.length === 0 ? report.text : report.text.split('\nallow-list entries that no longer occur')[0]!;
  console.log(text);
  console.log(`\n${cases.length} cases in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exitCode = report.unlisted.length > 0 || (filters.length === 0 && (report.stale.length > 0 || report.overCeiling.length > 0)) ? 1 : 0;
} finally {
  await reference.stop();
  await apiary.stop();
}
