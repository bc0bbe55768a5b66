// A tenant confined to its namespace, seen through the real kubectl 1.32 over
// TLS with verification: the admin kubeconfig, alice bound to `edit` in team-a
// (works there, upstream's Forbidden in team-b and across namespaces), auth
// can-i / --list, --as, auth whoami, create token (revoked with its service
// account), RBAC escalation refusals.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { runKubectl } from '../helpers/kubectl.js';
import { secureRequest, startSecureServer, tokenKubeconfig } from './helpers.js';

let server: Awaited<ReturnType<typeof startSecureServer>>;
let admin: string;
let alice: string;

before(async () => {
  server = await startSecureServer();
  admin = server.kubeconfigPath;
  alice = tokenKubeconfig(server, 'alice', 'alice-token');
  for (const ns of ['team-a', 'team-b']) assert.equal((await runKubectl(admin, ['create', 'ns', ns])).code, 0);
  const bound = await runKubectl(admin, ['create', 'rolebinding', 'alice-edit', '--clusterrole=edit', '--user=alice', '-n', 'team-a']);
  assert.equal(bound.code, 0, bound.stderr);
});
after(() => server.stop());

test('the admin kubeconfig verifies the server with the cluster CA and authenticates with a system:masters certificate', async () => {
  assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const text = fs.readFileSync(admin, 'utf8');
  assert.match(text, /certificate-authority-data: /);
  assert.match(text, /client-certificate-data: /);
  assert.doesNotMatch(text, /insecure-skip-tls-verify/);
  for (const f of fs.readdirSync(path.join(server.dataDir, 'pki'))) {
    assert.equal(fs.statSync(path.join(server.dataDir, 'pki', f)).mode & 0o777, 0o600, f);
  }
  assert.equal(fs.statSync(path.join(server.dataDir, 'pki')).mode & 0o777, 0o700);
  const roles = await runKubectl(admin, ['get', 'clusterroles']);
  assert.equal(roles.code, 0, roles.stderr);
  for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer']) {
    assert.match(roles.stdout, new RegExp(`^${name} `, 'm'));
  }
  const who = await runKubectl(admin, ['auth', 'whoami', '-o', 'json']);
  assert.equal(who.code, 0, who.stderr);
  assert.deepEqual(JSON.parse(who.stdout).status.userInfo, { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] });
});

test('alice works in team-a and gets upstream Forbidden in team-b and across namespaces', async () => {
  const created = await runKubectl(alice, ['create', 'configmap', 'settings', '-n', 'team-a', '--from-literal=mode=fast']);
  assert.equal(created.code, 0, created.stderr);
  const listed = await runKubectl(alice, ['get', 'configmaps', '-n', 'team-a', '-o', 'name']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /configmap\/settings/);

  const other = await runKubectl(alice, ['get', 'configmaps', '-n', 'team-b']);
  assert.notEqual(other.code, 0);
  assert.equal(
    other.stderr.trim(),
    'Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-b"',
  );
  const all = await runKubectl(alice, ['get', 'configmaps', '--all-namespaces']);
  assert.notEqual(all.code, 0);
  assert.equal(
    all.stderr.trim(),
    'Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" at the cluster scope',
  );
  const createB = await runKubectl(alice, ['create', 'configmap', 'x', '-n', 'team-b']);
  assert.match(createB.stderr, /configmaps is forbidden: User "alice" cannot create resource "configmaps" in API group "" in the namespace "team-b"/);
  // Nothing was written by the refused request.
  const inB = await runKubectl(admin, ['get', 'configmaps', '-n', 'team-b', '-o', 'name']);
  assert.doesNotMatch(inB.stdout, /configmap\/x/);
});

test('kubectl auth can-i and can-i --list', async () => {
  const yes = await runKubectl(alice, ['auth', 'can-i', 'create', 'configmaps', '-n', 'team-a']);
  assert.equal(yes.stdout.trim(), 'yes');
  const no = await runKubectl(alice, ['auth', 'can-i', 'create', 'configmaps', '-n', 'team-b']);
  assert.equal(no.stdout.trim(), 'no');
  assert.equal(no.code, 1);
  const rbac = await runKubectl(alice, ['auth', 'can-i', 'create', 'rolebindings', '-n', 'team-a']);
  assert.equal(rbac.stdout.trim(), 'no', 'edit does not grant RBAC');
  const list = await runKubectl(alice, ['auth', 'can-i', '--list', '-n', 'team-a']);
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^configmaps\s+\[\]\s+\[\]\s+\[create delete deletecollection patch update get list watch\]/m);
  assert.match(list.stdout, /^selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/m);
  assert.match(list.stdout, /\[\/api\/\*\]\s+\[\]\s+\[get\]/);
  const listB = await runKubectl(alice, ['auth', 'can-i', '--list', '-n', 'team-b']);
  assert.doesNotMatch(listB.stdout, /^configmaps /m);
});

test('kubectl --as: impersonation by the admin, refused for alice with upstream message', async () => {
  const asAlice = await runKubectl(admin, ['--as', 'alice', 'get', 'configmaps', '-n', 'team-b']);
  assert.match(asAlice.stderr, /User "alice" cannot list resource "configmaps" in API group "" in the namespace "team-b"/);
  const asAliceA = await runKubectl(admin, ['--as', 'alice', 'get', 'configmaps', '-n', 'team-a', '-o', 'name']);
  assert.equal(asAliceA.code, 0, asAliceA.stderr);
  const whoAs = await runKubectl(admin, ['--as', 'bob', '--as-group', 'dev', 'auth', 'whoami', '-o', 'json']);
  assert.deepEqual(JSON.parse(whoAs.stdout).status.userInfo, { username: 'bob', groups: ['dev', 'system:authenticated'] });
  const aliceAsBob = await runKubectl(alice, ['--as', 'bob', 'get', 'configmaps', '-n', 'team-a']);
  assert.equal(
    aliceAsBob.stderr.trim(),
    'Error from server (Forbidden): users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope',
  );
});

