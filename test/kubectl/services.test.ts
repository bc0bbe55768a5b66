// Real kubectl 1.32 and service cluster IPs: a typed create gets an IP from
// the default service CIDR, and a taken IP is refused with upstream's text.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kubectl, expectTable, kubectlAgainstNewServer } from './helpers.js';

let k: Kubectl;

before(async () => {
  k = await kubectlAgainstNewServer();
});
after(() => k.server.stop());

test('kubectl create service clusterip, then get svc shows a CLUSTER-IP in 10.0.0.0/24', async () => {
  assert.equal(await k.ok(['create', 'service', 'clusterip', 'web', '--tcp=80:8080']), 'service/web created\n');
  const rows = expectTable(await k.ok(['get', 'svc', 'web']), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
  assert.equal(rows.length, 1);
  const [name, type, clusterIP, external, ports] = rows[0]!;
  assert.deepEqual([name, type, external, ports], ['web', 'ClusterIP', '<none>', '80/TCP']);
  assert.match(clusterIP ?? '', /^10\.0\.0\.(\d+)$/);
  const last = Number(clusterIP!.split('.')[3]);
  assert.ok(last >= 1 && last <= 254, clusterIP);

  const err = await k.fails(['create', 'service', 'clusterip', 'copy', '--tcp=80:8080', `--clusterip=${clusterIP}`]);
  assert.equal(
    err,
    `error: failed to create ClusterIP service: Service "copy" is invalid: spec.clusterIPs: Invalid value: []string{"${clusterIP}"}: failed to allocate IP ${clusterIP}: provided IP is already allocated\n`,
  );
  const headless = await k.ok(['create', 'service', 'clusterip', 'db', '--clusterip=None', '-o', 'jsonpath={.spec.clusterIP}']);
  assert.equal(headless, 'None');
});
