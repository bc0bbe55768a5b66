// Runs the real kubectl binary against a kubeconfig, for end-to-end tests that
// use kubectl as a witness of wire compatibility. Fails loudly (throws) when
// kubectl is not installed rather than skipping: a missing witness is a broken
// test environment, not a passing test.

import { spawn, spawnSync } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  /** Written to kubectl's standard input (for `-f -`). */
  stdin?: string;
  /** Extra environment variables. */
  env?: Record<string, string>;
  /** Kill kubectl after this many milliseconds (default 30 s). */
  timeoutMs?: number;
}

let kubectlChecked = false;

function ensureKubectl(): void {
  if (kubectlChecked) return;
  const probe = spawnSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(`kubectl is required for this test but could not be run: ${probe.error?.message ?? probe.stderr}`);
  }
  kubectlChecked = true;
}

export async function runKubectl(kubeconfigPath: string, args: string[], options: KubectlOptions = {}): Promise<KubectlResult> {
  ensureKubectl();
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['--kubeconfig', kubeconfigPath, ...args], {
      // Keep kubectl's discovery cache inside the test's own area, not the user's home.
      env: { ...process.env, KUBECACHEDIR: `${kubeconfigPath}.cache`, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}
