import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRequestInfo, splitTarget } from '../../src/server/request-info.js';

type Row = [method: string, url: string, expected: Partial<ReturnType<typeof parseRequestInfo>>];

const rows: Row[] = [
  ['GET', '/api/v1/namespaces/default/configmaps', { verb: 'list', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'configmaps', name: '' }],
  ['GET', '/api/v1/namespaces/default/configmaps?watch=true', { verb: 'watch', resource: 'configmaps', namespace: 'default' }],
  ['GET', '/api/v1/namespaces/default/configmaps?watch=1', { verb: 'watch' }],
  ['GET', '/api/v1/namespaces/default/configmaps?watch=false', { verb: 'list' }],
  ['GET', '/api/v1/namespaces/default/configmaps/a', { verb: 'get', name: 'a', subresource: '' }],
  ['PUT', '/api/v1/namespaces/default/configmaps/a', { verb: 'update', name: 'a' }],
  ['PATCH', '/api/v1/namespaces/default/configmaps/a', { verb: 'patch', name: 'a' }],
  ['DELETE', '/api/v1/namespaces/default/configmaps/a', { verb: 'delete', name: 'a' }],
  ['DELETE', '/api/v1/namespaces/default/configmaps', { verb: 'deletecollection', name: '' }],
  ['POST', '/api/v1/namespaces/default/configmaps', { verb: 'create' }],
  ['GET', '/api/v1/configmaps', { verb: 'list', namespace: '', resource: 'configmaps' }],
  ['GET', '/api/v1/namespaces', { verb: 'list', namespace: '', resource: 'namespaces', name: '' }],
  ['GET', '/api/v1/namespaces/kube-system', { verb: 'get', namespace: 'kube-system', resource: 'namespaces', name: 'kube-system' }],
  ['PUT', '/api/v1/namespaces/ns1/finalize', { verb: 'update', resource: 'namespaces', name: 'ns1', subresource: 'finalize' }],
  ['GET', '/api/v1/namespaces/ns1/status', { verb: 'get', resource: 'namespaces', name: 'ns1', subresource: 'status' }],
  ['PUT', '/api/v1/namespaces/default/pods/p/status', { verb: 'update', namespace: 'default', resource: 'pods', name: 'p', subresource: 'status' }],
  ['GET', '/api/v1/nodes/n1', { verb: 'get', namespace: '', resource: 'nodes', name: 'n1' }],
  ['GET', '/apis/apps/v1/namespaces/prod/deployments/web', { verb: 'get', apiPrefix: 'apis', apiGroup: 'apps', apiVersion: 'v1', namespace: 'prod', resource: 'deployments', name: 'web' }],
  ['GET', '/apis/apps/v1/deployments', { verb: 'list', apiGroup: 'apps', namespace: '', resource: 'deployments' }],
  ['GET', '/api/v1/watch/namespaces/default/configmaps', { verb: 'watch', namespace: 'default', resource: 'configmaps', name: '' }],
  ['GET', '/api/v1/watch/namespaces/default/configmaps/a', { verb: 'watch', resource: 'configmaps', name: 'a' }],
  ['GET', '/apis/apps/v1/watch/deployments', { verb: 'watch', apiGroup: 'apps', resource: 'deployments' }],
  ['GET', '/api/v1/watch/namespaces', { verb: 'watch', resource: 'namespaces', namespace: '' }],
  ['HEAD', '/api/v1/namespaces/default/configmaps/a', { verb: 'get', name: 'a' }],
];

for (const [method, url, expected] of rows) {
  test(`${method} ${url}`, () => {
    const info = parseRequestInfo(method, url);
    assert.equal(info.isResourceRequest, true);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(info[key as keyof typeof info], value, `${key} of ${method} ${url}`);
    }
  });
}

test('discovery, health and unknown paths are non-resource requests', () => {
  for (const url of ['/', '/api', '/api/v1', '/apis', '/apis/apps', '/apis/apps/v1', '/healthz', '/version', '/foo/bar', '/api/v1/watch']) {
    const info = parseRequestInfo('GET', url);
    assert.equal(info.isResourceRequest, false, url);
    assert.equal(info.verb, 'get', url);
  }
});

