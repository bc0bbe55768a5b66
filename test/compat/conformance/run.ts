// A conformance run by hand, for working on one spec: the cluster(s) of
// cluster.ts, the specs a focus selects, each result with its failure.
//   node --import tsx test/compat/conformance/run.ts [--side apiary|reference|both] [--procs N]
//        [--keep] [--timeout SECONDS] [--json FILE] FOCUS_REGEX…
// Without a focus: the pass's whole selection (skip.json not applied).
// --keep leaves the directory with the reports, the e2e logs and the servers' logs.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startApiarySide, startReferenceSide, type Side } from './cluster.js';
import { listSpecs, runSpecs, type SpecResult } from './e2e.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    side: { type: 'string', default: 'apiary' },
    procs: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    timeout: { type: 'string', default: '900' },
    json: { type: 'string' },
  },
});
const focus = positionals.length > 0 ? positionals : ['\\[sig-(api-machinery|auth|apps)\\] .*\\[Conformance\\]'];
const dir = mkdtempSync(join(tmpdir(), 'apiary-conformance-run-'));
const selection = await listSpecs(dir, focus, []);
console.log(`${selection.specs.length} specs`);
const which = values.side === 'both' ? ['apiary', 'reference'] : [values.side!];
const sides: Side[] = [];
try {
  const started = await Promise.all(which.map((w) => (w === 'apiary' ? startApiarySide(join(dir, 'apiary')) : startReferenceSide(join(dir, 'reference')))));
  sides.push(...started);
  const procs = Number(values.procs);
  const results = await Promise.all(
    sides.map(async (side) => {
      const lists: string[][] = Array.from({ length: procs }, () => []);
      selection.specs.forEach((s, i) => lists[i % procs]!.push(s));
      const out = await Promise.all(
        lists.map((specs, i) =>
          runSpecs({ suite: selection.suite, specs, kubeconfig: side.kubeconfig, dir: join(dir, side.name), prefix: `run-${i}`, timeoutSeconds: Number(values.timeout) }),
        ),
      );
      return [side.name, out.flat()] as [string, SpecResult[]];
    }),
  );
  for (const [name, list] of results) {
    console.log(`\n== ${name}: ${list.filter((r) => r.state === 'passed').length}/${list.length} passed`);
    for (const r of list) console.log(`${r.state.padEnd(8)} ${String(r.seconds).padStart(6)}s ${r.name}${r.message ? `\n    ${r.message.replace(/\n/g, '\n    ')}` : ''}`);
  }
  if (values.json !== undefined) writeFileSync(values.json, JSON.stringify(Object.fromEntries(results), null, 2));
} finally {
  await Promise.all(sides.map((s) => s.stop()));
  if (values.keep) console.log(`kept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
