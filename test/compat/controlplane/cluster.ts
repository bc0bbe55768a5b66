// A simulated cluster of upstream's own programs around an API server:
// kube-controller-manager and kube-scheduler 1.32 (built from
// test/compat/kubernetes) and kwok (test/compat/kwok), each a child process
// with the server's admin kubeconfig, its log collected to a file.
// Used by the control-plane test (controlplane.test.ts) and bench/cluster.ts.
//
// Contract:
// - startUpstreamControllers(kubeconfig, dir) starts the three programs with
//   their logs in `dir`; stop() ends them (SIGTERM, then SIGKILL) and resolves
//   with their logs. Nothing is patched: upstream's defaults, except the flags
//   below (no leader election, no serving port, the controllers apiary does
//   not run itself).
// - kwok manages the nodes annotated kwok.x-k8s.io/node=fake and their pods;
//   kwokNode(name) is such a node (no taints, so pods need no tolerations).
// - listWatchErrors(log) picks the lines that report a failed list or watch.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, type WriteStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = fileURLToPath(new URL('.', import.meta.url));

export const UPSTREAM_BINARIES = {
  kubeControllerManager: process.env['KUBE_CONTROLLER_MANAGER_BIN'] ?? resolve(HERE, '../kubernetes/bin/kube-controller-manager'),
  kubeScheduler: process.env['KUBE_SCHEDULER_BIN'] ?? resolve(HERE, '../kubernetes/bin/kube-scheduler'),
  kwok: process.env['KWOK_BIN'] ?? resolve(HERE, '../kwok/bin/kwok'),
};

/** Which of the binaries are missing (empty: all built). */
export function missingBinaries(): string[] {
  return Object.values(UPSTREAM_BINARIES).filter((b) => !existsSync(b));
}

/**
 * kube-controller-manager's workload controllers and its node lifecycle controller. The namespace, garbage
 * collector, service account and quota controllers are apiary's own
 * (`apiary serve` runs them), so kube-controller-manager leaves them alone.
 */
export const WORKLOAD_CONTROLLERS = [
  'deployment-controller',
  'replicaset-controller',
  'statefulset-controller',
  'daemonset-controller',
  'job-controller',
  'cronjob-controller',
  'disruption-controller',
  'ttl-after-finished-controller',
  'pod-garbage-collector-controller',
  // Lifts the node.kubernetes.io/not-ready taint TaintNodesByCondition admission puts on new nodes, once kwok reports them Ready.
  'node-lifecycle-controller',
];

export const KWOK_ANNOTATION = 'kwok.x-k8s.io/node';

export interface UpstreamProgram {
  name: string;
  logPath: string;
  process: ChildProcess;
  exited: Promise<void>;
}

export interface UpstreamControllers {
  programs: UpstreamProgram[];
  /** Stops every program; resolves with each one's log, by name. */
  stop(): Promise<Record<string, string>>;
  /** A program that exited early, with its log tail (undefined while all run). */
  exitedEarly(): string | undefined;
}

function launch(name: string, binary: string, args: string[], dir: string): UpstreamProgram {
  const logPath = join(dir, `${name}.log`);
  const log: WriteStream = createWriteStream(logPath);
  // Its own process group, so stopping it never leaves children behind.
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(log, { end: false });
  child.stderr!.pipe(log, { end: false });
  const exited = new Promise<void>((done) => {
    const finish = (): void => {
      log.end(() => done());
    };
    child.once('exit', finish);
    child.once('error', (err) => {
      log.write(`\nspawn ${binary} failed: ${err.message}\n`);
      finish();
    });
  });
  return { name, logPath, process: child, exited };
}

function signal(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    // Already gone.
  }
}

export interface StartOptions {
  /** kube-scheduler's --config (a KubeSchedulerConfiguration file); default: its built-in defaults. */
  schedulerConfig?: string;
  /** kube-controller-manager's client QPS/burst (its defaults are 20/30). */
  kcmQps?: number;
  /** More kube-controller-manager controllers (node-lifecycle-controller lifts kube-apiserver's not-ready taint). */
  extraControllers?: string[];
  /** klog verbosity of the two kube programs (default 2: bindings and syncs are logged). */
  verbosity?: number;
}

