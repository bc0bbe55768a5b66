// The TLS front: TLS terminated in a child process, on another core.
//
// Node runs the apiserver's JavaScript on one thread, and with TLS done there
// every request pays for it on that thread: about 15–20 µs of a 100 µs get
// (bench/security.ts measures it). kube-apiserver spreads the same work over
// all cores. With the front, a second process owns the secure port, does the
// handshakes and the record layer, and passes each connection's plaintext to
// the apiserver over a Unix socket, which costs the apiserver less than a TCP
// connection would.
//
// The client's identity crosses with it: the front verifies the client
// certificate against the client CA and sends its subject, with the client's
// address, in a header line ahead of the connection's bytes (tls-peer.ts,
// connection-peer.ts). The apiserver trusts that line only with the secret it
// gave the front at start: an abstract socket is reachable by any local user,
// and one who connects without the secret is dropped before a byte is read as
// HTTP.
//
// The front lives and dies with the apiserver: it exits when its IPC channel
// closes (even on kill -9), and when it dies unexpectedly the apiserver starts
// another on the same port. Linux only (abstract sockets); elsewhere, and on
// one core, TLS stays in the apiserver (see tlsTerminationMode).

import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { setFrontPeer } from './connection-peer.js';
import type { FrontReport, FrontStart } from './tls-front-process.js';
import type { TlsPeer } from './tls-peer.js';

export type TlsTermination = 'process' | 'inline';

/** 'process' where it helps and works: Linux with more than one core. */
export function tlsTerminationMode(requested: TlsTermination | 'auto' = 'auto'): TlsTermination {
  if (requested !== 'auto') return requested;
  return process.platform === 'linux' && os.availableParallelism() > 1 ? 'process' : 'inline';
}

export interface TlsFrontOptions {
  host: string;
  port: number;
  tls: { key: string; cert: string; ca: string };
  logger: Logger;
}

/** The longest header line the front sends (a certificate subject with many groups fits). */
const MAX_HEADER_BYTES = 64 * 1024;
const HEADER_TIMEOUT_MS = 10_000;

export class TlsFront {
  private child: ChildProcess | undefined;
  private stopped = false;
  private restartDelayMs = 100;

  private constructor(
    private readonly options: TlsFrontOptions,
    private readonly socketPath: string,
    private readonly secret: Buffer,
    /** The port the front listens on (the one asked for, or the one picked for 0). */
    public port: number,
  ) {}

