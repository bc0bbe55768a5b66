// One chart's steps on one server, with Helm and kubectl as a user runs them:
// helm install (--wait=false), upgrade with a changed value, rollback to the
// first revision, uninstall; then, in a namespace of its own, the rendered
// manifests (CRDs included) with kubectl: apply, re-apply, diff, apply
// --server-side, diff --server-side; then a custom resource of every CRD,
// created and read. Each step's outcome is what a user sees: the exit code,
// the class of the error (the Status reasons kubectl and Helm print, Helm's
// failure kind), the release's status, and for the chart's objects their
// generation and who manages them (manager and operation, main resource only:
// the reference runs no workload controllers writing status).

import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChartFixture } from './corpus.js';

export interface Tools {
  helm: string;
  /** A kubeconfig for the server, and a directory of this run's own (Helm's cache and config). */
  kubeconfig: string;
  workDir: string;
  fixturesDir: string;
}

export interface StepOutcome {
  chart: string;
  step: string;
  exit: number;
  /** Sorted error classes found in the output ('' when none). */
  errors: string;
  /** The release's status after a Helm step. */
  release?: string;
  /** kind/namespace/name → "generation=N managers=a:Update,b:Apply" after the step. */
  objects?: Record<string, string>;
  /** The raw output, for the report (not compared). */
  output: string;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** The error classes a user reads in kubectl's and Helm's output. */
export function errorClasses(text: string): string {
  const found = new Set<string>();
  for (const m of text.matchAll(/Error from server \((\w+)\)/g)) found.add(m[1]!);
  for (const m of text.matchAll(/Error: (INSTALLATION FAILED|UPGRADE FAILED|ROLLBACK FAILED|UNINSTALL FAILED|uninstall: Release not loaded)/g)) found.add(m[1]!);
  if (/Apply failed with \d+ conflicts?/.test(text)) found.add('Conflicts');
  if (/ is invalid: /.test(text)) found.add('Invalid');
  if (/Internal error occurred|InternalError/.test(text)) found.add('InternalError');
  if (/failed to create resource|failed to create typed patch object/.test(text)) found.add('CreateFailed');
  if (/no matches for kind|ensure CRDs are installed first/.test(text)) found.add('NoKindMatch');
  return [...found].sort().join(',');
}

interface ListedObject {
  kind?: string;
  metadata?: { name?: string; namespace?: string; generation?: number; managedFields?: { manager?: string; operation?: string; subresource?: string; fieldsV1?: unknown }[] };
}

function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`).join(',')}}`;
}

