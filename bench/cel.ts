// What CEL validation rules cost per custom resource write, in process: µs per validate() of a
// 1 KiB object with 20 properties, with one typical rule and with five, beside what every write
// of that object already pays for its JSON (decode + encode) and a structural walk of it.
// Also the one-off cost of compiling the rules when a CRD is created or changed.
//
// Medians of 7 interleaved rounds (the machine is shared).
// Usage: node --import tsx bench/cel.ts [--seconds 2]  (seconds per measure, over all rounds)

import { parseArgs } from 'node:util';
import { compileValidationRules } from '../src/machinery/cel/index.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '3' } } });
const seconds = Number(values.seconds);

const properties: Record<string, unknown> = {
  replicas: { type: 'integer' },
  maxReplicas: { type: 'integer' },
  image: { type: 'string', maxLength: 256 },
  mode: { type: 'string', enum: ['a', 'b', 'c'] },
  ports: { type: 'array', maxItems: 16, items: { type: 'object', properties: { name: { type: 'string', maxLength: 15 }, port: { type: 'integer' } } } },
  labels: { type: 'object', maxProperties: 32, additionalProperties: { type: 'string', maxLength: 63 } },
};
for (let i = 0; Object.keys(properties).length < 20; i++) properties[`field${i}`] = { type: 'string', maxLength: 64 };

const spec: Record<string, unknown> = {
  replicas: 3,
  maxReplicas: 10,
  image: 'registry.example.com/team/app:v1.2.3',
  mode: 'a',
  ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }],
  labels: { app: 'web', tier: 'frontend' },
};
for (const k of Object.keys(properties)) if (!(k in spec)) spec[k] = 'x'.repeat(48);
const object = { apiVersion: 'bench.example.com/v1', kind: 'Widget', metadata: { name: 'w1', namespace: 'default' }, spec };

const oneRule = [{ rule: 'self.replicas <= self.maxReplicas', message: 'replicas must not exceed maxReplicas' }];
const fiveRules = [
  ...oneRule,
  { rule: "self.image.matches('^[a-z0-9./-]+:[a-z0-9.-]+$')" },
  { rule: 'self.ports.all(p, p.port > 0 && p.port < 65536)' },
  { rule: "!has(self.labels) || self.labels.all(k, k.size() <= 63)" },
  { rule: "self.mode in ['a', 'b', 'c']" },
];
const schemaWith = (rules: unknown[]) => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, 'x-kubernetes-validations': rules } },
});

/** µs per call of fn over a time slice. */
function slice(fn: () => unknown, ms: number): number {
  let n = 0;
  const start = process.hrtime.bigint();
  const end = start + BigInt(Math.round(ms * 1e6));
  let now = start;
  while (now < end) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
    now = process.hrtime.bigint();
  }
  return Number(now - start) / 1000 / n;
}

const measures: [string, () => unknown][] = [];
const measure = (name: string, fn: () => unknown): void => void measures.push([name, fn]);

/** Runs every measure in turn, round after round (the machine is shared and noisy), and prints medians. */
function runAll(): Map<string, number> {
  const rounds = 7;
  const perSlice = (seconds * 1000) / rounds;
  const samples = new Map<string, number[]>(measures.map(([n]) => [n, []]));
  for (const [, fn] of measures) for (let i = 0; i < 500; i++) fn(); // warm up the JIT
  for (let r = 0; r < rounds; r++) for (const [name, fn] of measures) samples.get(name)!.push(slice(fn, perSlice));
  const out = new Map<string, number>();
  for (const [name, xs] of samples) {
    xs.sort((a, b) => a - b);
    const us = xs[Math.floor(xs.length / 2)]!;
    out.set(name, us);
    console.log(`| ${name} | ${us.toFixed(2)} | ${Math.round(1e6 / us).toLocaleString('en-US')} |`);
  }
  return out;
}

function walk(v: unknown): number {
  if (Array.isArray(v)) return v.reduce((s: number, x) => s + walk(x), 1);
  if (v && typeof v === 'object') return Object.values(v).reduce((s: number, x) => s + walk(x), 1);
  return 1;
}

const json = JSON.stringify(object);
console.log(`object: ${json.length} bytes of JSON, ${Object.keys(properties).length} spec properties\n`);
console.log('| measure | µs per op | ops/s |');
console.log('| --- | ---: | ---: |');
const one = compileValidationRules(schemaWith(oneRule), 'openAPIV3Schema');
const five = compileValidationRules(schemaWith(fiveRules), 'openAPIV3Schema');
if (one.errors.length > 0 || five.errors.length > 0 || !one.rules || !five.rules) throw new Error(`rules did not compile: ${[...one.errors, ...five.errors].join('; ')}`);
if (one.rules.validate(object, undefined).length + five.rules.validate(object, undefined).length !== 0) throw new Error('the object should pass');
measure('baseline: JSON decode + encode of the object', () => JSON.stringify(JSON.parse(json)));
measure('baseline: walk of every value', () => walk(object));
measure('validate, 1 rule (self.replicas <= self.maxReplicas)', () => one.rules!.validate(object, undefined));
measure('validate, 5 rules (compare, regex, 2 comprehensions, in)', () => five.rules!.validate(object, undefined));
measure('validate, 5 rules, update (old object too)', () => five.rules!.validate(object, object));
measure('compile the CRD schema, 1 rule', () => compileValidationRules(schemaWith(oneRule), 'openAPIV3Schema'));
measure('compile the CRD schema, 5 rules', () => compileValidationRules(schemaWith(fiveRules), 'openAPIV3Schema'));
const r = runAll();
const base = r.get('baseline: JSON decode + encode of the object')!;
const u1 = r.get('validate, 1 rule (self.replicas <= self.maxReplicas)')!;
const u5 = r.get('validate, 5 rules (compare, regex, 2 comprehensions, in)')!;
console.log(`\n1 rule costs ${(u1 / base).toFixed(2)}x the JSON round trip of the object; 5 rules ${(u5 / base).toFixed(2)}x.`);
