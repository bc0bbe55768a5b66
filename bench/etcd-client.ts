// What the etcd client costs per call: the backend's unary path
// (src/storage/etcd/unary.ts on its own HTTP/2 connection, h2.ts) beside a
// bare gRPC loop over node:http2 (bench/bare-grpc.ts, what unary.ts ran on
// before) and @grpc/grpc-js's makeUnaryRequest on the channel options apiary
// used before that, with the same protobufjs messages: a create (a txn on create_revision = 0, 1 KiB value)
// and a get (a range of one key), at a fixed concurrency in one process.
// Rounds alternate the two clients; prints median ops/s and the process's
// CPU µs per call (client plus encoding; etcd runs in its own process).
//
//   ETCD_BIN=test/compat/etcd-3.5/bin/etcd node --import tsx bench/etcd-client.ts [--ops 4000] [--concurrency 32] [--rounds 5]

import * as grpc from '@grpc/grpc-js';
import * as http2 from 'node:http2';
import { parseArgs } from 'node:util';
import { startEtcd } from '../test/helpers/etcd.js';
import { ETCD_CHANNEL_OPTIONS } from '../src/storage/etcd/backend.js';
import { loadProtocol, type Method } from '../src/storage/etcd/protocol.js';
import { UnaryChannel } from '../src/storage/etcd/unary.js';
import { fmt, median } from './lib.js';
import { bareUnary } from './bare-grpc.js';

const { values } = parseArgs({ options: { ops: { type: 'string', default: '4000' }, concurrency: { type: 'string', default: '32' }, rounds: { type: 'string', default: '5' } } });
const ops = Number(values.ops);
const concurrency = Number(values.concurrency);
const rounds = Number(values.rounds);
const value = Buffer.from(JSON.stringify({ kind: 'ConfigMap', data: { payload: 'x'.repeat(1000) } }));

async function closedLoop(op: (i: number) => Promise<unknown>): Promise<{ rate: number; cpuUs: number }> {
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < ops) await op(next++);
  }));
  const cpu = process.cpuUsage(cpu0);
  return { rate: ops / ((performance.now() - t0) / 1000), cpuUs: (cpu.user + cpu.system) / ops };
}

type Call = (method: Method, request: object) => Promise<unknown>;
const proto = loadProtocol();
const create = (call: Call, key: string) => {
  const k = Buffer.from(key);
  return call(proto.txn, { compare: [{ key: k, target: 1, result: 0, create_revision: 0 }], success: [{ request_put: { key: k, value } }], failure: [] });
};
const get = (call: Call, key: string) => call(proto.range, { key: Buffer.from(key) });

const etcd = await startEtcd(process.env['ETCD_BIN'] ? { binary: process.env['ETCD_BIN'] } : {});
try {
  const endpoint = etcd.endpoints[0]!;
  const grpcClient = new grpc.Client(new URL(endpoint).host, grpc.credentials.createInsecure(), ETCD_CHANNEL_OPTIONS);
  const metadata = new grpc.Metadata();
  const viaGrpc: Call = (method, request) =>
    new Promise((resolve, reject) =>
      grpcClient.makeUnaryRequest(method.path, method.serialize, method.deserialize, request, metadata, { deadline: Date.now() + 10_000 }, (err, res) => (err ? reject(err) : resolve(res))),
    );
  const channel = new UnaryChannel(endpoint);
  const viaUnary: Call = (method, request) => channel.call(method, request, Date.now() + 10_000);
  const session = http2.connect(endpoint);
  await new Promise((resolve, reject) => session.once('connect', resolve).once('error', reject));
  const viaNodeHttp2: Call = (method, request) => bareUnary(session, method, request);
  const clients: Array<[string, Call]> = [['@grpc/grpc-js', viaGrpc], ['bare node:http2', viaNodeHttp2], ['unary.ts (h2.ts)', viaUnary]];
  const results = new Map<string, { rate: number[]; cpuUs: number[] }>();
  for (let r = -1; r < rounds; r++) {
    for (const [name, call] of r % 2 === 0 ? clients : [...clients].reverse()) {
      for (const op of ['create', 'get'] as const) {
        const res = await closedLoop((i) => (op === 'create' ? create(call, `/bench/${name}/${r}/${i}`) : get(call, `/bench/${name}/${r}/${i}`)));
        if (r < 0) continue; // warm-up
        const row = results.get(`${op} ${name}`) ?? { rate: [], cpuUs: [] };
        row.rate.push(res.rate);
        row.cpuUs.push(res.cpuUs);
        results.set(`${op} ${name}`, row);
      }
    }
  }
  grpcClient.close();
  session.close();
  channel.close();
  console.log(`${ops} calls per round at concurrency ${concurrency}, ${rounds} rounds, etcd single member on 127.0.0.1; medians`);
  console.log('| call | client | calls/s | client CPU µs/call |\n|---|---|---:|---:|');
  for (const [key, row] of results) {
    const [op, ...name] = key.split(' ');
    console.log(`| ${op} | ${name.join(' ')} | ${fmt(median(row.rate))} | ${median(row.cpuUs).toFixed(0)} |`);
  }
} finally {
  await etcd.stop();
}