  /**
   * Makes `server` (an HTTP server not yet listening) take its connections
   * from a front process, and starts the front on options.port.
   */
  static async start(server: http.Server, options: TlsFrontOptions): Promise<TlsFront> {
    if (process.platform !== 'linux') throw new Error('TLS termination in a process needs Linux (abstract Unix sockets): use --tls-termination inline');
    const secret = randomBytes(32);
    const socketPath = `\0apiary-tls-front-${process.pid}-${randomBytes(8).toString('hex')}`;
    // The HTTP server listens on the socket, so that it tracks and closes its
    // connections as usual; its own 'connection' listener runs once the
    // front's header line is read and checked.
    const serve = server.listeners('connection') as ((socket: net.Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: net.Socket) => {
      acceptFromFront(socket, secret, () => {
        for (const listener of serve) listener.call(server, socket);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(socketPath, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const front = new TlsFront(options, socketPath, secret, options.port);
    try {
      front.port = await front.spawn(options.port);
    } catch (err) {
      server.close();
      throw err;
    }
    return front;
  }

  private spawn(port: number): Promise<number> {
    // Under tsx (tests) the sibling is TypeScript and needs the same loader; built, it is plain JavaScript.
    const typescript = import.meta.url.endsWith('.ts');
    const entry = new URL(`./tls-front-process.${typescript ? 'ts' : 'js'}`, import.meta.url);
    // A profiled apiserver (--cpu-prof, bench/profile-ops.ts) profiles its front too.
    const profiling = profilingFlags(process.execArgv);
    const execArgv = [...(typescript ? ['--import', 'tsx'] : []), ...profiling];
    const child = fork(fileURLToPath(entry), [], { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    this.child = child;
    const start: FrontStart = {
      type: 'start',
      host: this.options.host,
      port,
      ...this.options.tls,
      socketPath: this.socketPath,
      secret: this.secret.toString('hex'),
    };
    child.send(start);
    return new Promise<number>((resolve, reject) => {
      const onExit = (code: number | null, signal: string | null): void => reject(new Error(`the TLS front exited before listening (${signal ?? `code ${code}`})`));
      child.once('exit', onExit);
      child.once('message', (report: FrontReport) => {
        child.off('exit', onExit);
        if (report.type === 'failed') {
          const err = new Error(report.message) as NodeJS.ErrnoException;
          err.code = report.code;
          // The front exits on its failure: the start fails once it is gone.
          if (child.exitCode !== null || child.signalCode !== null) reject(err);
          else child.once('exit', () => reject(err));
          return;
        }
        this.restartDelayMs = 100;
        child.once('exit', (code, signal) => this.exited(child, code, signal));
        resolve(report.port);
      });
    });
  }

  /** A front that dies while the apiserver runs is replaced, on the same port. */
  private exited(child: ChildProcess, code: number | null, signal: string | null): void {
    if (this.stopped || child !== this.child) return;
    this.options.logger.error({ code, signal }, 'the TLS front process exited; starting another');
    const retry = (): void => {
      if (this.stopped) return;
      this.spawn(this.port).catch((err: unknown) => {
        this.options.logger.error({ err }, 'the TLS front process did not start');
        this.restartDelayMs = Math.min(this.restartDelayMs * 2, 5000);
        setTimeout(retry, this.restartDelayMs).unref();
      });
    };
    setTimeout(retry, this.restartDelayMs).unref();
  }

  /** Stops taking connections; the open ones end as the apiserver closes its side. */
  stopAccepting(): void {
    this.stopped = true;
    if (this.child?.connected === true) this.child.send({ type: 'close' });
  }

  /** Ends the front process. */
  async close(): Promise<void> {
    this.stopped = true;
    const child = this.child;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    if (child.connected) child.disconnect();
    else child.kill();
    await exited;
  }

  /** The front's process id (tests). */
  get pid(): number | undefined {
    return this.child?.pid;
  }
}

/**
 * Reads the header line of a connection from the front, checks its secret and
 * records the peer; then hands the socket to the HTTP server. Anything else
 * is dropped.
 */
function acceptFromFront(socket: net.Socket, secret: Buffer, serve: () => void): void {
  let head: Buffer = Buffer.alloc(0);
  const timer = setTimeout(() => socket.destroy(), HEADER_TIMEOUT_MS);
  const onData = (chunk: Buffer): void => {
    head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const end = head.indexOf(10);
    if (end < 0) {
      if (head.length > MAX_HEADER_BYTES) drop();
      return;
    }
    socket.off('data', onData);
    socket.pause();
    clearTimeout(timer);
    const peer = parseHeader(head.subarray(0, end), secret);
    if (peer === undefined) return drop();
    setFrontPeer(socket, peer);
    if (end + 1 < head.length) socket.unshift(head.subarray(end + 1));
    serve();
    socket.resume();
  };
  const drop = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  socket.on('data', onData);
  socket.once('error', drop);
  socket.once('close', () => clearTimeout(timer));
}

function parseHeader(line: Buffer, secret: Buffer): TlsPeer | undefined {
  const space = line.indexOf(32);
  if (space < 0) return undefined;
  const given = Buffer.from(line.subarray(0, space).toString('latin1'), 'hex');
  if (given.length !== secret.length || !timingSafeEqual(given, secret)) return undefined;
  try {
    const peer = JSON.parse(line.subarray(space + 1).toString('utf8')) as TlsPeer;
    if (typeof peer.remoteAddress !== 'string' || typeof peer.remotePort !== 'number') return undefined;
    return peer;
  } catch {
    return undefined;
  }
}

/** The --cpu-prof flags of argv, with the values of those given as a separate argument (`--cpu-prof-dir DIR`). */
export function profilingFlags(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--cpu-prof')) continue;
    out.push(arg);
    const next = argv[i + 1];
    if (/^--cpu-prof-(dir|name|interval)$/.test(arg) && next !== undefined && !next.startsWith('--')) out.push(argv[++i]!);
  }
  return out;
}
