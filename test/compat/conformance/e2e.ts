// Upstream's e2e binary (k8s.io/kubernetes/test/e2e v1.32.4, built by
// scripts/run-tests.mjs from test/compat/e2e) driven without the ginkgo CLI:
//
// - listSpecs() asks the binary itself (a ginkgo dry run with a JSON report)
//   which specs a focus/skip selection holds, with the suite's description;
// - runSpecs() runs exactly the named specs in one e2e.test process (one
//   anchored --ginkgo.focus per spec), its output in a log file, and reads
//   ginkgo's JSON report back: one result per spec; a spec the process never
//   reached (its --ginkgo.timeout, a crash) is 'not run'.
// Several runSpecs() at once are how the pass runs specs in parallel: each
// spec makes its own namespace, as the framework does under the ginkgo CLI.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export const E2E_BINARY = process.env['E2E_TEST_BIN'] ?? resolve(HERE, '../e2e/bin/e2e.test');

export type SpecState = 'passed' | 'failed' | 'skipped' | 'pending' | 'panicked' | 'timedout' | 'interrupted' | 'aborted' | 'not run';

export interface SpecResult {
  name: string;
  state: SpecState;
  seconds: number;
  /** The failure's message (first lines), for failed specs. */
  message?: string;
}

export interface SpecList {
  /** The suite description ginkgo prepends to every spec's text when matching --ginkgo.focus. */
  suite: string;
  specs: string[];
}

/** ginkgo's JSON report (types.Report), the fields read here. */
interface GinkgoReport {
  SuiteDescription: string;
  SpecReports?: Array<{
    ContainerHierarchyTexts: string[] | null;
    LeafNodeText: string;
    LeafNodeType: string;
    State: string;
    RunTime: number;
    Failure?: { Message?: string; Location?: { FileName?: string; LineNumber?: number } };
  }>;
}

/** The spec's text as ginkgo builds it (spec.Text()): the non-empty node texts, joined by spaces. */
function specText(r: { ContainerHierarchyTexts: string[] | null; LeafNodeText: string }): string {
  return [...(r.ContainerHierarchyTexts ?? []), r.LeafNodeText].filter((t) => t !== '').join(' ');
}

/** A Go (RE2) regular expression matching the text literally. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** ginkgo's report, or undefined when the process left none (or only part of one: it was killed while writing). */
function readReport(path: string): GinkgoReport | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const reports = JSON.parse(readFileSync(path, 'utf8')) as GinkgoReport[];
    return reports[0];
  } catch {
    return undefined;
  }
}

interface ProcessOptions {
  args: string[];
  logFile: string;
  /** Kill the process group after this long (a last resort: --ginkgo.timeout ends it first). */
  killAfterMs: number;
  env?: NodeJS.ProcessEnv;
}

function runE2e({ args, logFile, killAfterMs, env }: ProcessOptions): Promise<number | null> {
  return new Promise((done) => {
    const log = createWriteStream(logFile);
    const child = spawn(E2E_BINARY, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    const killer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, killAfterMs);
    child.once('error', (err) => log.write(`\nspawn ${E2E_BINARY} failed: ${err.message}\n`));
    child.once('close', (code) => {
      clearTimeout(killer);
      log.end(() => done(code));
    });
  });
}

/** The specs a focus/skip selection holds, in the suite's order. */
export async function listSpecs(dir: string, focus: string[], skip: string[]): Promise<SpecList> {
  const report = join(dir, 'dry-run.json');
  const code = await runE2e({
    args: ['--provider=skeleton', '--ginkgo.dry-run', `--ginkgo.json-report=${report}`, ...focus.map((f) => `--ginkgo.focus=${f}`), ...skip.map((s) => `--ginkgo.skip=${s}`)],
    logFile: join(dir, 'dry-run.log'),
    killAfterMs: 120_000,
  });
  const parsed = readReport(report);
  if (parsed === undefined) throw new Error(`e2e.test --ginkgo.dry-run wrote no report (exit ${code}): ${readFileSync(join(dir, 'dry-run.log'), 'utf8').slice(-3000)}`);
  const specs = (parsed.SpecReports ?? []).filter((r) => r.LeafNodeType === 'It' && r.State === 'passed').map(specText);
  return { suite: parsed.SuiteDescription, specs };
}

export interface RunOptions {
  suite: string;
  specs: string[];
  kubeconfig: string;
  /** Where the report, the log and the framework's output go (prefix: the file names' start). */
  dir: string;
  prefix: string;
  /** ginkgo's suite timeout for this process, in seconds. */
  timeoutSeconds: number;
}

/** Runs the named specs in one e2e.test process; one result per spec, in the order given. */
export async function runSpecs(options: RunOptions): Promise<SpecResult[]> {
  const { suite, specs, kubeconfig, dir, prefix, timeoutSeconds } = options;
  if (specs.length === 0) return [];
  const report = join(dir, `${prefix}.json`);
  await runE2e({
    args: [
      `--kubeconfig=${kubeconfig}`,
      '--provider=skeleton',
      `--report-dir=${dir}`,
      `--report-prefix=${prefix}`,
      `--e2e-output-dir=${dir}`,
      `--ginkgo.json-report=${report}`,
      `--ginkgo.timeout=${timeoutSeconds}s`,
      // After the timeout, the interrupted spec's cleanup gets this long before ginkgo gives up on it.
      '--ginkgo.grace-period=20s',
      '--ginkgo.no-color',
      '--ginkgo.v',
      // Dumping a failed spec's namespace (events, pods) costs time and is in the log already.
      '--dump-logs-on-failure=false',
      ...specs.map((s) => `--ginkgo.focus=^${literal(`${suite} ${s}`)}$`),
    ],
    logFile: join(dir, `${prefix}.log`),
    killAfterMs: (timeoutSeconds + 120) * 1000,
  });
  const byName = new Map<string, SpecResult>();
  for (const r of readReport(report)?.SpecReports ?? []) {
    if (r.LeafNodeType !== 'It') continue;
    const name = specText(r);
    const result: SpecResult = { name, state: r.State as SpecState, seconds: Math.round(r.RunTime / 1e8) / 10 };
    if (r.State !== 'passed' && r.State !== 'skipped' && r.Failure?.Message) {
      const where = r.Failure.Location?.FileName ? ` (${r.Failure.Location.FileName.replace(/.*\/test\/e2e\//, 'test/e2e/')}:${r.Failure.Location.LineNumber})` : '';
      result.message = r.Failure.Message.split('\n').slice(0, 6).join('\n').slice(0, 600) + where;
    }
    byName.set(name, result);
  }
  return specs.map((name) => byName.get(name) ?? { name, state: 'not run', seconds: 0 });
}
