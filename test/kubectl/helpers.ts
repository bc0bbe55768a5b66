// Shared by the real-kubectl suite: one server per test file, kubectl run
// sequentially against it, and small assertions on kubectl's table output.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { runKubectl, type KubectlOptions, type KubectlResult } from '../helpers/kubectl.js';
import { request } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export interface Kubectl {
  server: TestServer;
  /** Runs kubectl; never throws on a non-zero exit. */
  run(args: string[], options?: KubectlOptions): Promise<KubectlResult>;
  /** Runs kubectl, asserts exit 0, returns stdout. */
  ok(args: string[], options?: KubectlOptions): Promise<string>;
  /** Runs kubectl, asserts a non-zero exit, returns stderr. */
  fails(args: string[], options?: KubectlOptions): Promise<string>;
}

/** Starts a server with the default namespace (which a cluster always has) and binds kubectl to it. */
export async function kubectlAgainstNewServer(options: Parameters<typeof startTestServer>[0] = {}): Promise<Kubectl> {
  const server = await startTestServer(options);
  const created = await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } });
  assert.equal(created.status, 201, created.text);
  const run = (args: string[], options?: KubectlOptions): Promise<KubectlResult> => runKubectl(server.kubeconfigPath, args, options);
  return {
    server,
    run,
    async ok(args, options) {
      const r = await run(args, options);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
      return r.stdout;
    },
    async fails(args, options) {
      const r = await run(args, options);
      assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should have failed: ${r.stdout}`);
      return r.stderr;
    },
  };
}

/** kubectl's table output as rows of cells (columns are separated by at least two spaces, or three after padding). */
export function tableRows(text: string): string[][] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => line.trim().split(/\s{2,}/));
}

/** Asserts the header row and returns the data rows. */
export function expectTable(text: string, header: string[]): string[][] {
  const rows = tableRows(text);
  assert.deepEqual(rows[0], header, `unexpected header in:\n${text}`);
  return rows.slice(1);
}

/** A kubectl process left running (get -w), its output so far, and a way to stop it. */
export interface RunningKubectl {
  output(): string;
  /** Resolves once stdout matches `pattern` (fails after `ms`). */
  waitFor(pattern: RegExp, ms?: number): Promise<string>;
  stop(): Promise<void>;
}

export function startKubectl(kubeconfigPath: string, args: string[]): RunningKubectl {
  const child = spawn('kubectl', ['--kubeconfig', kubeconfigPath, ...args], {
    env: { ...process.env, KUBECACHEDIR: `${kubeconfigPath}.cache` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return {
    output: () => stdout,
    async waitFor(pattern, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(stdout)) {
        if (Date.now() > deadline) throw new Error(`kubectl ${args.join(' ')}: no ${pattern} in:\n${stdout}\nstderr:\n${stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      return stdout;
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
