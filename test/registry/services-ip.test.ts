// Service cluster IPs as kube-apiserver 1.32 allocates them: picked from the
// service CIDR or honoured when requested, refused with upstream's messages
// when taken, out of range or exhausted, immutable, freed on delete and on a
// failed create, none for headless and ExternalName services, and kept
// across a restart on SQLite and between two registries on one backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MemoryBackend } from '../../src/storage/memory.js';
import { SqliteBackend } from '../../src/storage/sqlite.js';
import type { Backend } from '../../src/storage/interface.js';
import { createRegistry, type Registry } from '../../src/registry/index.js';
import type { RESTStore } from '../../src/registry/rest.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import type { Service } from '../../src/api/core/v1/types.js';
import { RangeAllocation } from '../../src/registry/range-allocation.js';
import { statusOf } from './helpers.js';

interface Harness {
  registry: Registry;
  services: RESTStore;
  close(): Promise<void>;
}

function harness(backend: Backend, serviceClusterIpRange?: string, closeBackend = true, serviceNodePortRange?: string): Harness {
  const registry = createRegistry({
    backend,
    ...(serviceClusterIpRange !== undefined ? { serviceClusterIpRange } : {}),
    ...(serviceNodePortRange !== undefined ? { serviceNodePortRange } : {}),
  });
  return {
    registry,
    services: registry.storeFor('', 'services')!,
    async close() {
      await registry.close();
      if (closeBackend) await backend.close();
    },
  };
}

function svc(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { metadata: { name }, spec: { selector: { app: name }, ports: [{ port: 80 }], ...spec } };
}

function specOf(obj: KubeObject): NonNullable<Service['spec']> {
  return (obj as Service).spec ?? {};
}

function ipNumber(ip: string): number {
  return ip.split('.').reduce((n, p) => n * 256 + Number(p), 0);
}

async function storedRange(backend: Backend): Promise<{ range: string; data: string } | null> {
  const { kv } = await backend.get('/registry/ranges/serviceips');
  return kv === null ? null : (JSON.parse(kv.value) as { range: string; data: string });
}

test('a ClusterIP service gets an IP from the default 10.0.0.0/24 with single-stack IPv4 fields', async () => {
  const backend = new MemoryBackend();
  const h = harness(backend);
  try {
    const created = await h.services.create('default', svc('web'), {});
    const spec = specOf(created);
    assert.match(spec.clusterIP ?? '', /^10\.0\.0\.\d+$/);
    const last = Number(spec.clusterIP!.split('.')[3]);
    assert.ok(last >= 1 && last <= 254, `${spec.clusterIP} is neither the network nor the broadcast address`);
    assert.deepEqual(spec.clusterIPs, [spec.clusterIP]);
    assert.deepEqual(spec.ipFamilies, ['IPv4']);
    assert.equal(spec.ipFamilyPolicy, 'SingleStack');
    assert.equal(spec.internalTrafficPolicy, 'Cluster');
    assert.deepEqual(specOf(await h.services.get('default', 'web', {})).clusterIPs, [spec.clusterIP]);

    const other = await h.services.create('default', svc('api'), {});
    assert.notEqual(specOf(other).clusterIP, spec.clusterIP);
    const range = await storedRange(backend);
    assert.equal(range?.range, '10.0.0.0/24');

    // NodePort and LoadBalancer services get one too; LoadBalancer defaults allocateLoadBalancerNodePorts.
    const np = await h.services.create('default', svc('np', { type: 'NodePort' }), {});
    assert.match(specOf(np).clusterIP ?? '', /^10\.0\.0\./);
    const lb = await h.services.create('default', svc('lb', { type: 'LoadBalancer' }), {});
    assert.match(specOf(lb).clusterIP ?? '', /^10\.0\.0\./);
    assert.equal((specOf(lb) as { allocateLoadBalancerNodePorts?: boolean }).allocateLoadBalancerNodePorts, true);
    assert.equal(new Set([spec.clusterIP, specOf(other).clusterIP, specOf(np).clusterIP, specOf(lb).clusterIP]).size, 4);
  } finally {
    await h.close();
  }
});

