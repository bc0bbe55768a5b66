// The divergences issue 16 listed (its items 1–15), one case each at least:
// each step reproduces the item against kube-apiserver 1.32 and apiary now
// answers it the same way.

import type { DiffCase } from '../case.js';

const NS = '/api/v1/namespaces/{ns}';
const CM = `${NS}/configmaps`;
const SECRETS = `${NS}/secrets`;
const DEPLOYMENTS = '/apis/apps/v1/namespaces/{ns}/deployments';
const JSON_HEADERS = { 'content-type': 'application/json' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };

const deployment = (name: string, selector: Record<string, unknown>, labels: Record<string, string>, spec: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { selector, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }, ...spec },
});

export const cases: DiffCase[] = [
  {
    name: 'issue 16 item 1: []byte fields are base64',
    setup: [{ method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'good' }, data: { k: 'YQ==' } } }],
    steps: [
      { title: 'secret data that is not base64 (JSON)', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' }, data: { k: '!!!' } } },
      {
        title: 'secret data that is not base64 (YAML)',
        method: 'POST',
        path: SECRETS,
        headers: { 'content-type': 'application/yaml' },
        body: 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: bad\ndata:\n  k: "YQ="\n',
      },
      { title: 'configmap binaryData that is not base64', method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' }, binaryData: { k: '%%' } } },
      { title: 'a number where bytes go', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bad' }, data: { k: 5 } } },
      { title: 'a list of numbers is bytes; newlines and trailing bits are dropped', method: 'POST', path: SECRETS, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bytes' }, data: { k: [104, 105], c: 'YW\nJjZB==' } } },
      { title: 'update with bad base64', method: 'PUT', path: `${SECRETS}/good`, body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'good' }, data: { k: '!!' } } },
      { title: 'strategic merge patch with bad base64', method: 'PATCH', path: `${SECRETS}/good`, headers: STRATEGIC, body: { data: { k: '!!' } } },
      { title: 'strategic merge patch with a number', method: 'PATCH', path: `${SECRETS}/good`, headers: STRATEGIC, body: { data: { k: 5 } } },
      { title: 'nothing bad was stored', method: 'GET', path: `${SECRETS}/good` },
    ],
  },
  {
    name: 'issue 16 item 2: DELETE of a Terminating namespace',
    setup: [
      { method: 'POST', path: '/api/v1/namespaces', body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: '{ns}-held' } } },
      // A finalizer on content keeps the namespace Terminating while the steps run.
      { method: 'POST', path: '/api/v1/namespaces/{ns}-held/configmaps', body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } } },
      { method: 'DELETE', path: '/api/v1/namespaces/{ns}-held' },
    ],
    steps: [
      // Only the phase: the namespace controllers write conditions at times no case can predict.
      { title: 'a second DELETE answers 200 with the namespace, still Terminating', method: 'DELETE', path: '/api/v1/namespaces/{ns}-held', select: 'status.phase' },
    ],
    cleanup: [
      { method: 'PATCH', path: '/api/v1/namespaces/{ns}-held/configmaps/held', headers: MERGE, body: { metadata: { finalizers: null } } },
    ],
  },
  {
    name: 'issue 16 item 3: unsupported field selectors, per resource',
    steps: [
      { title: 'configmaps (default conversion)', method: 'GET', path: `${CM}?fieldSelector=data.k%3Dv` },
      { title: 'deployments (default conversion)', method: 'GET', path: `${DEPLOYMENTS}?fieldSelector=spec.replicas%3D1` },
      { title: 'leases (default conversion)', method: 'GET', path: '/apis/coordination.k8s.io/v1/namespaces/{ns}/leases?fieldSelector=spec.holderIdentity%3Dx' },
      { title: 'secrets (own conversion)', method: 'GET', path: `${SECRETS}?fieldSelector=data.k%3Dv` },
      { title: 'pods (own conversion)', method: 'GET', path: `${NS}/pods?fieldSelector=spec.foo%3Dx` },
      { title: 'pods: spec.host is spec.nodeName', method: 'GET', path: `${NS}/pods?fieldSelector=spec.host%3Dx` },
      { title: 'nodes take no metadata.namespace', method: 'GET', path: '/api/v1/nodes?fieldSelector=metadata.namespace%3Dx' },
      { title: 'namespaces take no "name"', method: 'GET', path: '/api/v1/namespaces?fieldSelector=name%3Dx' },
      { title: 'events.k8s.io takes no "source"', method: 'GET', path: '/apis/events.k8s.io/v1/namespaces/{ns}/events?fieldSelector=source%3Dx' },
      { title: 'the first refused label in sorted order', method: 'GET', path: `${CM}?fieldSelector=z%3D1,b%3D2` },
    ],
  },
  {
    name: 'issue 16 item 4: a resourceVersion far ahead of the store',
    setup: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }],
    steps: [
      // Upstream waits ~3 s for the revision, then answers 504 with Retry-After.
      { title: 'list (NotOlderThan) waits, then 504 Timeout', method: 'GET', path: `${CM}?resourceVersion=999999999&resourceVersionMatch=NotOlderThan`, mask: ['current: \\d+'] },
      { title: 'get waits, then 504 Timeout', method: 'GET', path: `${CM}/c?resourceVersion=999999999`, mask: ['current: \\d+'] },
      { title: 'an exact list is etcd\'s error, a plain 500', method: 'GET', path: `${CM}?resourceVersion=999999999&resourceVersionMatch=Exact` },
    ],
  },
  {
    name: 'issue 16 item 5: 406 Not Acceptable',
    setup: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }],
    steps: [
      { title: 'no route produces text/plain (get)', method: 'GET', path: `${CM}/c`, headers: { accept: 'text/plain' } },
      { title: 'no route produces application/* (list: the stream types too)', method: 'GET', path: CM, headers: { accept: 'application/*' } },
      { title: 'a conversion nobody serves', method: 'GET', path: `${CM}/c`, headers: { accept: 'application/json;as=Foo;g=example.com;v=v1' } },
      { title: '/version produces JSON only', method: 'GET', path: '/version', headers: { accept: 'text/plain' } },
      { title: 'a create: 406 before anything is written', method: 'POST', path: CM, headers: { accept: 'text/html', ...JSON_HEADERS }, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'never' } } },
      { title: 'nothing was written', method: 'GET', path: `${CM}/never` },
    ],
  },
  {
    name: 'issue 16 item 6: values quoted as Go prints them',
    setup: [{ method: 'POST', path: DEPLOYMENTS, body: deployment('web', { matchLabels: { app: 'web' } }, { app: 'web', tier: 'a' }) }],
    steps: [
      { title: 'a dryRun list', method: 'POST', path: `${CM}?dryRun=Maybe`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
      { title: 'template labels as map[string]string', method: 'POST', path: DEPLOYMENTS, body: deployment('d', { matchLabels: { a: 'b' } }, { a: 'c' }) },
      { title: 'an empty selector as the LabelSelector struct, nil fields', method: 'POST', path: DEPLOYMENTS, body: deployment('d', {}, { a: 'c' }) },
      {
        title: 'a changed selector, with expressions',
        method: 'PATCH',
        path: `${DEPLOYMENTS}/web`,
        headers: MERGE,
        body: { spec: { selector: { matchLabels: { tier: 'a' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'x'] }, { key: 'tier', operator: 'Exists' }] } } },
      },
    ],
  },
  {
    name: 'issue 16 item 7: delete preconditions',
    setup: [
      { method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pre' } } },
      { method: 'POST', path: DEPLOYMENTS, body: deployment('web', { matchLabels: { app: 'web' } }, { app: 'web' }) },
    ],
    steps: [
      { title: 'uid (the kind, not the resource)', method: 'DELETE', path: `${CM}/pre`, body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: 'not-the-uid' } }, mask: ['in record \\([0-9a-f-]+\\)'] },
      { title: 'an empty uid is a precondition too', method: 'DELETE', path: `${CM}/pre`, body: { preconditions: { uid: '' } }, mask: ['in record \\([0-9a-f-]+\\)'] },
      { title: 'resourceVersion', method: 'DELETE', path: `${CM}/pre`, body: { preconditions: { resourceVersion: '1' } }, mask: ['in record \\(\\d+\\)'] },
      { title: 'a group kind', method: 'DELETE', path: `${DEPLOYMENTS}/web`, body: { preconditions: { uid: 'x' } }, mask: ['in record \\([0-9a-f-]+\\)'] },
      { title: 'a namespace words it its own way', method: 'DELETE', path: '/api/v1/namespaces/{ns}', body: { preconditions: { uid: 'x' } }, mask: ['object meta: [0-9a-f-]+'] },
      { title: 'the namespace, by resourceVersion', method: 'DELETE', path: '/api/v1/namespaces/{ns}', body: { preconditions: { resourceVersion: '1' } }, mask: ['object meta: \\d+'] },
    ],
  },
  {
    name: 'issue 16 item 8: a configmap over 1 MiB',
    steps: [
      {
        title: 'the size cause names the whole object ([])',
        method: 'POST',
        path: CM,
        body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { a: 'x'.repeat(600 * 1024) }, binaryData: { b: Buffer.alloc(500 * 1024, 'y').toString('base64') } },
      },
      {
        title: 'a secret over 1 MiB names data',
        method: 'POST',
        path: SECRETS,
        body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'big' }, data: { b: Buffer.alloc(1024 * 1024 + 1, 'y').toString('base64') } },
      },
    ],
  },
  {
    name: 'issue 16 item 9: fieldValidation with an unknown value',
    steps: [
      { title: 'create', method: 'POST', path: `${CM}?fieldValidation=Maybe`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
      { title: 'every option error, in upstream\'s order', method: 'POST', path: `${CM}?fieldValidation=Maybe&dryRun=Maybe&dryRun=All`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
      { title: 'delete options, all three errors', method: 'DELETE', path: `${CM}/x`, body: { propagationPolicy: 'Bogus', orphanDependents: true, dryRun: ['x'] } },
    ],
  },
  {
    name: 'issue 16 item 10: health checks',
    steps: [
      { title: '/readyz?verbose', method: 'GET', path: '/readyz?verbose' },
      { title: '/livez?verbose', method: 'GET', path: '/livez?verbose' },
      { title: '/healthz?verbose', method: 'GET', path: '/healthz?verbose' },
      { title: 'one check', method: 'GET', path: '/readyz/etcd' },
      { title: 'a check livez does not have', method: 'GET', path: '/livez/shutdown' },
      { title: 'exclude, quiet', method: 'GET', path: '/readyz?exclude=etcd&exclude=nope' },
    ],
  },
  {
    name: 'issue 16 item 11: storageVersionHash',
    steps: [
      { title: '/api/v1 configmaps', method: 'GET', path: '/api/v1', select: 'resources[name=configmaps].storageVersionHash' },
      { title: '/api/v1 pods', method: 'GET', path: '/api/v1', select: 'resources[name=pods].storageVersionHash' },
      { title: '/api/v1 namespaces', method: 'GET', path: '/api/v1', select: 'resources[name=namespaces].storageVersionHash' },
      { title: '/apis/apps/v1 deployments', method: 'GET', path: '/apis/apps/v1', select: 'resources[name=deployments].storageVersionHash' },
      { title: '/apis/coordination.k8s.io/v1 leases', method: 'GET', path: '/apis/coordination.k8s.io/v1', select: 'resources[name=leases].storageVersionHash' },
      { title: 'events.k8s.io events: stored as core Events', method: 'GET', path: '/apis/events.k8s.io/v1', select: 'resources[name=events].storageVersionHash' },
    ],
  },
  {
    name: 'issue 16 item 12: malformed bodies',
    setup: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }],
    steps: [
      { title: 'truncated JSON', method: 'POST', path: CM, headers: JSON_HEADERS, body: '{"metadata": {' },
      { title: 'a trailing comma', method: 'POST', path: CM, headers: JSON_HEADERS, body: '{"metadata":{"name":"x"},}' },
      { title: 'text after the value', method: 'POST', path: CM, headers: JSON_HEADERS, body: '{"a":1} x' },
      { title: 'kind of the wrong JSON type', method: 'POST', path: CM, headers: JSON_HEADERS, body: '{"kind":5}' },
      { title: 'a name of the wrong JSON type', method: 'POST', path: CM, headers: JSON_HEADERS, body: '{"metadata":{"name":5}}' },
      { title: 'data of the wrong JSON type', method: 'POST', path: CM, headers: JSON_HEADERS, body: '{"metadata":{"name":"x"},"data":[1]}' },
      { title: 'an int32 given 1.5', method: 'POST', path: `${NS}/pods`, headers: JSON_HEADERS, body: '{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":1.5}]}]}}' },
      { title: 'a malformed merge patch', method: 'PATCH', path: `${CM}/c`, headers: MERGE, body: '{"data":' },
      { title: 'a malformed merge patch, fieldValidation=Ignore', method: 'PATCH', path: `${CM}/c?fieldValidation=Ignore`, headers: MERGE, body: '{"data":' },
      { title: 'a merge patch that is a list', method: 'PATCH', path: `${CM}/c`, headers: MERGE, body: '[1]' },
      { title: 'a malformed strategic merge patch', method: 'PATCH', path: `${CM}/c`, headers: STRATEGIC, body: '{"data":1}x' },
      { title: 'a JSON patch element that is not an object', method: 'PATCH', path: `${CM}/c`, headers: { 'content-type': 'application/json-patch+json' }, body: '[1]' },
      { title: 'a strategic merge patch of the wrong type', method: 'PATCH', path: `${CM}/c`, headers: STRATEGIC, body: { data: { a: 1 } } },
    ],
  },
  {
    name: 'issue 16 item 13: Status details leave out empty fields',
    setup: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } }],
    steps: [
      { title: 'CreateOptions', method: 'POST', path: `${CM}?dryRun=Some`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } },
      { title: 'UpdateOptions', method: 'PUT', path: `${CM}/c?fieldValidation=No`, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } } },
      { title: 'ListOptions', method: 'GET', path: `${CM}?resourceVersionMatch=Exact` },
      { title: 'DeleteOptions', method: 'DELETE', path: `${CM}/c?propagationPolicy=Sometimes` },
    ],
  },
  {
    name: 'issue 16 item 14: the initial-events-end bookmark carries the list blueprint',
    setup: [{ method: 'POST', path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' } } }],
    steps: [
      {
        title: 'JSON watch: ADDED, then the bookmark with the blueprint',
        method: 'GET',
        path: `${CM}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        watchEvents: 2,
      },
    ],
  },
  {
    name: 'issue 16 item 15: strict decoding errors in document order',
    steps: [
      {
        title: 'unknown before duplicate when it comes first',
        method: 'POST',
        path: `${DEPLOYMENTS}?fieldValidation=Strict`,
        headers: JSON_HEADERS,
        body: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"s"},"spec":{"unknownField":1,"replicas":1,"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}',
      },
      {
        title: 'interleaved, a repeated unknown key reported once',
        method: 'POST',
        path: `${DEPLOYMENTS}?fieldValidation=Strict`,
        headers: JSON_HEADERS,
        body: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"s","name":"s"},"spec":{"unknownField":1,"replicas":1,"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i","bogus":1,"bogus":2}]}}},"zz":1}',
      },
      {
        title: 'the same order in Warning headers (dryRun)',
        method: 'POST',
        path: `${DEPLOYMENTS}?dryRun=All`,
        headers: JSON_HEADERS,
        body: '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"s"},"spec":{"unknownField":1,"replicas":1,"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}',
      },
    ],
  },
];
