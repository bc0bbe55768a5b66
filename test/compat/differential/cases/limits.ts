// Issue 29, part 3: limits and bad input as kube-apiserver 1.32 answers them.
// Paths are read as Go reads them (no dot-segment resolution; the client
// sends each path as written), query integers are int64s, bodies decode as
// Go's decoders do (null map values, timestamps, lone surrogates, YAML
// duplicate keys and !!binary), nesting and alias expansion are bounded,
// duplicate owner references are merged, large headers are served, and the
// stored object size is etcd's. Deliberate differences are in allow-list.json.

import type { DiffCase } from '../case.js';

const CM = '/api/v1/namespaces/{ns}/configmaps';
const JSON_TYPE = { 'content-type': 'application/json' };
const YAML_TYPE = { 'content-type': 'application/yaml' };
const deep = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const configMap = (name: string, metadata = '', rest = ''): string => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"${metadata}}${rest}}`;

const billionLaughs = (name: string): string => {
  const lines = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', `  name: ${name}`, 'a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (const [i, k] of ['b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'].entries()) lines.push(`${k}: &${k} [${new Array(9).fill(`*${'abcdefghi'[i]}`).join(',')}]`);
  return `${lines.join('\n')}\n`;
};

const podTemplate = (name: string, argBytes: number): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'PodTemplate',
  metadata: { name },
  template: { spec: { containers: [{ name: 'c', image: 'registry.example/c:1', args: ['x'.repeat(argBytes)] }] } },
});

const EXISTING = { method: 'POST' as const, path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'existing' }, data: { a: 'b' } } };