test('a requested IP is honoured when free and in range; taken, out of range and malformed ones are 422s with upstream messages', async () => {
  const h = harness(new MemoryBackend());
  try {
    const a = await h.services.create('default', svc('a', { clusterIP: '10.0.0.10' }), {});
    assert.equal(specOf(a).clusterIP, '10.0.0.10');
    assert.deepEqual(specOf(a).clusterIPs, ['10.0.0.10']);

    const taken = await statusOf(h.services.create('default', svc('b', { clusterIP: '10.0.0.10' }), {}));
    assert.equal(taken.code, 422);
    assert.equal(taken.reason, 'Invalid');
    assert.equal(taken.message, 'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.10"}: failed to allocate IP 10.0.0.10: provided IP is already allocated');
    assert.deepEqual(taken.details?.causes, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: []string{"10.0.0.10"}: failed to allocate IP 10.0.0.10: provided IP is already allocated', field: 'spec.clusterIPs' },
    ]);

    const outside = await statusOf(h.services.create('default', svc('c', { clusterIP: '10.1.0.5', clusterIPs: ['10.1.0.5'] }), {}));
    assert.equal(outside.code, 422);
    assert.equal(
      outside.message,
      'Service "c" is invalid: spec.clusterIPs: Invalid value: []string{"10.1.0.5"}: failed to allocate IP 10.1.0.5: the provided IP (10.1.0.5) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
    );
    // The broadcast address is not in the usable range either.
    assert.equal((await statusOf(h.services.create('default', svc('d', { clusterIP: '10.0.0.255' }), {}))).code, 422);

    const malformed = await statusOf(h.services.create('default', svc('e', { clusterIP: '10.0.0.300' }), {}));
    assert.equal(malformed.message, 'Service "e" is invalid: spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)');
    const mismatch = await statusOf(h.services.create('default', svc('f', { clusterIP: '10.0.0.11', clusterIPs: ['10.0.0.12'] }), {}));
    assert.equal(mismatch.message, 'Service "f" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.12"}: first value must match `clusterIP`');
    const v6 = await statusOf(h.services.create('default', svc('g', { clusterIP: 'fd00::1' }), {}));
    assert.equal(v6.message, 'Service "g" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::1"}: IPv6 is not configured on this cluster');
    const dual = await statusOf(h.services.create('default', svc('h', { ipFamilyPolicy: 'RequireDualStack' }), {}));
    assert.equal(dual.message, 'Service "h" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');

    // None of the refused requests kept an IP: 10.0.0.12 and 10.0.0.11 are still free.
    assert.equal(specOf(await h.services.create('default', svc('i', { clusterIP: '10.0.0.11' }), {})).clusterIP, '10.0.0.11');
    assert.equal(specOf(await h.services.create('default', svc('j', { clusterIP: '10.0.0.12' }), {})).clusterIP, '10.0.0.12');
  } finally {
    await h.close();
  }
});

