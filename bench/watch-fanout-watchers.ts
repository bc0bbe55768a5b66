// The watcher side of bench/watch-fanout.ts, run as its own process (forked,
// IPC to the parent), so that the server, the writer and the watchers each get
// their own event loop and the clients' cost is measured apart.
//
// Opens --count watches on /api/v1/namespaces/NS/configmaps from --rv, each
// on its own raw TCP connection (node:net; the request is one GET, the
// response head is checked for 200 and chunked transfer encoding, and the chunk
// framing is taken off by a small state machine). Event lines are scanned as
// bytes, never JSON.parse'd and never copied (except a line split across two
// reads): the resourceVersion (to check order) and data.sentAt (the writer's
// Date.now() when it sent the create) are found with single-byte memchr
// searches (Buffer.indexOf of a number) and checked byte by byte. Latency =
// receipt time (Date.now() when the bytes arrive) − sentAt, into a 1 ms histogram.
//
// IPC protocol: → {type:'connected'} once every watch has its 200;
//               ← {type:'start', steadyFrom} as the writer starts (CPU accounting
//                 starts; events sent from steadyFrom on also go to a second histogram);
//               ← {type:'drain', expected, timeoutMs} when the writer is done;
//               → {type:'result', …} when every watcher has `expected` events
//                 (or ended), or after timeoutMs.

import net from 'node:net';

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

const origin = flag('origin', '');
const ns = flag('ns', 'bench');
const fromRV = flag('rv', '0');
const count = Number(flag('count', '100'));

export interface WatchersResult {
  type: 'result';
  watchers: number;
  /** Watchers that received exactly `expected` events with strictly increasing resourceVersions. */
  complete: number;
  /** Watchers whose stream ended (server closed it) before the end. */
  ended: number;
  outOfOrder: number;
  minReceived: number;
  /** Sparse histogram: [latencyMs, count] pairs. */
  histogram: Array<[number, number]>;
  /** The same for events sent after the warm-up (see 'start'). */
  steadyHistogram: Array<[number, number]>;
  /** CPU seconds this process used (user + system) from 'start' to the result. */
  cpuSeconds: number;
}

const RV_MARK = Buffer.from('"resourceVersion":"');
/** Index of 'V' in RV_MARK: memchr for it, then compare the rest. */
const RV_V = RV_MARK.indexOf('V');
const T_MARK = Buffer.from('"sentAt":"');
const T_A = T_MARK.indexOf('A');
const NL = 0x0a;

const buckets = new Uint32Array(60_001);
/** The same for events the writer sent from `steadyFrom` on (after the first seconds of warm-up). */
const steadyBuckets = new Uint32Array(60_001);
let steadyFrom = Infinity;

/** Reads the decimal digits at `at` (up to the first non-digit). */
function digitsAt(buf: Buffer, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) {
    const c = buf[i]!;
    if (c < 0x30 || c > 0x39) break;
    n = n * 10 + (c - 0x30);
  }
  return n;
}

/** Where `mark` starts in buf[from, end): memchr for its rare byte mark[pivot], then compare. -1 if absent. */
function findMark(buf: Buffer, from: number, end: number, mark: Buffer, pivot: number): number {
  const rare = mark[pivot]!;
  for (let i = buf.indexOf(rare, from + pivot); i >= 0 && i < end; i = buf.indexOf(rare, i + 1)) {
    const at = i - pivot;
    if (at < from || at + mark.length > end) continue;
    let ok = true;
    for (let k = 0; k < mark.length; k++) {
      if (buf[at + k] !== mark[k]) {
        ok = false;
        break;
      }
    }
    if (ok) return at;
  }
  return -1;
}

class Watcher {
  received = 0;
  lastRV = 0;
  outOfOrder = 0;
  ended = false;
  connected = false;
  private head = '';
  private inBody = false;
  /** Bytes left in the current chunk's data; -1 while reading a chunk-size line. */
  private chunkLeft = -1;
  private sizeLine = '';
  /** CRLF bytes still to skip after a chunk's data. */
  private skip = 0;
  /** The start of an event line that a read cut off. */
  private carry: Buffer | undefined;
  readonly socket: net.Socket;