export async function runChart(chart: ChartFixture, tools: Tools): Promise<StepOutcome[]> {
  const dir = join(tools.workDir, chart.name);
  mkdirSync(dir, { recursive: true });
  const env = {
    KUBECONFIG: tools.kubeconfig,
    KUBECACHEDIR: join(tools.workDir, 'kube-cache'),
    HELM_CACHE_HOME: join(tools.workDir, 'helm-cache'),
    HELM_CONFIG_HOME: join(tools.workDir, 'helm-config'),
    HELM_DATA_HOME: join(tools.workDir, 'helm-data'),
  };
  const chartFile = join(tools.fixturesDir, `${chart.name}.tgz`);
  const helmNs = `h-${chart.name}`;
  const kubectlNs = `k-${chart.name}`;
  const rel = chart.name.slice(0, 30);
  const out: StepOutcome[] = [];
  // `{ns}` in a value is the namespace the chart goes to
  const sets = (values: string[], ns = helmNs): string[] => values.flatMap((v) => ['--set', v.replaceAll('{ns}', ns)]);
  const hooks = chart.noHooks === true ? ['--no-hooks'] : [];
  const helm = (args: string[]): Promise<Run> => run(tools.helm, args, env);
  const kubectl = (args: string[]): Promise<Run> => run('kubectl', args, env);

  // the chart's objects as the release renders them, for reading them back after each step
  const rendered = async (values: string[], ns: string): Promise<string> => {
    const r = await helm(['template', rel, chartFile, '-n', ns, '--include-crds', '--kube-version', 'v1.32.4', ...sets(values, ns)]);
    if (r.code !== 0) throw new Error(`helm template ${chart.name} failed: ${r.stderr}`);
    const file = join(dir, `manifest-${ns}-${values.join('_').replace(/[^\w.=-]/g, '')}.yaml`);
    writeFileSync(file, r.stdout);
    return file;
  };
  const snapshot = async (file: string, ns: string): Promise<Record<string, string>> => {
    const r = await kubectl(['get', '-f', file, '-n', ns, '-o', 'json', '--show-managed-fields', '--ignore-not-found']);
    const objects: Record<string, string> = {};
    if (r.stdout.trim() === '') return objects;
    const parsed = JSON.parse(r.stdout) as { items?: ListedObject[] } & ListedObject;
    const items = parsed.items ?? [parsed];
    for (const o of items) {
      const m = o.metadata ?? {};
      const entries = (m.managedFields ?? []).filter((e) => (e.subresource ?? '') === '');
      const managers = entries.map((e) => `${e.manager}:${e.operation}`).sort();
      const id = `${o.kind}/${m.namespace ?? ''}/${m.name}`;
      objects[id] = `generation=${m.generation ?? '-'} managers=${managers.join(',')}`;
      // the fields each manager owns
      for (const e of entries) objects[`${id} fields of ${e.manager}:${e.operation}`] = stableJson(e.fieldsV1);
    }
    return objects;
  };
  const releaseStatus = async (): Promise<string> => {
    const r = await helm(['status', rel, '-n', helmNs, '-o', 'json']);
    if (r.code !== 0) return 'absent';
    return (JSON.parse(r.stdout) as { info?: { status?: string } }).info?.status ?? '?';
  };
  const record = (step: string, r: Run, extra: Partial<StepOutcome> = {}): void => {
    const text = `${r.stdout}\n${r.stderr}`;
    out.push({ chart: chart.name, step, exit: r.code, errors: errorClasses(text), output: text.trim().slice(0, 4000), ...extra });
  };

  const installed = await rendered(chart.install, helmNs);
  const upgraded = await rendered(chart.upgrade, helmNs);
  const helmStep = async (step: string, args: string[], manifest: string): Promise<void> => {
    const r = await helm(args);
    record(step, r, { release: await releaseStatus(), objects: await snapshot(manifest, helmNs) });
  };
  await helmStep('helm install', ['install', rel, chartFile, '-n', helmNs, '--create-namespace', '--wait=false', ...hooks, ...sets(chart.install)], installed);
  await helmStep('helm upgrade (a changed value)', ['upgrade', rel, chartFile, '-n', helmNs, '--wait=false', ...hooks, ...sets(chart.upgrade)], upgraded);
  await helmStep('helm rollback to revision 1', ['rollback', rel, '1', '-n', helmNs, '--wait=false', ...hooks], installed);
  const history = await helm(['history', rel, '-n', helmNs, '-o', 'json']);
  const revisions = history.code === 0 ? (JSON.parse(history.stdout) as { revision: number; status: string }[]).map((h) => `${h.revision}:${h.status}`).join(' ') : 'none';
  record('helm history', history, { release: revisions });
  await helmStep('helm uninstall', ['uninstall', rel, '-n', helmNs, '--wait', '--timeout', '60s', ...hooks], installed);

  // kubectl on the rendered manifests, in a namespace of their own
  await kubectl(['create', 'namespace', kubectlNs]);
  const manifest = await rendered(chart.install, kubectlNs);
  const kubectlStep = async (step: string, args: string[], objectsOf = manifest): Promise<void> => {
    const r = await kubectl(args);
    record(step, r, { objects: await snapshot(objectsOf, kubectlNs) });
  };
  await kubectlStep('kubectl apply', ['apply', '-n', kubectlNs, '-f', manifest]);
  await kubectlStep('kubectl apply (unchanged, again)', ['apply', '-n', kubectlNs, '-f', manifest]);
  record('kubectl diff (unchanged)', await kubectl(['diff', '-n', kubectlNs, '-f', manifest]));
  await kubectlStep('kubectl apply --server-side', ['apply', '--server-side', '-n', kubectlNs, '-f', manifest]);
  record('kubectl diff --server-side (unchanged)', await kubectl(['diff', '--server-side', '-n', kubectlNs, '-f', manifest]));

  for (const [i, text] of chart.customResources.entries()) {
    const file = join(dir, `cr-${i}.yaml`);
    writeFileSync(file, text.replaceAll('{ns}', kubectlNs));
    const kind = /^kind: (\w+)$/m.exec(text)?.[1] ?? `#${i}`;
    await kubectlStep(`custom resource ${kind}: create`, ['create', '-n', kubectlNs, '-f', file], file);
    await kubectlStep(`custom resource ${kind}: read`, ['get', '-n', kubectlNs, '-f', file, '-o', 'name'], file);
  }
  return out;
}