test('a /29 range holds six services; the seventh is a 500 until a delete frees one', async () => {
  const h = harness(new MemoryBackend(), '10.9.0.0/29');
  try {
    const ips: string[] = [];
    for (let i = 0; i < 6; i++) ips.push(specOf(await h.services.create('default', svc(`s${i}`), {})).clusterIP!);
    assert.deepEqual([...ips].sort((x, y) => ipNumber(x) - ipNumber(y)), ['10.9.0.1', '10.9.0.2', '10.9.0.3', '10.9.0.4', '10.9.0.5', '10.9.0.6']);

    const full = await statusOf(h.services.create('default', svc('s6'), {}));
    assert.equal(full.code, 500);
    assert.equal(full.reason, 'InternalError');
    assert.equal(full.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
    await statusOf(h.services.get('default', 's6', {})).then((s) => assert.equal(s.code, 404));

    await h.services.delete('default', 's2', {});
    const again = await h.services.create('default', svc('s6'), {});
    assert.equal(specOf(again).clusterIP, ips[2], 'the deleted service IP is handed out again');
  } finally {
    await h.close();
  }
});

test('a create that fails after allocating gives its IP back', async () => {
  const h = harness(new MemoryBackend());
  try {
    await h.services.create('default', svc('a', { clusterIP: '10.0.0.20' }), {});
    const exists = await statusOf(h.services.create('default', svc('a', { clusterIP: '10.0.0.21' }), {}));
    assert.equal(exists.code, 409);
    assert.equal(specOf(await h.services.create('default', svc('b', { clusterIP: '10.0.0.21' }), {})).clusterIP, '10.0.0.21');
    // A dry run takes nothing.
    await h.services.create('default', svc('c', { clusterIP: '10.0.0.22' }), { dryRun: true });
    assert.equal(specOf(await h.services.create('default', svc('d', { clusterIP: '10.0.0.22' }), {})).clusterIP, '10.0.0.22');
  } finally {
    await h.close();
  }
});

test('clusterIP is immutable; an update that leaves it out keeps it', async () => {
  const h = harness(new MemoryBackend());
  try {
    const created = await h.services.create('default', svc('a'), {});
    const ip = specOf(created).clusterIP!;

    const changed = structuredClone(created);
    (changed.spec as Record<string, unknown>).clusterIP = '10.0.0.99';
    const refused = await statusOf(h.services.update('default', 'a', changed, {}));
    assert.equal(refused.code, 422);
    assert.equal(refused.message, 'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.99"}: may not change once set');

    const patched = await statusOf(h.services.patch('default', 'a', (cur) => ({ ...cur, spec: { ...(cur.spec as object), clusterIP: '10.0.0.98', clusterIPs: ['10.0.0.98'] } }), {}));
    assert.equal(patched.message, 'Service "a" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.98"}: may not change once set');

    // A body built anew (no clusterIP, no ipFamilies) keeps what was allocated.
    const { object } = await h.services.update('default', 'a', { metadata: { name: 'a' }, spec: { selector: { app: 'b' }, ports: [{ port: 81 }] } }, {});
    assert.equal(specOf(object).clusterIP, ip);
    assert.deepEqual(specOf(object).clusterIPs, [ip]);
    assert.deepEqual(specOf(object).ipFamilies, ['IPv4']);
    assert.equal(specOf(object).ipFamilyPolicy, 'SingleStack');
    // The refused changes took nothing: 10.0.0.99 is free.
    assert.equal(specOf(await h.services.create('default', svc('b', { clusterIP: '10.0.0.99' }), {})).clusterIP, '10.0.0.99');
  } finally {
    await h.close();
  }
});

test('headless services keep None and take no IP', async () => {
  const backend = new MemoryBackend();
  const h = harness(backend, '10.9.0.0/29');
  try {
    const headless = await h.services.create('default', svc('db', { clusterIP: 'None' }), {});
    assert.equal(specOf(headless).clusterIP, 'None');
    assert.deepEqual(specOf(headless).clusterIPs, ['None']);
    assert.deepEqual(specOf(headless).ipFamilies, ['IPv4']);
    assert.equal(specOf(headless).ipFamilyPolicy, 'SingleStack');
    // Without a selector, upstream asks for both families even on a single-stack cluster.
    const bare = await h.services.create('default', { metadata: { name: 'bare' }, spec: { clusterIP: 'None' } }, {});
    assert.deepEqual(specOf(bare).ipFamilies, ['IPv4', 'IPv6']);
    assert.equal(specOf(bare).ipFamilyPolicy, 'RequireDualStack');
    assert.equal(await storedRange(backend), null, 'no allocation was written');

    const nodePort = await statusOf(h.services.create('default', svc('np', { type: 'NodePort', clusterIP: 'None' }), {}));
    assert.equal(nodePort.message, 'Service "np" is invalid: spec.clusterIPs[0]: Invalid value: "None": may not be set to \'None\' for NodePort services');
    await h.services.delete('default', 'db', {});
    // All six addresses of the /29 are still free.
    for (let i = 0; i < 6; i++) await h.services.create('default', svc(`s${i}`), {});
  } finally {
    await h.close();
  }
});

test('ExternalName services get no IP; switching type frees and allocates', async () => {
  const h = harness(new MemoryBackend(), '10.9.0.0/29');
  try {
    const ext = await h.services.create('default', { metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } }, {});
    const spec = specOf(ext);
    assert.equal(spec.clusterIP, undefined);
    assert.equal(spec.clusterIPs, undefined);
    assert.equal(spec.ipFamilies, undefined);
    assert.equal(spec.ipFamilyPolicy, undefined);
    assert.equal(spec.internalTrafficPolicy, undefined);
    const withIP = await statusOf(h.services.create('default', { metadata: { name: 'x' }, spec: { type: 'ExternalName', externalName: 'a.b', clusterIP: '10.9.0.1' } }, {}));
    assert.equal(withIP.message, 'Service "x" is invalid: spec.clusterIPs: Forbidden: may not be set for ExternalName services');

    // ClusterIP → ExternalName drops the allocated fields and frees the IP.
    const web = await h.services.create('default', svc('web', { clusterIP: '10.9.0.3' }), {});
    assert.equal(specOf(web).clusterIP, '10.9.0.3');
    const turned = await h.services.patch('default', 'web', (cur) => ({ ...cur, spec: { ...(cur.spec as object), type: 'ExternalName', externalName: 'web.example.com' } }), {});
    assert.equal(specOf(turned).clusterIP, undefined);
    assert.equal(specOf(turned).clusterIPs, undefined);
    assert.equal(specOf(turned).ipFamilies, undefined);
    // As upstream: internalTrafficPolicy goes with the switch to ExternalName.
    assert.equal(specOf(turned).internalTrafficPolicy, undefined);
    assert.equal(specOf(await h.services.create('default', svc('other', { clusterIP: '10.9.0.3' }), {})).clusterIP, '10.9.0.3');

    // LoadBalancer → ExternalName also drops allocateLoadBalancerNodePorts the client left as it was.
    const lb = await h.services.create('default', svc('lb', { type: 'LoadBalancer' }), {});
    assert.equal((specOf(lb) as { allocateLoadBalancerNodePorts?: boolean }).allocateLoadBalancerNodePorts, true);
    const lbTurned = await h.services.patch(
      'default',
      'lb',
      (cur) => ({ ...cur, spec: { ...(cur.spec as object), type: 'ExternalName', externalName: 'lb.example.com', clusterIP: '', clusterIPs: undefined, ports: undefined } }),
      {},
    );
    assert.equal((specOf(lbTurned) as { allocateLoadBalancerNodePorts?: boolean }).allocateLoadBalancerNodePorts, undefined);
    assert.equal(specOf(lbTurned).internalTrafficPolicy, undefined);

    // ExternalName → ClusterIP allocates.
    const back = await h.services.patch('default', 'ext', (cur) => ({ ...cur, spec: { ...(cur.spec as object), type: 'ClusterIP', externalName: undefined, ports: [{ port: 80 }] } }), {});
    assert.match(specOf(back).clusterIP ?? '', /^10\.9\.0\.[1-6]$/);
    assert.notEqual(specOf(back).clusterIP, '10.9.0.3');
    assert.deepEqual(specOf(back).ipFamilies, ['IPv4']);
    assert.equal(specOf(back).ipFamilyPolicy, 'SingleStack');
  } finally {
    await h.close();
  }
});

