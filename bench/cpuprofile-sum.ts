// Sums a V8 .cpuprofile (node --cpu-prof) by self time: the top functions and
// the top files, in µs per operation when given the count of operations, else
// in ms. For reading bench/profile-ops.ts's profiles without a browser.
//
//   node --import tsx bench/cpuprofile-sum.ts FILE.cpuprofile [operations] [top=40]

import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, opsArg, topArg] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: cpuprofile-sum.ts FILE.cpuprofile [operations] [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const ops = opsArg ? Number(opsArg) : 0;
const top = Number(topArg ?? 40);

// Self time per node: each sample's delta goes to the node sampled. The
// profiler samples by the wall clock: a thread that waited for a core gets the
// whole wait charged to where it resumed (often the syscall that woke a peer
// thread). CAP_US (say, the sampling interval) caps each sample's weight, so
// the figures approach CPU time on a loaded machine.
const cap = Number(process.env['CAP_US'] ?? Infinity);
const selfUs = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  selfUs.set(id, (selfUs.get(id) ?? 0) + Math.min(cap, profile.timeDeltas[i] ?? 0));
}
const byFunction = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
for (const node of profile.nodes) {
  const us = selfUs.get(node.id) ?? 0;
  if (us === 0) continue;
  const { functionName, url, lineNumber } = node.callFrame;
  const shortUrl = url.replace(/^file:\/\/.*?\/(dist|src|node_modules)\//, '$1/');
  const fn = `${functionName || '(anonymous)'} ${shortUrl}:${lineNumber + 1}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
  const f = shortUrl || `(${functionName})`;
  byFile.set(f, (byFile.get(f) ?? 0) + us);
  total += us;
}
const fmt = (us: number): string => (ops > 0 ? `${(us / ops).toFixed(1)} µs/op` : `${(us / 1000).toFixed(1)} ms`);
const print = (title: string, rows: Map<string, number>): void => {
  console.log(`\n${title}`);
  for (const [name, us] of [...rows].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${fmt(us).padStart(14)} ${((100 * us) / total).toFixed(1).padStart(5)}%  ${name}`);
  }
};
console.log(`${file}: ${fmt(total)} sampled`);
print('self time by function', byFunction);
print('self time by file', byFile);

// CALLERS=name: the call stacks (three frames up) that the named function's self time came from.
const callersOf = process.env['CALLERS'];
if (callersOf !== undefined) {
  const parent = new Map<number, ProfileNode>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node);
  }
  const stacks = new Map<string, number>();
  for (const node of profile.nodes) {
    if (node.callFrame.functionName !== callersOf) continue;
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0) continue;
    const frames: string[] = [];
    for (let p = parent.get(node.id); p !== undefined && frames.length < Number(process.env['DEPTH'] ?? 4); p = parent.get(p.id)) {
      frames.push(`${p.callFrame.functionName || '(anonymous)'}@${p.callFrame.url.replace(/^.*\/(dist|src)\//, '')}:${p.callFrame.lineNumber + 1}`);
    }
    const key = frames.join(' < ');
    stacks.set(key, (stacks.get(key) ?? 0) + us);
  }
  print(`callers of ${callersOf}`, stacks);
}