test('kubectl auth whoami for a token user', async () => {
  const who = await runKubectl(alice, ['auth', 'whoami']);
  assert.equal(who.code, 0, who.stderr);
  assert.match(who.stdout, /Username\s+alice/);
  assert.match(who.stdout, /UID\s+alice-uid/);
  assert.match(who.stdout, /Groups\s+\[system:authenticated\]/);
});

test('kubectl create token: the token authenticates as the service account until the account is deleted', async () => {
  assert.equal((await runKubectl(admin, ['create', 'serviceaccount', 'robot', '-n', 'team-a'])).code, 0);
  const made = await runKubectl(admin, ['create', 'token', 'robot', '-n', 'team-a', '--duration', '20m']);
  assert.equal(made.code, 0, made.stderr);
  const token = made.stdout.trim();
  assert.equal(token.split('.').length, 3);
  const robot = tokenKubeconfig(server, 'robot', token);
  const who = await runKubectl(robot, ['auth', 'whoami', '-o', 'json']);
  assert.equal(who.code, 0, who.stderr);
  const info = JSON.parse(who.stdout).status.userInfo;
  assert.equal(info.username, 'system:serviceaccount:team-a:robot');
  assert.deepEqual(info.groups, ['system:serviceaccounts', 'system:serviceaccounts:team-a', 'system:authenticated']);
  // No role for it yet: Forbidden, not Unauthorized.
  const cm = await runKubectl(robot, ['get', 'configmaps', '-n', 'team-a']);
  assert.match(cm.stderr, /User "system:serviceaccount:team-a:robot" cannot list resource "configmaps"/);

  assert.equal((await runKubectl(admin, ['delete', 'serviceaccount', 'robot', '-n', 'team-a'])).code, 0);
  const gone = await secureRequest(server.url, server.ca, 'GET', '/api/v1/namespaces/team-a/configmaps', { headers: { authorization: `Bearer ${token}` } });
  assert.equal(gone.status, 401);
  // A tampered token is refused too.
  const tampered = await secureRequest(server.url, server.ca, 'GET', '/version', { headers: { authorization: `Bearer ${token.slice(0, -4)}AAAA` } });
  assert.equal(tampered.status, 401);
});

test('escalation: a namespace admin cannot grant what it does not hold (upstream messages, nothing written)', async () => {
  assert.equal((await runKubectl(admin, ['create', 'rolebinding', 'alice-admin', '--clusterrole=admin', '--user=alice', '-n', 'team-a'])).code, 0);
  const ok = await runKubectl(alice, ['create', 'role', 'cm-reader', '--verb=get,list', '--resource=configmaps', '-n', 'team-a']);
  assert.equal(ok.code, 0, ok.stderr);
  const nodes = await runKubectl(alice, ['create', 'role', 'node-reader', '--verb=get,list', '--resource=nodes', '-n', 'team-a']);
  assert.match(
    nodes.stderr,
    /roles\.rbac\.authorization\.k8s\.io "node-reader" is forbidden: user "alice" \(groups=\["system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get" "list"\]\}/,
  );
  const bindAdmin = await runKubectl(alice, ['create', 'rolebinding', 'x', '--clusterrole=cluster-admin', '--user=alice', '-n', 'team-a']);
  assert.match(bindAdmin.stderr, /rolebindings\.rbac\.authorization\.k8s\.io "x" is forbidden: user "alice" .* not currently held:\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}/s);
  const missing = await runKubectl(alice, ['create', 'rolebinding', 'y', '--clusterrole=nope', '--user=alice', '-n', 'team-a']);
  assert.match(missing.stderr, /rolebindings\.rbac\.authorization\.k8s\.io "nope" not found/);
  const roles = await runKubectl(admin, ['get', 'roles,rolebindings', '-n', 'team-a', '-o', 'name']);
  assert.doesNotMatch(roles.stdout, /node-reader|\/x$|\/y$/m);
  // Server-side apply goes through the same check.
  const role = (resource: string): string =>
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: applied, namespace: team-a}\nrules:\n- {apiGroups: [""], resources: [${resource}], verbs: [get]}\n`;
  const appliedOk = await runKubectl(alice, ['apply', '--server-side', '-f', '-'], { stdin: role('configmaps') });
  assert.equal(appliedOk.code, 0, appliedOk.stderr);
  const appliedBad = await runKubectl(alice, ['apply', '--server-side', '-f', '-'], { stdin: role('nodes') });
  assert.match(appliedBad.stderr, /is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["nodes"\], Verbs:\["get"\]\}/);
  const kept = await runKubectl(admin, ['get', 'role', 'applied', '-n', 'team-a', '-o', 'jsonpath={.rules[0].resources[0]}']);
  assert.equal(kept.stdout, 'configmaps');
  // Binding a role she holds is fine.
  const bindReader = await runKubectl(alice, ['create', 'rolebinding', 'bob-reader', '--role=cm-reader', '--user=bob', '-n', 'team-a']);
  assert.equal(bindReader.code, 0, bindReader.stderr);
});