test('PUT that creates a service allocates; deletecollection frees every IP', async () => {
  const h = harness(new MemoryBackend(), '10.9.0.0/29');
  try {
    const { object, created } = await h.services.update('default', 'put', svc('put'), {});
    assert.equal(created, true);
    assert.match(specOf(object).clusterIP ?? '', /^10\.9\.0\.[1-6]$/);
    for (let i = 0; i < 5; i++) await h.services.create('default', svc(`s${i}`), {});
    assert.equal((await statusOf(h.services.create('default', svc('full'), {}))).code, 500);
    await h.services.deleteCollection('default', {}, {});
    for (let i = 0; i < 6; i++) await h.services.create('default', svc(`t${i}`), {});
  } finally {
    await h.close();
  }
});

test('allocations survive a restart on SQLite, and a changed range is rebuilt from the services', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-service-ips-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'state.db');

  const first = harness(SqliteBackend.open(file), '10.9.0.0/29');
  const held: string[] = [];
  try {
    for (let i = 0; i < 3; i++) held.push(specOf(await first.services.create('default', svc(`s${i}`), {})).clusterIP!);
  } finally {
    await first.close();
  }

  const second = harness(SqliteBackend.open(file), '10.9.0.0/29');
  try {
    const taken = await statusOf(second.services.create('default', svc('dup', { clusterIP: held[0] }), {}));
    assert.equal(taken.message, `Service "dup" is invalid: spec.clusterIPs: Invalid value: []string{"${held[0]}"}: failed to allocate IP ${held[0]}: provided IP is already allocated`);
    const fresh: string[] = [];
    for (let i = 3; i < 6; i++) fresh.push(specOf(await second.services.create('default', svc(`s${i}`), {})).clusterIP!);
    assert.deepEqual(fresh.filter((ip) => held.includes(ip)), [], 'no IP handed out twice');
    assert.equal((await statusOf(second.services.create('default', svc('s6'), {}))).code, 500);
  } finally {
    await second.close();
  }

  // A wider range after a restart: the services' IPs stay taken.
  const thirdBackend = SqliteBackend.open(file);
  const third = harness(thirdBackend, '10.9.0.0/24');
  try {
    const taken = await statusOf(third.services.create('default', svc('dup', { clusterIP: held[1] }), {}));
    assert.equal(taken.code, 422);
    assert.equal(specOf(await third.services.create('default', svc('s7', { clusterIP: '10.9.0.7' }), {})).clusterIP, '10.9.0.7');
    assert.equal((await storedRange(thirdBackend))?.range, '10.9.0.0/24');
  } finally {
    await third.close();
  }
});