export function startUpstreamControllers(kubeconfig: string, dir: string, options: StartOptions = {}): UpstreamControllers {
  const v = String(options.verbosity ?? 2);
  const kcmArgs = [
    `--kubeconfig=${kubeconfig}`,
    `--controllers=${[...WORKLOAD_CONTROLLERS, ...(options.extraControllers ?? [])].join(',')}`,
    '--leader-elect=false',
    '--secure-port=0',
    '--use-service-account-credentials=false',
    `--v=${v}`,
  ];
  if (options.kcmQps !== undefined) kcmArgs.push(`--kube-api-qps=${options.kcmQps}`, `--kube-api-burst=${options.kcmQps * 2}`, '--concurrent-replicaset-syncs=10');
  const schedulerArgs =
    options.schedulerConfig !== undefined
      ? [`--config=${options.schedulerConfig}`, '--secure-port=0', `--v=${v}`]
      : [`--kubeconfig=${kubeconfig}`, '--leader-elect=false', '--secure-port=0', `--v=${v}`];
  const programs = [
    launch('kube-controller-manager', UPSTREAM_BINARIES.kubeControllerManager, kcmArgs, dir),
    launch('kube-scheduler', UPSTREAM_BINARIES.kubeScheduler, schedulerArgs, dir),
    launch('kwok', UPSTREAM_BINARIES.kwok, [`--kubeconfig=${kubeconfig}`, `--manage-nodes-with-annotation-selector=${KWOK_ANNOTATION}=fake`, '--cidr=10.244.0.1/16', '--node-lease-duration-seconds=40'], dir),
  ];
  let stopping = false;
  return {
    programs,
    exitedEarly() {
      if (stopping) return undefined;
      const gone = programs.find((p) => p.process.exitCode !== null || p.process.signalCode !== null);
      if (gone === undefined) return undefined;
      return `${gone.name} exited (${gone.process.exitCode ?? gone.process.signalCode}):\n${readFileSync(gone.logPath, 'utf8').slice(-4000)}`;
    },
    async stop() {
      stopping = true;
      for (const p of programs) signal(p.process, 'SIGTERM');
      const killer = setTimeout(() => {
        for (const p of programs) signal(p.process, 'SIGKILL');
      }, 5000);
      await Promise.all(programs.map((p) => p.exited));
      clearTimeout(killer);
      const logs: Record<string, string> = {};
      for (const p of programs) logs[p.name] = readFileSync(p.logPath, 'utf8');
      return logs;
    },
  };
}

/** A node kwok takes care of: Ready within a second, room for many pods. */
export function kwokNode(name: string, pods = 110): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      annotations: { [KWOK_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
      labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux', 'kubernetes.io/hostname': name, type: 'kwok' },
    },
    status: {
      allocatable: { cpu: '64', memory: '512Gi', pods: String(pods) },
      capacity: { cpu: '64', memory: '512Gi', pods: String(pods) },
      nodeInfo: { architecture: 'amd64', kubeProxyVersion: 'fake', kubeletVersion: 'fake', operatingSystem: 'linux' },
      phase: 'Running',
    },
  };
}

/**
 * The log lines that report a failed list or watch: client-go's reflector
 * ("failed to list", "Failed to watch"), its watch-ended warnings with an
 * error, and kwok's own (structured) list and watch errors.
 */
export function listWatchErrors(log: string): string[] {
  return log
    .split('\n')
    .filter((line) => /failed to list|failed to watch|watch of .* ended with|unable to sync caches|ListAndWatch|Failed to list|Failed to watch/i.test(line))
    // A watch closed by the program itself as it stops is not an error of the server's.
    .filter((line) => !/context canceled|http2: client connection lost|Stopping reflector/i.test(line));
}