test('path segments are URL-decoded', () => {
  const info = parseRequestInfo('GET', '/api/v1/namespaces/default/configmaps/a%3Ab');
  assert.equal(info.name, 'a:b');
});

test('splitTarget reads a request target as Go net/http does: the path percent-decoded, dot segments kept', () => {
  const cases: Array<[string, string, Array<[string, string]>]> = [
    ['/api/v1/namespaces/default/configmaps/kube-root-ca.crt', '/api/v1/namespaces/default/configmaps/kube-root-ca.crt', []],
    [
      '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings?fieldManager=kubectl-client-side-apply&fieldValidation=Strict',
      '/apis/rbac.authorization.k8s.io/v1/namespaces/a/rolebindings',
      [['fieldManager', 'kubectl-client-side-apply'], ['fieldValidation', 'Strict']],
    ],
    ['/api/v1/namespaces/a/pods?labelSelector=app%3Dweb%2Ctier+in+(a,b)&watch=1', '/api/v1/namespaces/a/pods', [['labelSelector', 'app=web,tier in (a,b)'], ['watch', '1']]],
    ['/api/v1/namespaces/a/configmaps/x%2Fy', '/api/v1/namespaces/a/configmaps/x/y', []],
    ['/api/v1/namespaces/./configmaps', '/api/v1/namespaces/./configmaps', []],
    ['/api/v1/namespaces/a/../b/configmaps', '/api/v1/namespaces/a/../b/configmaps', []],
    ['/api/v1/namespaces/%2e%2e/configmaps', '/api/v1/namespaces/../configmaps', []],
    ['/api/v1/namespaces/a/configmaps/%E2%9C%93', '/api/v1/namespaces/a/configmaps/\u2713', []],
    ['/api/v1/namespaces/a/configmaps/100%zz', '/api/v1/namespaces/a/configmaps/100%zz', []],
    ['/api/v1/pods?q="x"#fragment', '/api/v1/pods', [['q', '"x"']]],
    ['/api/v1/pods?', '/api/v1/pods', []],
    ['/', '/', []],
  ];
  for (const [target, path, query] of cases) {
    const got = splitTarget(target);
    assert.equal(got.path, path, target);
    assert.deepEqual([...got.query], query, target);
  }
});

test('dot segments and escaped slashes are not resolved before routing', () => {
  const dots = parseRequestInfo('GET', '/api/v1/namespaces/default/../kube-system/secrets');
  assert.equal(dots.namespace, 'default');
  assert.equal(dots.resource, '..');
  assert.equal(dots.name, 'kube-system');
  assert.equal(dots.subresource, 'secrets');
  const escaped = parseRequestInfo('GET', '/api/v1/namespaces/default/configmaps/%2e%2e');
  assert.equal(escaped.resource, 'configmaps');
  assert.equal(escaped.name, '..');
  const slash = parseRequestInfo('GET', '/api/v1/namespaces/default/configmaps/a%2fb');
  assert.equal(slash.name, 'a');
  assert.equal(slash.subresource, 'b');
});

test('a path asked again answers afresh: its own query and verb, whatever an earlier request of it became', () => {
  const first = parseRequestInfo('GET', '/api/v1/namespaces/again/configmaps?watch=true');
  first.verb = 'changed by routing';
  const list = parseRequestInfo('GET', '/api/v1/namespaces/again/configmaps?limit=5');
  assert.equal(list.verb, 'list');
  assert.equal(list.query.get('limit'), '5');
  assert.equal(list.query.get('watch'), null);
  assert.equal(parseRequestInfo('GET', '/api/v1/namespaces/again/configmaps?watch=1').verb, 'watch');
  assert.equal(parseRequestInfo('DELETE', '/api/v1/namespaces/again/configmaps').verb, 'deletecollection');
  assert.equal(parseRequestInfo('GET', '/api/v1/namespaces/again/configmaps').namespace, 'again');
  // Many distinct paths (names) come and go without changing any answer.
  for (let i = 0; i < 2000; i++) assert.equal(parseRequestInfo('GET', `/api/v1/namespaces/again/configmaps/n${i}`).name, `n${i}`);
});
