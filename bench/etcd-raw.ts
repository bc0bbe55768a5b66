// How much EtcdBackend costs over talking to etcd directly.
//
// Starts a throwaway single-member etcd (test/helpers/etcd.ts) and runs, at a
// fixed concurrency, the same number of writes of a ~1 KiB value three ways:
//   1. etcd3 package put       — the usual Node etcd client, a plain Put;
//   2. grpc-js Put             — our channel and protos, a plain Put (no txn);
//   3. EtcdBackend.create      — what apiary does: a txn on create_revision = 0.
// Each write goes to a fresh key. The three are interleaved over two rounds and
// the better round of each is kept (the machine is shared, so single runs are
// noisy). Prints ops/s and the ratios to (1).
// Usage: node --import tsx bench/etcd-raw.ts [ops=3000] [concurrency=64]

import * as grpc from '@grpc/grpc-js';
import { Etcd3 } from 'etcd3';
import { startEtcd } from '../test/helpers/etcd.js';
import { EtcdBackend } from '../src/storage/etcd.js';

const ops = Number(process.argv[2] ?? 3000);
const concurrency = Number(process.argv[3] ?? 64);
const value = JSON.stringify({ kind: 'ConfigMap', data: { payload: 'x'.repeat(1000) } });

/** Runs op(0..total-1) with `concurrency` in flight; returns ops per second. */
async function closedLoop(total: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await op(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return total / seconds;
}

const etcd = await startEtcd();
try {
  const endpoint = etcd.endpoints[0];

  const etcd3 = new Etcd3({ hosts: endpoint });
  await etcd3.put('/bench/warm').value('w').exec();

  const backend = await EtcdBackend.connect({ endpoints: [endpoint] });
  // The same protos the backend uses, but a plain Put.
  const client = new grpc.Client(new URL(endpoint).host, grpc.credentials.createInsecure());
  const put = backend.proto.put;
  const rawPut = (key: string) =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest(
        put.path,
        put.serialize,
        put.deserialize,
        { key: Buffer.from(key), value: Buffer.from(value) },
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
        (err, res) => (err ? reject(err) : resolve(res)),
      ),
    );
  await rawPut('/bench/warm2');
  await backend.create('/bench/warm3', 'w');

  let etcd3Rate = 0;
  let grpcRate = 0;
  let backendRate = 0;
  for (let round = 0; round < 2; round++) {
    etcd3Rate = Math.max(etcd3Rate, await closedLoop(ops, (i) => etcd3.put(`/bench/etcd3/${round}/${i}`).value(value).exec()));
    grpcRate = Math.max(grpcRate, await closedLoop(ops, (i) => rawPut(`/bench/grpc/${round}/${i}`)));
    backendRate = Math.max(backendRate, await closedLoop(ops, (i) => backend.create(`/bench/backend/${round}/${i}`, value)));
  }
  etcd3.close();
  client.close();
  await backend.close();

  const row = (name: string, rate: number) =>
    console.log(`${name.padEnd(24)} ${rate.toFixed(0).padStart(7)} ops/s   ${(rate / etcd3Rate).toFixed(2)}× etcd3 put`);
  console.log(`${ops} writes of ${value.length} B at concurrency ${concurrency}, etcd single member on 127.0.0.1`);
  row('etcd3 package put', etcd3Rate);
  row('grpc-js Put (raw)', grpcRate);
  row('EtcdBackend.create (txn)', backendRate);
} finally {
  await etcd.stop();
}