test('two registries on one backend (two servers on one etcd) never hand out the same IP', async () => {
  const backend = new MemoryBackend();
  const a = harness(backend, '10.9.0.0/27', false);
  const b = harness(backend, '10.9.0.0/27', false);
  try {
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).services.create('default', svc(`s${i}`), {})),
    );
    const ips = created.map((o) => specOf(o).clusterIP!);
    assert.equal(new Set(ips).size, 30, 'every IP distinct');
    assert.ok(ips.every((ip) => ipNumber(ip) >= ipNumber('10.9.0.1') && ipNumber(ip) <= ipNumber('10.9.0.30')));
    assert.equal((await statusOf(b.services.create('default', svc('more'), {}))).code, 500);
  } finally {
    await a.close();
    await b.close();
    await backend.close();
  }
});

function nodePorts(obj: KubeObject): (number | undefined)[] {
  return (specOf(obj).ports ?? []).map((p) => p.nodePort);
}

test('NodePort and LoadBalancer services get node ports from 30000-32767; ports with one number share one', async () => {
  const h = harness(new MemoryBackend());
  try {
    const np = await h.services.create('default', svc('np', { type: 'NodePort' }), {});
    const [port] = nodePorts(np);
    assert.ok(port !== undefined && port >= 30000 && port <= 32767, String(port));
    const dns = await h.services.create(
      'default',
      svc('dns', { type: 'NodePort', ports: [{ name: 'tcp', port: 53, protocol: 'TCP' }, { name: 'udp', port: 53, protocol: 'UDP' }] }),
      {},
    );
    const [tcp, udp] = nodePorts(dns);
    assert.equal(tcp, udp, 'TCP and UDP on port 53 share their node port');
    assert.notEqual(tcp, port);
    const lb = await h.services.create('default', svc('lb', { type: 'LoadBalancer' }), {});
    assert.ok((nodePorts(lb)[0] ?? 0) >= 30000);
    const bare = await h.services.create('default', svc('bare', { type: 'LoadBalancer', allocateLoadBalancerNodePorts: false }), {});
    assert.deepEqual(nodePorts(bare), [undefined]);
    const cip = await h.services.create('default', svc('cip'), {});
    assert.deepEqual(nodePorts(cip), [undefined]);
  } finally {
    await h.close();
  }
});

