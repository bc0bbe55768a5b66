// Two large CRDs from the ecosystem, unmodified (fixtures/README.md says where
// they come from): cert-manager's Certificate and the Prometheus operator's
// Prometheus (833 KB of schema). Both install, become Established, and
// objects round-trip through them: defaults applied, unknown fields pruned,
// schema violations refused, printer columns (JSONPath filters included) and
// selectable fields served.
//
// The Prometheus CRD declares x-kubernetes-validations: the server's default
// compiler (machinery/cel) compiles them and its rules are enforced.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { get, request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');
const certificateCrd = parse(fs.readFileSync(path.join(dir, 'cert-manager/cert-manager.io_certificates.yaml'), 'utf8'));
const prometheusCrd = parse(fs.readFileSync(path.join(dir, 'prometheus-operator/monitoring.coreos.com_prometheuses.yaml'), 'utf8'));
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

async function install(server: TestServer, crd: { metadata: { name: string } }): Promise<void> {
  // Strict: every field of these CRDs is known (nothing is silently dropped).
  const created = await request(server.url, 'POST', `${CRDS}?fieldValidation=Strict`, { body: crd });
  assert.equal(created.status, 201, created.text.slice(0, 2000));
  await until(`${crd.metadata.name} Established`, async () => {
    const got = (await get(server.url, `${CRDS}/${crd.metadata.name}`)).json;
    return (got.status.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True');
  });
}

describe('cert-manager Certificate', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'certs' } } });
    await install(server, certificateCrd);
  });
  after(() => server.stop());
  const base = '/apis/cert-manager.io/v1/namespaces/certs/certificates';

  test('a Certificate round-trips; unknown fields are pruned; the schema is enforced', async () => {
    const body = {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'example-com' },
      spec: {
        secretName: 'example-com-tls',
        dnsNames: ['example.com', 'www.example.com'],
        duration: '2160h0m0s',
        renewBefore: '360h0m0s',
        privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
        issuerRef: { name: 'letsencrypt', kind: 'ClusterIssuer', group: 'cert-manager.io' },
        usages: ['server auth', 'client auth'],
        notAKnownField: true,
      },
    };
    const created = await request(server.url, 'POST', base, { body });
    assert.equal(created.status, 201, created.text);
    const { notAKnownField: _dropped, ...known } = body.spec;
    assert.deepEqual(created.json.spec, known);
    const got = await get(server.url, `${base}/example-com`);
    assert.deepEqual(got.json.spec, known);

    const bad = await request(server.url, 'POST', base, { body: { ...body, metadata: { name: 'bad' }, spec: { ...body.spec, privateKey: { algorithm: 'DSA' } } } });
    assert.equal(bad.status, 422, bad.text);
    assert.match(bad.json.message, /spec\.privateKey\.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"/);
    const missing = await request(server.url, 'POST', base, { body: { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'bad' }, spec: { dnsNames: ['x'] } } });
    assert.equal(missing.status, 422);
    assert.match(missing.json.message, /spec\.issuerRef: Required value/);
    assert.match(missing.json.message, /spec\.secretName: Required value/);
  });

  test('status through /status, printer columns with JSONPath filters, selectable fields', async () => {
    const current = (await get(server.url, `${base}/example-com`)).json;
    const status = {
      conditions: [
        { type: 'Issuing', status: 'False', reason: 'Done', message: 'ok', lastTransitionTime: '2026-01-01T00:00:00Z' },
        { type: 'Ready', status: 'True', reason: 'Ready', message: 'Certificate is up to date and has not expired', lastTransitionTime: '2026-01-01T00:00:00Z' },
      ],
      notAfter: '2027-01-01T00:00:00Z',
    };
    const updated = await request(server.url, 'PUT', `${base}/example-com/status`, { body: { ...current, status } });
    assert.equal(updated.status, 200, updated.text);
    const table = await get(server.url, base, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    assert.deepEqual(
      table.json.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Ready', 'Secret', 'Issuer', 'Status', 'Expiration', 'Age'],
    );
    assert.deepEqual(table.json.rows[0].cells.slice(0, 5), ['example-com', 'True', 'example-com-tls', 'letsencrypt', 'Certificate is up to date and has not expired']);
    // A string column prints the value as it is; the date column (Age) a duration.
    assert.equal(table.json.rows[0].cells[5], '2027-01-01T00:00:00Z');
    assert.match(table.json.rows[0].cells[6], /^\d+s$/);
    const selected = await get(server.url, `${base}?fieldSelector=spec.issuerRef.kind%3DClusterIssuer`);
    assert.equal(selected.status, 200, selected.text);
    assert.deepEqual(selected.json.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['example-com']);
    const none = await get(server.url, `${base}?fieldSelector=spec.issuerRef.kind%3DIssuer`);
    assert.deepEqual(none.json.items, []);
  });
});

