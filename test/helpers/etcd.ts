// Real etcd processes for tests.
//
// startEtcd() launches one or three `etcd` members on free 127.0.0.1 ports,
// each with its own temporary data directory, and resolves once every member
// answers /health. Each member runs in its own process group so that stop()
// and killMember() can kill it (and anything it spawned) with one signal; a
// process 'exit' hook kills whatever is still running if a test forgets to
// call stop(). killMember(i) is SIGKILL (a crash); restartMember(i) starts the
// member again on the same ports and data directory and waits until the
// cluster is healthy again; pauseMember(i)/resumeMember(i) freeze and thaw it
// (SIGSTOP/SIGCONT), which is how a hung member looks to its clients.
//
// The binary is `etcd` on PATH, or $ETCD_BIN. When it is missing the promise
// rejects with a message that says how to install it.

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { freePort } from './free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EtcdCluster {
  /** Client URLs, one per member (http://127.0.0.1:PORT). */
  endpoints: string[];
  dataDirs: string[];
  /** Kills every member and removes the data directories. Safe to call twice. */
  stop(): Promise<void>;
  /** SIGKILLs member i (its data directory stays). */
  killMember(i: number): Promise<void>;
  /** Starts member i again with the same ports and data; resolves when it is healthy. */
  restartMember(i: number): Promise<void>;
  /** SIGSTOPs member i and waits until it is stopped: its connections stay open but nothing answers. */
  pauseMember(i: number): Promise<void>;
  /** SIGCONTs a paused member. */
  resumeMember(i: number): void;
  /** The index of the current raft leader (asked of the first running member that answers). */
  leader(): Promise<number>;
}

export interface StartEtcdOptions {
  members?: 1 | 3;
  /** Extra flags for every member, e.g. ['--experimental-watch-progress-notify-interval=1s']. */
  extraArgs?: string[];
  /** How long to wait for health, per start. Default 20 s. */
  startTimeoutMs?: number;
  /** The etcd binary (default $ETCD_BIN, else `etcd` on PATH). */
  binary?: string;
}

interface Member {
  name: string;
  clientPort: number;
  peerPort: number;
  dataDir: string;
  process: ChildProcess | null;
  /** The last few KB of the member's log, for error messages. */
  logTail: string;
  exited: Promise<void> | null;
}

const liveProcesses = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of liveProcesses) killGroup(child, 'SIGKILL');
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

function readProcStat(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return '';
  }
}

interface MemberStatus {
  header: { member_id: string };
  leader: string;
}

