// The aggregation layer's API against kube-apiserver 1.32: the local
// APIServices a fresh server lists for its built-in group/versions (names,
// priorities, labels, the Local condition), apiregistration.k8s.io in
// discovery, and the CRUD of a remote APIService whose Service is missing
// (validation, defaults, the ServiceNotFound condition, the 503 of its group,
// its group in /apis, its Table row).

import type { DiffCase, DiffRequest } from '../case.js';

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';

/** The local APIServices of the group/versions both servers serve. */
const LOCAL = [
  'v1.', 'v1.admissionregistration.k8s.io', 'v1.apiextensions.k8s.io', 'v1.apps', 'v1.authentication.k8s.io', 'v1.authorization.k8s.io',
  'v1.autoscaling', 'v2.autoscaling', 'v1.batch', 'v1.certificates.k8s.io', 'v1.coordination.k8s.io', 'v1.discovery.k8s.io', 'v1.events.k8s.io',
  'v1.flowcontrol.apiserver.k8s.io', 'v1.networking.k8s.io', 'v1.node.k8s.io', 'v1.policy', 'v1.rbac.authorization.k8s.io', 'v1.scheduling.k8s.io',
  'v1.storage.k8s.io',
];

function localSteps(): DiffRequest[] {
  return LOCAL.flatMap((name): DiffRequest[] => [
    { title: `${name}: spec`, method: 'GET', path: `${APISERVICES}/${name}`, select: 'spec' },
    { title: `${name}: labels`, method: 'GET', path: `${APISERVICES}/${name}`, select: 'metadata.labels' },
    { title: `${name}: Available`, method: 'GET', path: `${APISERVICES}/${name}`, select: 'status.conditions[type=Available]' },
  ]);
}