export const cases: DiffCase[] = [
  {
    name: 'limits: paths are read as Go reads them',
    setup: [EXISTING],
    steps: [
      { title: 'dot segments are not resolved (no other namespace is reached)', method: 'GET', path: '/api/v1/namespaces/{ns}/../kube-system/secrets' },
      { title: 'a name ".."', method: 'GET', path: `${CM}/..` },
      { title: 'a name "%2e%2e"', method: 'GET', path: `${CM}/%2e%2e` },
      { title: 'a name "."', method: 'GET', path: `${CM}/.` },
      { title: 'delete of a name ".."', method: 'DELETE', path: `${CM}/..` },
      { title: 'a dot segment before a name', method: 'GET', path: `${CM}/./existing` },
      { title: '%2f splits a segment', method: 'GET', path: `${CM}/a%2fb` },
      { title: 'an escaped letter is the letter', method: 'GET', path: `${CM}/%65xisting` },
      { title: 'a namespace "%2e%2e" lists nothing', method: 'GET', path: '/api/v1/namespaces/%2e%2e/configmaps' },
    ],
  },
  {
    name: 'limits: query integers',
    setup: [EXISTING],
    steps: [
      { title: 'timeoutSeconds=abc on a list', method: 'GET', path: `${CM}?timeoutSeconds=abc` },
      { title: 'timeoutSeconds=abc on a watch', method: 'GET', path: `${CM}?watch=true&timeoutSeconds=abc` },
      { title: 'a limit past int64', method: 'GET', path: `${CM}?limit=99999999999999999999` },
      { title: 'the largest int64 limit', method: 'GET', path: `${CM}?limit=9223372036854775807` },
      { title: 'a limit with a plus sign', method: 'GET', path: `${CM}?limit=+1` },
    ],
  },
  {
    name: 'limits: bodies decode as Go decodes them',
    steps: [
      { title: 'a null label value is stored as ""', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('null-label', ',"labels":{"a":null},"annotations":{"b":null}') },
      { title: 'creationTimestamp that is not a time', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('not-a-time', ',"creationTimestamp":"notatime"') },
      { title: 'creationTimestamp with month 13', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('month-13', ',"creationTimestamp":"2024-13-01T00:00:00Z"') },
      { title: 'creationTimestamp with text after it', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('extra', ',"creationTimestamp":"2024-01-01T00:00:00Zjunk"') },
      { title: 'a lone surrogate is stored as U+FFFD', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('surrogate', '', ',"data":{"a":"\\ud800x"}') },
      { title: 'and read back so', method: 'GET', path: `${CM}/surrogate` },
      { title: 'a duplicated "data" key', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('duplicate-data', '', ',"data":{"a":"1"},"data":{"b":"2"}') },
      { title: 'YAML with a duplicate key: the last one wins', method: 'POST', path: CM, headers: YAML_TYPE, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-duplicate\ndata:\n  a: "1"\n  a: "2"\n' },
      { title: 'YAML !!binary in data is the decoded string', method: 'POST', path: CM, headers: YAML_TYPE, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-binary\ndata:\n  a: !!binary aGVsbG8=\n' },
      { title: 'YAML !!binary in binaryData is decoded twice', method: 'POST', path: CM, headers: YAML_TYPE, body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-binary-2\nbinaryData:\n  a: !!binary aGVsbG8=\n' },
    ],
  },
  {
    name: 'limits: nesting depth',
    setup: [EXISTING],
    steps: [
      { title: 'a body 10,001 levels deep', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('deep', '', `,"x":${deep(10_001)}`) },
      { title: 'an array 10,001 levels deep', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('deep-array', '', `,"x":${'['.repeat(10_001)}${']'.repeat(10_001)}`) },
      { title: 'a merge patch 10,000 levels deep', method: 'PATCH', path: `${CM}/existing`, headers: { 'content-type': 'application/merge-patch+json' }, body: `{"metadata":{"annotations":${deep(10_000)}}}` },
      { title: 'a JSON patch 10,000 levels deep', method: 'PATCH', path: `${CM}/existing`, headers: { 'content-type': 'application/json-patch+json' }, body: `[{"op":"add","path":"/x","value":${deep(10_000)}}]` },
      { title: 'a strategic merge patch 10,000 levels deep', method: 'PATCH', path: `${CM}/existing`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: `{"x":${deep(10_000)}}` },
      // fieldValidation=Strict: the reference refuses the unknown field, so neither side answers an object.
      { title: 'a merge patch 2,000 levels deep (apiary stricter)', method: 'PATCH', path: `${CM}/existing?fieldValidation=Strict`, headers: { 'content-type': 'application/merge-patch+json' }, body: `{"x":${deep(2_000)}}` },
    ],
  },
  {
    name: 'limits: YAML alias expansion',
    steps: [
      { title: 'a billion-laughs apply', method: 'PATCH', path: `${CM}/laughs?fieldManager=limits`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: billionLaughs('laughs') },
      { title: 'a billion-laughs create', method: 'POST', path: CM, headers: YAML_TYPE, body: billionLaughs('laughs-2') },
    ],
  },
  {
    name: 'limits: owner references',
    steps: [
      { title: 'a thousand empty owner references are one', method: 'POST', path: CM, headers: JSON_TYPE, body: configMap('owners', `,"ownerReferences":[${new Array(1000).fill('{}').join(',')}]`) },
      {
        title: 'duplicate owner references are kept once',
        method: 'POST',
        path: CM,
        body: {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'owned', ownerReferences: [1, 2, 3].map(() => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: '5b7e3a52-9d35-4b8e-a3c4-2f3a2b6a1c01' })) },
        },
      },
    ],
  },
  {
    name: 'limits: headers and object size',
    setup: [EXISTING],
    steps: [
      { title: 'a 100 KiB request header', method: 'GET', path: `${CM}/existing`, headers: { 'x-large': 'a'.repeat(100 * 1024) } },
      { title: 'a 1.4 MB object is stored', method: 'POST', path: '/api/v1/namespaces/{ns}/podtemplates', body: podTemplate('large', 1_400_000) },
      { title: 'a 1.9 MB object is refused', method: 'POST', path: '/api/v1/namespaces/{ns}/podtemplates', body: podTemplate('too-large', 1_900_000) },
      { title: 'and not stored', method: 'GET', path: '/api/v1/namespaces/{ns}/podtemplates/too-large' },
    ],
  },
];