test('requested node ports: honoured, or 422 when taken or out of range; a full range is a 500 and gives the cluster IP back', async () => {
  const h = harness(new MemoryBackend(), '10.9.0.0/29', true, '30000-30002');
  try {
    const a = await h.services.create('default', svc('a', { type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] }), {});
    assert.deepEqual(nodePorts(a), [30001]);
    const taken = await statusOf(h.services.create('default', svc('b', { type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] }), {}));
    assert.equal(taken.code, 422);
    assert.equal(taken.message, 'Service "b" is invalid: spec.ports[0].nodePort: Invalid value: 30001: provided port is already allocated');
    const outside = await statusOf(
      h.services.create('default', svc('c', { type: 'NodePort', ports: [{ name: 'a', port: 80 }, { name: 'b', port: 81, nodePort: 8888 }] }), {}),
    );
    assert.equal(outside.message, 'Service "c" is invalid: spec.ports[1].nodePort: Invalid value: 8888: provided port is not in the valid range. The range of valid ports is 30000-30002');

    await h.services.create('default', svc('d', { type: 'NodePort' }), {});
    await h.services.create('default', svc('e', { type: 'NodePort' }), {});
    const full = await statusOf(h.services.create('default', svc('f', { type: 'NodePort' }), {}));
    assert.equal(full.code, 500);
    assert.equal(full.message, 'Internal error occurred: failed to allocate a nodePort: range is full');
    // The refused services' cluster IPs went back: 3 services hold 3 of the /29's 6 IPs.
    for (let i = 0; i < 3; i++) await h.services.create('default', svc(`ip${i}`), {});
    assert.equal((await statusOf(h.services.create('default', svc('ip3'), {}))).code, 500);

    // Deleting frees the node port.
    await h.services.delete('default', 'a', {});
    await h.services.delete('default', 'ip0', {});
    assert.deepEqual(nodePorts(await h.services.create('default', svc('g', { type: 'NodePort', ports: [{ port: 80, nodePort: 30001 }] }), {})), [30001]);
  } finally {
    await h.close();
  }
});

test('updates keep node ports a body leaves out, and turning into ClusterIP frees them', async () => {
  const h = harness(new MemoryBackend(), undefined, true, '30000-30001');
  try {
    const np = await h.services.create('default', svc('np', { type: 'NodePort' }), {});
    const port = nodePorts(np)[0]!;
    const { object } = await h.services.update('default', 'np', { metadata: { name: 'np' }, spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80 }] } }, {});
    assert.deepEqual(nodePorts(object), [port]);
    const ip = specOf(object).clusterIP;

    const turned = await h.services.patch('default', 'np', (cur) => ({ ...cur, spec: { ...(cur.spec as object), type: 'ClusterIP' } }), {});
    assert.deepEqual(nodePorts(turned), [undefined]);
    assert.equal(specOf(turned).externalTrafficPolicy, undefined);
    assert.equal(specOf(turned).clusterIP, ip, 'the cluster IP stays');
    // Both ports of the two-port range are free again.
    await h.services.create('default', svc('x', { type: 'NodePort', ports: [{ port: 80, nodePort: port }] }), {});
    await h.services.create('default', svc('y', { type: 'NodePort' }), {});
  } finally {
    await h.close();
  }
});

test('RangeAllocation: racing writers on one backend retry on conflict instead of losing an allocation', async () => {
  const backend = new MemoryBackend();
  // Reads answer a macrotask later, so the two allocators' read-change-write cycles interleave.
  const slow: Backend = Object.create(backend) as Backend;
  slow.get = async (key, options) => {
    const res = await backend.get(key, options);
    await new Promise((resolve) => setImmediate(resolve));
    return res;
  };
  const a = new RangeAllocation({ backend: slow, key: '/registry/ranges/test', range: '0-39', size: 40 });
  const b = new RangeAllocation({ backend: slow, key: '/registry/ranges/test', range: '0-39', size: 40 });
  try {
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? a : b).allocateNext()));
    assert.equal(new Set(got).size, 40, 'every offset handed out once');
    assert.equal(await a.allocateNext(), undefined, 'the range is full');
    assert.equal(await b.allocate(7), false);
    await a.release(7);
    assert.equal(await b.allocate(7), true);
  } finally {
    await backend.close();
  }
});

test('a dry-run create shows the range network address as its cluster IP, takes nothing, and checks a requested IP', async () => {
  const h = harness(new MemoryBackend(), '10.0.0.0/29');
  try {
    const dry = await h.services.create('default', svc('dry'), { dryRun: true });
    assert.equal(specOf(dry).clusterIP, '10.0.0.0');
    assert.deepEqual(specOf(dry).clusterIPs, ['10.0.0.0']);
    await statusOf(h.services.get('default', 'dry', {})).then((s) => assert.equal(s.code, 404));
    const outside = await statusOf(h.services.create('default', svc('far', { clusterIP: '10.9.9.9' }), { dryRun: true }));
    assert.equal(outside.code, 422);
    assert.match(outside.message ?? '', /the provided IP \(10\.9\.9\.9\) is not in the valid range/);
    // All six addresses can still be taken: the dry run held none.
    for (let i = 0; i < 6; i++) await h.services.create('default', svc(`s${i}`), {});
  } finally {
    await h.close();
  }
});