const REMOTE = 'v1alpha1.diffagg.example.com';
const remote = (spec: Record<string, unknown>, name = REMOTE): Record<string, unknown> => ({ apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name }, spec });
const REMOTE_SPEC = { group: 'diffagg.example.com', version: 'v1alpha1', service: { namespace: 'default', name: 'diffagg-missing' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 1000, versionPriority: 15 };

export const cases: DiffCase[] = [
  {
    name: 'aggregation: the local APIServices of the built-in group/versions',
    steps: [
      ...localSteps(),
      { title: 'v1.apps as a Table: SERVICE', method: 'GET', path: `${APISERVICES}/v1.apps`, headers: TABLE, select: 'rows.0.cells.1' },
      { title: 'v1.apps as a Table: AVAILABLE', method: 'GET', path: `${APISERVICES}/v1.apps`, headers: TABLE, select: 'rows.0.cells.2' },
      ...[0, 1, 2, 3].map((i): DiffRequest => ({ title: `Table column ${i}: name`, method: 'GET', path: `${APISERVICES}/v1.apps`, headers: TABLE, select: `columnDefinitions.${i}.name` })),
      { title: 'the aggregator does not list its own group', method: 'GET', path: `${APISERVICES}/v1.apiregistration.k8s.io` },
    ],
  },
  {
    name: 'aggregation: apiregistration.k8s.io in discovery',
    steps: [
      { title: '/apis/apiregistration.k8s.io/v1', method: 'GET', path: '/apis/apiregistration.k8s.io/v1' },
      { title: '/apis/apiregistration.k8s.io', method: 'GET', path: '/apis/apiregistration.k8s.io' },
      { title: '/apis lists it first', method: 'GET', path: '/apis', select: 'groups[0]' },
      { title: 'aggregated discovery', method: 'GET', path: '/apis', headers: { accept: AGGREGATED }, select: 'items[metadata.name=apiregistration.k8s.io]' },
    ],
  },
  {
    name: 'aggregation: a remote APIService whose Service is missing',
    steps: [
      { title: 'create (port defaulted, status empty)', method: 'POST', path: APISERVICES, body: remote(REMOTE_SPEC) },
      { title: 'ServiceNotFound', method: 'GET', path: `${APISERVICES}/${REMOTE}`, until: { path: 'status.conditions.0.reason', equals: 'ServiceNotFound' }, select: 'status.conditions[type=Available]' },
      { title: 'its Table row', method: 'GET', path: `${APISERVICES}/${REMOTE}`, headers: TABLE, select: 'rows.0.cells.2' },
      { title: 'its group/version answers 503', method: 'GET', path: '/apis/diffagg.example.com/v1alpha1' },
      { title: 'a resource of it answers 503', method: 'GET', path: '/apis/diffagg.example.com/v1alpha1/namespaces/default/things' },
      { title: '/apis/GROUP', method: 'GET', path: '/apis/diffagg.example.com' },
      { title: '/apis lists the group', method: 'GET', path: '/apis', select: 'groups[name=diffagg.example.com]' },
      { title: 'aggregated discovery lists the group version without resources', method: 'GET', path: '/apis', headers: { accept: AGGREGATED }, select: 'items[metadata.name=diffagg.example.com]' },
      { title: 'an unknown group stays a 404', method: 'GET', path: '/apis/nothing.example.com/v1' },
      { title: 'merge patch of the version priority', method: 'PATCH', path: `${APISERVICES}/${REMOTE}`, headers: MERGE, body: { spec: { versionPriority: 20 } }, select: 'spec' },
      { title: 'a caBundle beside insecureSkipTLSVerify is refused', method: 'PATCH', path: `${APISERVICES}/${REMOTE}`, headers: MERGE, body: { spec: { caBundle: 'Zm9v' } } },
      { title: 'no Service namespace or name', method: 'PATCH', path: `${APISERVICES}/${REMOTE}`, headers: MERGE, body: { spec: { service: { namespace: '', name: '' } } } },
      { title: 'a status with a bad condition status', method: 'PATCH', path: `${APISERVICES}/${REMOTE}/status`, headers: MERGE, body: { status: { conditions: [{ type: 'Available', status: 'Maybe' }] } } },
      { title: 'delete', method: 'DELETE', path: `${APISERVICES}/${REMOTE}`, select: 'status' },
      { title: 'gone', method: 'GET', path: `${APISERVICES}/${REMOTE}` },
    ],
    cleanup: [{ method: 'DELETE', path: `${APISERVICES}/${REMOTE}` }],
  },
  {
    name: 'aggregation: a Service without endpoints, or without the APIService port',
    setup: [{ method: 'POST', path: '/api/v1/namespaces/{ns}/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'empty' }, spec: { ports: [{ name: 'https', port: 443 }] } } }],
    steps: [
      { title: 'create (no endpoints)', method: 'POST', path: APISERVICES, body: remote({ group: 'diffagg-empty.example.com', version: 'v1', service: { namespace: '{ns}', name: 'empty' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 10 }, 'v1.diffagg-empty.example.com'), select: 'spec' },
      { title: 'EndpointsNotFound', method: 'GET', path: `${APISERVICES}/v1.diffagg-empty.example.com`, until: { path: 'status.conditions.0.reason', equals: 'EndpointsNotFound' }, select: 'status.conditions[type=Available]' },
      { title: 'create (another port)', method: 'POST', path: APISERVICES, body: remote({ group: 'diffagg-port.example.com', version: 'v1', service: { namespace: '{ns}', name: 'empty', port: 8443 }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 10 }, 'v1.diffagg-port.example.com'), select: 'spec.service.port' },
      { title: 'ServicePortError', method: 'GET', path: `${APISERVICES}/v1.diffagg-port.example.com`, until: { path: 'status.conditions.0.reason', equals: 'ServicePortError' }, select: 'status.conditions[type=Available]' },
      { title: 'delete one', method: 'DELETE', path: `${APISERVICES}/v1.diffagg-empty.example.com`, select: 'status' },
      { title: 'delete the other', method: 'DELETE', path: `${APISERVICES}/v1.diffagg-port.example.com`, select: 'status' },
    ],
    cleanup: [
      { method: 'DELETE', path: `${APISERVICES}/v1.diffagg-empty.example.com` },
      { method: 'DELETE', path: `${APISERVICES}/v1.diffagg-port.example.com` },
    ],
  },
  {
    name: 'aggregation: APIService validation',
    steps: [
      { title: 'name, priorities', method: 'POST', path: APISERVICES, body: remote({ group: 'x.example.com', version: 'v1' }, 'bad') },
      { title: 'a local APIService with a caBundle and insecureSkipTLSVerify', method: 'POST', path: APISERVICES, body: remote({ group: 'local.example.com', version: 'v1', caBundle: 'Zm9v', insecureSkipTLSVerify: true, groupPriorityMinimum: 10, versionPriority: 10 }, 'v1.local.example.com') },
      { title: 'an empty group other than v1', method: 'POST', path: APISERVICES, body: remote({ version: 'v2', groupPriorityMinimum: 10, versionPriority: 10 }, 'v2.') },
      { title: 'a bad version and group', method: 'POST', path: APISERVICES, body: remote({ group: 'Bad_Group', version: '1v', groupPriorityMinimum: 30000, versionPriority: 2000 }, '1v.Bad_Group') },
      { title: 'a name that cannot be a path segment', method: 'POST', path: APISERVICES, body: remote({ group: 'a.example.com', version: 'v1', groupPriorityMinimum: 10, versionPriority: 10 }, 'v1%a') },
    ],
  },
];
