// What an etcd holds, read through its JSON gateway (no etcdctl needed): the
// revision and raft index (writes so far), the database's size and the part in
// use, leases, and per key prefix (the resource: /registry/<resource>, or
// /registry/<group>/<resource> for the grouped ones) the number of keys and
// the bytes of their values. bench/memory.ts prints it for both servers' etcds
// so their stores can be compared write for write and byte for byte.

export interface EtcdStore {
  revision: number;
  raftIndex: number;
  dbSize: number;
  dbSizeInUse: number;
  leases: number;
  /** Per prefix: keys and value bytes. */
  prefixes: Map<string, { keys: number; bytes: number }>;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function post<T>(endpoint: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${endpoint}${path}`, { method: 'POST', body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${endpoint}${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The resource a key belongs to: its first two segments after /registry, or one for core resources. */
function prefixOf(key: string): string {
  if (!key.startsWith('/')) return key;
  const parts = key.split('/');
  // ['', 'registry', resource-or-group, ...]
  const second = parts[2] ?? '';
  const grouped = second.includes('.') || second === 'apiregistration.k8s.io';
  return grouped ? `${parts[1]}/${second}/${parts[3] ?? ''}` : `${parts[1]}/${second}`;
}

interface RangeReply {
  kvs?: Array<{ key: string; value?: string }>;
  more?: boolean;
  count?: string;
}

export async function readEtcdStore(endpoint: string): Promise<EtcdStore> {
  const status = await post<{ header: { revision: string }; dbSize: string; dbSizeInUse?: string; raftIndex: string }>(endpoint, '/v3/maintenance/status', {});
  const leases = await post<{ leases?: unknown[] }>(endpoint, '/v3/lease/leases', {});
  const prefixes = new Map<string, { keys: number; bytes: number }>();
  // Page through everything at one revision.
  const revision = Number(status.header.revision);
  let from = '\0';
  for (;;) {
    const page = await post<RangeReply>(endpoint, '/v3/kv/range', { key: b64(from), range_end: b64('\0'), limit: 2000, revision });
    for (const kv of page.kvs ?? []) {
      const key = Buffer.from(kv.key, 'base64').toString();
      const p = prefixOf(key);
      const row = prefixes.get(p) ?? { keys: 0, bytes: 0 };
      row.keys++;
      row.bytes += kv.value === undefined ? 0 : Buffer.from(kv.value, 'base64').length;
      prefixes.set(p, row);
      from = key + '\0';
    }
    if (page.more !== true) break;
  }
  return {
    revision,
    raftIndex: Number(status.raftIndex),
    dbSize: Number(status.dbSize),
    dbSizeInUse: Number(status.dbSizeInUse ?? status.dbSize),
    leases: leases.leases?.length ?? 0,
    prefixes,
  };
}
