// How the size of the values decides the size of etcd's database (bbolt),
// apart from any API server: 30,000 keys shaped like bench/memory.ts's
// (ConfigMaps, Secrets, RoleBindings round robin in 20 namespaces) put into a
// fresh etcd 3.5 through its JSON gateway, once with the mean value sizes
// apiary stores for that mix, once with kube-apiserver's (both read by
// bench/memory.ts from the stores), and once with apiary's Secrets 100 bytes
// smaller; prints the database's growth per 100,000 keys.
//
// bbolt fills a page to 90 % of 4 KiB when keys come in order (etcd's keys
// are revisions): what decides the size is how many values share a page, so
// a small difference in value size can cost a whole page per few objects.
//
//   node --import tsx bench/etcd-packing.ts

import { startEtcd } from '../test/helpers/etcd.js';
import { REFERENCE_BINARIES } from '../test/compat/differential/reference.js';

const KEYS = 30_000;
const KINDS = ['configmaps', 'secrets', 'rolebindings'];
/** Mean value bytes per kind, in KINDS's order (bench/memory.ts, 2026-11-28). */
const CASES: Record<string, number[]> = {
  'apiary (JSON)': [1332, 1693, 469],
  'kube-apiserver (protobuf)': [1326, 1343, 408],
  'apiary, Secrets 100 bytes smaller': [1332, 1593, 469],
};

async function dbSize(endpoint: string): Promise<number> {
  const res = await fetch(`${endpoint}/v3/maintenance/status`, { method: 'POST', body: '{}' });
  return Number(((await res.json()) as { dbSize: string }).dbSize);
}

for (const [name, sizes] of Object.entries(CASES)) {
  const etcd = await startEtcd({ binary: REFERENCE_BINARIES.etcd });
  try {
    const endpoint = etcd.endpoints[0]!;
    const before = await dbSize(endpoint);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < KEYS) {
        const i = next++;
        const kind = i % KINDS.length;
        const key = `/registry/${KINDS[kind]}/mem-${String(i % 20).padStart(4, '0')}/obj-${i}`;
        const body = JSON.stringify({ key: Buffer.from(key).toString('base64'), value: Buffer.alloc(sizes[kind]!, 'v').toString('base64') });
        const res = await fetch(`${endpoint}/v3/kv/put`, { method: 'POST', body });
        if (!res.ok) throw new Error(`put ${key}: ${res.status} ${await res.text()}`);
      }
    };
    await Promise.all(Array.from({ length: 32 }, () => worker()));
    const grown = (await dbSize(endpoint)) - before;
    console.log(`${name}: values ${sizes.join(' / ')} bytes: database ${((grown / KEYS) * 100_000 / 1048576).toFixed(0)} MiB per 100,000 keys`);
  } finally {
    await etcd.stop();
  }
}