  constructor(host: string, port: number, path: string, onConnected: () => void) {
    this.socket = net.connect(port, host, () => {
      this.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: application/json\r\n\r\n`);
    });
    this.socket.setNoDelay(true);
    this.socket.on('data', (buf: Buffer) => this.onData(buf, onConnected));
    this.socket.on('end', () => (this.ended = true));
    this.socket.on('close', () => (this.ended = true));
    this.socket.on('error', () => (this.ended = true));
  }

  private onData(buf: Buffer, onConnected: () => void): void {
    let pos = 0;
    if (!this.inBody) {
      this.head += buf.toString('latin1', 0, buf.length);
      const endOfHead = this.head.indexOf('\r\n\r\n');
      if (endOfHead < 0) return;
      if (!this.head.startsWith('HTTP/1.1 200') || !/transfer-encoding: chunked/i.test(this.head)) {
        console.error(`watch failed: ${this.head.slice(0, 200)}`);
        this.ended = true;
        this.socket.destroy();
        return;
      }
      pos = buf.length - (this.head.length - endOfHead - 4);
      this.inBody = true;
      this.head = '';
      this.connected = true;
      onConnected();
    }
    const now = Date.now();
    while (pos < buf.length) {
      if (this.skip > 0) {
        const n = Math.min(this.skip, buf.length - pos);
        this.skip -= n;
        pos += n;
      } else if (this.chunkLeft < 0) {
        const nl = buf.indexOf(NL, pos);
        if (nl < 0) {
          this.sizeLine += buf.toString('latin1', pos, buf.length);
          return;
        }
        this.sizeLine += buf.toString('latin1', pos, nl);
        this.chunkLeft = parseInt(this.sizeLine, 16);
        this.sizeLine = '';
        pos = nl + 1;
        if (this.chunkLeft === 0) {
          this.ended = true; // the last chunk: the server ended the watch
          return;
        }
      } else {
        const end = Math.min(buf.length, pos + this.chunkLeft);
        this.scan(buf, pos, end, now);
        this.chunkLeft -= end - pos;
        pos = end;
        if (this.chunkLeft === 0) {
          this.chunkLeft = -1;
          this.skip = 2;
        }
      }
    }
  }

  /** Consumes event bytes buf[from, end): complete lines now, the cut-off rest later. */
  private scan(buf: Buffer, from: number, end: number, now: number): void {
    if (this.carry !== undefined) {
      const nl = buf.indexOf(NL, from);
      if (nl < 0 || nl >= end) {
        this.carry = Buffer.concat([this.carry, buf.subarray(from, end)]);
        return;
      }
      const line = Buffer.concat([this.carry, buf.subarray(from, nl + 1)]);
      this.carry = undefined;
      this.lines(line, 0, line.length, now);
      from = nl + 1;
    }
    const last = buf.lastIndexOf(NL, end - 1);
    if (last < from) {
      if (end > from) this.carry = Buffer.from(buf.subarray(from, end));
      return;
    }
    this.lines(buf, from, last + 1, now);
    if (last + 1 < end) this.carry = Buffer.from(buf.subarray(last + 1, end));
  }

  /** buf[from, end) holds whole lines: one event per resourceVersion mark. */
  private lines(buf: Buffer, from: number, end: number, now: number): void {
    for (let at = findMark(buf, from, end, RV_MARK, RV_V); at >= 0; at = findMark(buf, at + 1, end, RV_MARK, RV_V)) {
      const digits = at + RV_MARK.length;
      const rv = digitsAt(buf, digits, end);
      if (rv <= this.lastRV) this.outOfOrder++;
      this.lastRV = rv;
      this.received++;
      const lineEnd = buf.indexOf(NL, digits);
      const t = findMark(buf, digits, lineEnd < 0 ? end : lineEnd, T_MARK, T_A);
      if (t >= 0) {
        const sentAt = digitsAt(buf, t + T_MARK.length, end);
        const bucket = Math.min(60_000, Math.max(0, now - sentAt));
        buckets[bucket]!++;
        if (sentAt >= steadyFrom) steadyBuckets[bucket]!++;
      }
      if (lineEnd >= 0) at = lineEnd;
    }
  }
}

const target = new URL(origin);
const path = `/api/v1/namespaces/${ns}/configmaps?watch=1&resourceVersion=${fromRV}`;
const states: Watcher[] = [];
let connected = 0;
const onConnected = (): void => {
  connected++;
  if (connected === count) process.send!({ type: 'connected' });
};

for (let i = 0; i < count; i++) {
  states.push(new Watcher(target.hostname, Number(target.port), path, onConnected));
  // Open in steps (50 per 20 ms) so the server's accept queue does not overflow (a dropped SYN costs a 1 s retry).
  if (i % 50 === 49) await new Promise((resolve) => setTimeout(resolve, 20));
}

let cpuStart: NodeJS.CpuUsage | undefined;
process.on('message', async (msg: { type: string; expected: number; timeoutMs: number; steadyFrom: number }) => {
  if (msg.type === 'start') {
    cpuStart = process.cpuUsage();
    steadyFrom = msg.steadyFrom;
  }
  if (msg.type !== 'drain') return;
  const deadline = Date.now() + msg.timeoutMs;
  while (Date.now() < deadline && states.some((s) => !s.ended && s.received < msg.expected)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const cpu = process.cpuUsage(cpuStart);
  const sparse = (b: Uint32Array): Array<[number, number]> => {
    const out: Array<[number, number]> = [];
    for (let i = 0; i < b.length; i++) if (b[i]! > 0) out.push([i, b[i]!]);
    return out;
  };
  const result: WatchersResult = {
    type: 'result',
    watchers: count,
    complete: states.filter((s) => s.received === msg.expected && s.outOfOrder === 0).length,
    ended: states.filter((s) => s.ended).length,
    outOfOrder: states.reduce((n, s) => n + s.outOfOrder, 0),
    minReceived: states.reduce((n, s) => Math.min(n, s.received), Infinity),
    histogram: sparse(buckets),
    steadyHistogram: sparse(steadyBuckets),
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  for (const s of states) s.socket.destroy();
  process.send!(result, () => process.exit(0));
});