describe('Prometheus operator Prometheus', () => {
  describe("with the server's default compiler (machinery/cel)", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer();
      await request(server.url, 'POST', '/api/v1/namespaces', { body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'monitoring' } } });
      await install(server, prometheusCrd);
    });
    after(() => server.stop());
    const base = '/apis/monitoring.coreos.com/v1/namespaces/monitoring/prometheuses';

    test('a Prometheus round-trips with its defaults; the schema is enforced', async () => {
      const body = {
        apiVersion: 'monitoring.coreos.com/v1',
        kind: 'Prometheus',
        metadata: { name: 'k8s', labels: { prometheus: 'k8s' } },
        spec: {
          replicas: 2,
          version: 'v3.5.0',
          serviceAccountName: 'prometheus-k8s',
          serviceMonitorSelector: {},
          ruleSelector: { matchLabels: { role: 'alert-rules' } },
          resources: { requests: { memory: '400Mi' } },
          retention: '15d',
          alerting: { alertmanagers: [{ namespace: 'monitoring', name: 'alertmanager-main', port: 'web' }] },
          securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000 },
          containers: [{ name: 'sidecar', image: 'example/sidecar:1', args: ['--x'] }],
        },
      };
      const created = await request(server.url, 'POST', base, { body });
      assert.equal(created.status, 201, created.text.slice(0, 2000));
      const spec = created.json.spec;
      for (const [k, v] of Object.entries(body.spec)) assert.deepEqual(spec[k], v, k);
      // Defaults from the schema (shards: 1 and the like) were filled in.
      assert.equal(spec.shards, 1);
      assert.deepEqual((await get(server.url, `${base}/k8s`)).json.spec, spec);

      const bad = await request(server.url, 'POST', base, { body: { ...body, metadata: { name: 'bad' }, spec: { ...body.spec, replicas: 'two', containers: [{ image: 'x' }] } } });
      assert.equal(bad.status, 422, bad.text);
      assert.match(bad.json.message, /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/);
      assert.match(bad.json.message, /spec\.containers\[0\]\.name: Required value/);
    });

    test('its x-kubernetes-validations rules are enforced', async () => {
      const reply = await request(server.url, 'POST', base, {
        body: { apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', metadata: { name: 'sharded' }, spec: { shardingStrategy: { topology: { values: ['a'] } } } },
      });
      assert.equal(reply.status, 422, reply.text);
      assert.equal(reply.json.message, `Prometheus.monitoring.coreos.com "sharded" is invalid: spec.shardingStrategy: Invalid value: "object": topology can only be defined when mode is set to 'Topology'`);
    });

    test('scale and printer columns', async () => {
      const scale = await get(server.url, `${base}/k8s/scale`);
      assert.equal(scale.status, 200, scale.text);
      // The Prometheus CRD scales shards, not replicas.
      assert.equal(scale.json.spec.replicas, 1);
      const table = await get(server.url, base, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
      assert.deepEqual(table.json.columnDefinitions.slice(0, 3).map((c: { name: string }) => c.name), ['Name', 'Version', 'Desired']);
      assert.deepEqual(table.json.rows[0].cells.slice(0, 3), ['k8s', 'v3.5.0', 2]);
    });
  });
});
