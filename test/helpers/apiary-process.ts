// `apiary serve` (or any apiary command) as a child process, for the tests and
// benchmarks that need a real process: one way to spawn it through tsx, find
// the URL it prints, collect its output and stop it.
//
// Contract:
// - spawnApiary(args) starts `node [nodeArgs] --import tsx src/cli/main.ts ...args`
//   at once; `url` resolves with the URL from its "listening on http(s)://…" line,
//   and rejects (with the output so far) if the process exits first or prints
//   none within urlTimeoutMs. A caller that may never see a URL (a command
//   expected to fail) must handle that rejection.
// - Output: stdout and stderr are kept (the last MAX_OUTPUT characters) for
//   output(); with stderr 'inherit' the child's stderr goes to ours instead.
//   onLine sees every complete stdout line (structured logs).
// - stop(signal) signals the child unless it has exited, waits for the exit
//   (SIGKILL after killAfterMs) and resolves with the exit code (null when a
//   signal ended it). Calling it again, or after the exit, just waits.
// - startApiary(args) is spawnApiary with the URL awaited.
// - spawnNode(nodeArgs) is the same for any Node child that prints
//   "listening on http://…" (the benchmarks' bare node:http ceiling).

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const APIARY_MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** How much output a process keeps for output(): its tail. */
const MAX_OUTPUT = 1 << 20;

export interface ApiaryProcessOptions {
  /** Node flags before `--import tsx` (--cpu-prof, …). */
  nodeArgs?: string[];
  /** 'inherit' passes the child's stderr through (benchmarks); default: captured into output(). */
  stderr?: 'capture' | 'inherit';
  /** Called with every complete stdout line. */
  onLine?: (line: string) => void;
  /** How long to wait for the URL (default 60 s). */
  urlTimeoutMs?: number;
  /**
   * `serve` with its secure defaults (TLS, authentication, RBAC). Default
   * false: the tests talk plain HTTP without credentials, so `serve` gets
   * --insecure-serving.
   */
  secure?: boolean;
}

export interface ApiaryProcess {
  child: ChildProcess;
  /** The URL the process printed once it listens. */
  url: Promise<string>;
  /** The exit code (null when a signal ended it), once it has exited. */
  exited: Promise<number | null>;
  /** What it printed so far (stdout and captured stderr, interleaved as they came). */
  output(): string;
  stop(signal?: NodeJS.Signals, killAfterMs?: number): Promise<number | null>;
}

export function spawnApiary(args: string[], options: ApiaryProcessOptions = {}): ApiaryProcess {
  const { nodeArgs = [], secure = false, ...rest } = options;
  const withMode = args[0] === 'serve' && !secure && !args.includes('--insecure-serving') ? ['serve', '--insecure-serving', ...args.slice(1)] : args;
  return spawnNode([...nodeArgs, '--import', 'tsx', APIARY_MAIN, ...withMode], rest, `apiary ${args[0] ?? ''}`);
}

/** A Node child with these arguments (flags, then a script or -e), watched as spawnApiary's. */
export function spawnNode(args: string[], options: Omit<ApiaryProcessOptions, 'nodeArgs'> = {}, label = 'node'): ApiaryProcess {
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', options.stderr === 'inherit' ? 'inherit' : 'pipe'],
  });
  let output = '';
  const append = (chunk: string): void => {
    output += chunk;
    if (output.length > MAX_OUTPUT) output = output.slice(-MAX_OUTPUT);
  };
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr?.setEncoding('utf8').on('data', append);

  let pendingLine = '';
  let resolveUrl!: (url: string) => void;
  let rejectUrl!: (err: Error) => void;
  const url = new Promise<string>((resolve, reject) => {
    resolveUrl = resolve;
    rejectUrl = reject;
  });
  // Not every caller waits for a URL (a command expected to fail): no unhandled rejection.
  url.catch(() => {});
  let found = false;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    append(chunk);
    pendingLine += chunk;
    let nl: number;
    while ((nl = pendingLine.indexOf('\n')) >= 0) {
      const line = pendingLine.slice(0, nl);
      pendingLine = pendingLine.slice(nl + 1);
      if (!found) {
        const match = /listening on (https?:\/\/\S+)/.exec(line);
        if (match) {
          found = true;
          clearTimeout(timer);
          resolveUrl(match[1]!);
        }
      }
      options.onLine?.(line);
    }
  });
  const timeoutMs = options.urlTimeoutMs ?? 60_000;
  const timer = setTimeout(() => rejectUrl(new Error(`${label} printed no URL within ${timeoutMs} ms: ${output}`)), timeoutMs);
  timer.unref();
  void exited.then((code) => {
    clearTimeout(timer);
    if (!found) rejectUrl(new Error(`${label} exited (${code}) before listening: ${output}`));
  });

  return {
    child,
    url,
    exited,
    output: () => output,
    async stop(signal = 'SIGTERM', killAfterMs = 10_000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        const killer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        killer.unref();
        const code = await exited;
        clearTimeout(killer);
        return code;
      }
      return exited;
    },
  };
}

/** spawnApiary, resolved once the process listens (a process that fails to start is stopped). */
export async function startApiary(args: string[], options: ApiaryProcessOptions = {}): Promise<ApiaryProcess & { origin: string }> {
  const proc = spawnApiary(args, options);
  try {
    return { ...proc, origin: await proc.url };
  } catch (err) {
    await proc.stop('SIGKILL');
    throw err;
  }
}
