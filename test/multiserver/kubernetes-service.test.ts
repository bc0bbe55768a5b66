// The `kubernetes` Service's endpoints with two apiary servers on one real
// etcd (the lease endpoint reconciler, interval 300 ms, lease TTL 2 s): both
// servers bind the same port (127.0.0.1 and 127.0.0.2) and advertise
// 192.0.2.10 and 192.0.2.11, so the Endpoints and the EndpointSlice list both
// addresses; a lease written by a server that then died (a key with a 2 s
// etcd lease, never renewed) appears and drops out after its TTL; a server
// that stops drops out at once.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../helpers/free-port.js';
import { startEtcd, type EtcdCluster } from '../helpers/etcd.js';
import { until } from '../helpers/wait.js';
import { get } from '../helpers/http.js';
import { openBackend } from '../../src/storage/open.js';
import { startApiaryOnEtcd, type ApiaryOnEtcd } from './helpers.js';

interface Endpoints {
  subsets?: { addresses?: { ip: string }[]; ports?: { name: string; port: number; protocol: string }[] }[];
  metadata: { labels?: Record<string, string> };
}
interface Slice {
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[];
  ports?: { name: string; port: number }[];
  metadata: { labels?: Record<string, string> };
}

describe('the kubernetes service on two servers', { timeout: 90_000 }, () => {
  let etcd: EtcdCluster;
  let a: ApiaryOnEtcd;
  let b: ApiaryOnEtcd | undefined;
  let port: number;

  before(async () => {
    etcd = await startEtcd();
    port = await freePort();
    const common = { port, endpointReconcilerType: 'lease' as const, endpointReconcileIntervalMs: 300, masterLeaseTtlSeconds: 2 };
    a = await startApiaryOnEtcd(etcd.endpoints, { ...common, bindAddress: '127.0.0.1', advertiseAddress: '192.0.2.10' });
    b = await startApiaryOnEtcd(etcd.endpoints, { ...common, bindAddress: '127.0.0.2', advertiseAddress: '192.0.2.11' });
  });

  after(async () => {
    await b?.stop();
    await a?.stop();
    await etcd?.stop();
  });

  const endpointIPs = async (url: string): Promise<string[]> => {
    const reply = await get(url, '/api/v1/namespaces/default/endpoints/kubernetes');
    if (reply.status !== 200) return [];
    const ep = reply.json as Endpoints;
    return (ep.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((x) => x.ip));
  };
  const sliceIPs = async (url: string): Promise<string[]> => {
    const reply = await get(url, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    if (reply.status !== 200) return [];
    return ((reply.json as Slice).endpoints ?? []).flatMap((e) => e.addresses);
  };

  test('the Service points at the secure port; both addresses are listed', async () => {
    const svc = await get(a.server.url, '/api/v1/namespaces/default/services/kubernetes');
    assert.equal(svc.status, 200);
    const spec = (svc.json as { spec: { clusterIP: string; ports: unknown[]; type: string } }).spec;
    assert.equal(spec.clusterIP, '10.0.0.1');
    assert.equal(spec.type, 'ClusterIP');
    assert.deepEqual(spec.ports, [{ name: 'https', protocol: 'TCP', port: 443, targetPort: port }]);
    assert.deepEqual((svc.json as { metadata: { labels: unknown } }).metadata.labels, { component: 'apiserver', provider: 'kubernetes' });

    await until('both addresses in the Endpoints', async () => (await endpointIPs(a.server.url)).join() === '192.0.2.10,192.0.2.11', 10_000, 100);
    await until('both addresses in the EndpointSlice', async () => (await sliceIPs(b!.server.url)).join() === '192.0.2.10,192.0.2.11', 10_000, 100);
    const ep = (await get(a.server.url, '/api/v1/namespaces/default/endpoints/kubernetes')).json as Endpoints;
    assert.deepEqual(ep.subsets?.[0]?.ports, [{ name: 'https', port, protocol: 'TCP' }]);
    assert.equal(ep.metadata.labels?.['endpointslice.kubernetes.io/skip-mirror'], 'true');
    const slice = (await get(a.server.url, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes')).json as Slice;
    assert.equal(slice.metadata.labels?.['kubernetes.io/service-name'], 'kubernetes');
    assert.deepEqual(slice.ports, [{ name: 'https', port, protocol: 'TCP' }]);
    assert.ok(slice.endpoints?.every((e) => e.conditions?.ready === true));
  });

  test("a server that died drops out when its lease's TTL has passed", async () => {
    // What a server writes before it is killed: its lease, which nobody renews afterwards.
    const raw = await openBackend({ kind: 'etcd', etcdServers: etcd.endpoints });
    try {
      await raw.create(`/registry/masterleases/192.0.2.99:${port}`, JSON.stringify({ ip: '192.0.2.99', port, renewTime: Date.now() }), { ttlSeconds: 2 });
    } finally {
      await raw.close();
    }
    await until('the dead server is listed', async () => (await endpointIPs(a.server.url)).includes('192.0.2.99'), 10_000, 100);
    const listedAt = Date.now();
    await until('the dead server drops out', async () => !(await endpointIPs(a.server.url)).includes('192.0.2.99'), 10_000, 100);
    assert.ok(Date.now() - listedAt >= 1000, 'not before its TTL has run out');
    await until('and out of the EndpointSlice', async () => (await sliceIPs(a.server.url)).join() === '192.0.2.10,192.0.2.11', 10_000, 100);
  });

  test('a server that stops drops out; the other keeps the lists', async () => {
    await b!.stop();
    b = undefined;
    await until('only the running server in the Endpoints', async () => (await endpointIPs(a.server.url)).join() === '192.0.2.10', 5_000, 100);
    await until('only the running server in the EndpointSlice', async () => (await sliceIPs(a.server.url)).join() === '192.0.2.10', 5_000, 100);
  });
});