/** Maintenance.Status through etcd's JSON gateway, or null when the member does not answer. */
async function memberStatus(port: number): Promise<MemberStatus | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/v3/maintenance/status`, {
      method: 'POST',
      body: '{}',
      signal: AbortSignal.timeout(1000),
    });
    return res.ok ? ((await res.json()) as MemberStatus) : null;
  } catch {
    return null;
  }
}

function defaultEtcdBinary(): string {
  return process.env.ETCD_BIN ?? 'etcd';
}

export async function startEtcd(options: StartEtcdOptions = {}): Promise<EtcdCluster> {
  installExitHook();
  const etcdBinary = (): string => options.binary ?? defaultEtcdBinary();
  const count = options.members ?? 1;
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const token = `apiary-test-${process.pid}-${Date.now()}`;
  const members: Member[] = [];
  for (let i = 0; i < count; i++) {
    members.push({
      name: `m${i}`,
      clientPort: await freePort(),
      peerPort: await freePort(),
      dataDir: mkdtempSync(join(tmpdir(), `apiary-etcd-m${i}-`)),
      process: null,
      logTail: '',
      exited: null,
    });
  }
  const initialCluster = members.map((m) => `${m.name}=http://127.0.0.1:${m.peerPort}`).join(',');

  function launch(member: Member): void {
    const args = [
      `--name=${member.name}`,
      `--data-dir=${member.dataDir}`,
      `--listen-client-urls=http://127.0.0.1:${member.clientPort}`,
      `--advertise-client-urls=http://127.0.0.1:${member.clientPort}`,
      `--listen-peer-urls=http://127.0.0.1:${member.peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${member.peerPort}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=${token}`,
      '--initial-cluster-state=new',
      '--logger=zap',
      '--log-level=warn',
      ...(options.extraArgs ?? []),
    ];
    const child = spawn(etcdBinary(), args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    member.process = child;
    member.logTail = '';
    liveProcesses.add(child);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      member.logTail = (member.logTail + chunk).slice(-4000);
    });
    member.exited = new Promise((resolve) => {
      child.on('exit', () => {
        liveProcesses.delete(child);
        resolve();
      });
      child.on('error', (err: NodeJS.ErrnoException) => {
        liveProcesses.delete(child);
        member.logTail +=
          err.code === 'ENOENT'
            ? `\n${etcdBinary()} not found on PATH: install etcd 3.4 (Debian: apt-get install -y etcd-server etcd-client) or set ETCD_BIN`
            : `\nspawn failed: ${err.message}`;
        resolve();
      });
    });
  }

  async function healthy(member: Member): Promise<boolean> {
    try {
      const res = await fetch(`http://127.0.0.1:${member.clientPort}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await res.json()) as { health?: string };
      return res.ok && body.health === 'true';
    } catch {
      return false;
    }
  }

  async function waitHealthy(targets: Member[]): Promise<void> {
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const dead = targets.find((m) => m.process && m.process.exitCode !== null);
      const failedSpawn = targets.find((m) => m.process && m.process.pid === undefined);
      const broken = dead ?? failedSpawn;
      if (broken) {
        await broken.exited;
        throw new Error(`etcd member ${broken.name} failed to start:${broken.logTail}`);
      }
      const states = await Promise.all(targets.map(healthy));
      if (states.every(Boolean)) return;
      if (Date.now() > deadline) {
        const sick = targets.filter((_, i) => !states[i]).map((m) => `${m.name}:\n${m.logTail}`);
        throw new Error(`etcd did not become healthy within ${startTimeoutMs} ms\n${sick.join('\n')}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  function memberAt(i: number): Member {
    const member = members[i];
    if (!member) throw new Error(`no etcd member ${i}`);
    return member;
  }

  async function kill(member: Member): Promise<void> {
    const child = member.process;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) {
      killGroup(child, 'SIGCONT'); // a paused member still dies on SIGKILL, but be tidy
      killGroup(child, 'SIGKILL');
    }
    await member.exited;
    member.process = null;
  }

  let stopped = false;
  async function stop(): Promise<void> {
    if (stopped) return;
    stopped = true;
    await Promise.all(members.map(kill));
    for (const m of members) rmSync(m.dataDir, { recursive: true, force: true });
  }

  members.forEach(launch);
  try {
    await waitHealthy(members);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    endpoints: members.map((m) => `http://127.0.0.1:${m.clientPort}`),
    dataDirs: members.map((m) => m.dataDir),
    stop,
    async killMember(i: number) {
      await kill(memberAt(i));
    },
    async restartMember(i: number) {
      const member = memberAt(i);
      if (stopped) throw new Error('etcd cluster already stopped');
      await kill(member);
      launch(member);
      await waitHealthy(members.filter((m) => m.process));
    },
    async pauseMember(i: number) {
      const child = memberAt(i).process;
      if (!child?.pid) throw new Error(`etcd member ${i} is not running`);
      killGroup(child, 'SIGSTOP');
      // The signal is asynchronous: a thread already running may still answer, so wait for state T.
      const deadline = Date.now() + 2000;
      while (!/^\d+ \(.*\) T/.test(readProcStat(child.pid))) {
        if (Date.now() > deadline) throw new Error(`etcd member ${i} did not stop`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    resumeMember(i: number) {
      const child = memberAt(i).process;
      if (child) killGroup(child, 'SIGCONT');
    },
    async leader() {
      const deadline = Date.now() + startTimeoutMs;
      for (;;) {
        // Member ids are 64-bit: compare them as strings, never as numbers.
        const statuses = await Promise.all(members.map((m) => (m.process ? memberStatus(m.clientPort) : null)));
        const leaderId = statuses.find((s) => s && s.leader !== '0')?.leader;
        const index = statuses.findIndex((s) => s?.header.member_id === leaderId);
        if (leaderId && index >= 0) return index;
        if (Date.now() > deadline) throw new Error('etcd has no leader');
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}
