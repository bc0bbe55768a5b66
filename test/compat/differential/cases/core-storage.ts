// core/v1 persistent volumes (with status) and pod templates, and
// discovery.k8s.io/v1 endpoint slices: create with defaults, get, list,
// Table, updates and validation errors.

import type { DiffCase } from '../case.js';

const PV = '/api/v1/persistentvolumes';
const PT = '/api/v1/namespaces/{ns}/podtemplates';
const EPS = '/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const AGE = '^\\d+[smhd]$';
const pv = (name: string, spec: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name }, spec });

export const cases: DiffCase[] = [
  {
    name: 'core: persistent volumes',
    steps: [
      { title: 'create: reclaim policy, volume mode and Pending phase defaulted', method: 'POST', path: PV, body: pv('apis-diff-pv', { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, storageClassName: 'slow' }) },
      { title: 'get', method: 'GET', path: `${PV}/apis-diff-pv` },
      { title: 'table', method: 'GET', path: `${PV}/apis-diff-pv`, headers: TABLE, mask: [AGE] },
      { title: 'status: Bound', method: 'PATCH', path: `${PV}/apis-diff-pv/status`, headers: MERGE, body: { status: { phase: 'Bound' } } },
      { title: 'the source is immutable', method: 'PATCH', path: `${PV}/apis-diff-pv`, headers: MERGE, body: { spec: { hostPath: { path: '/other' } } } },
      { title: 'capacity may change', method: 'PATCH', path: `${PV}/apis-diff-pv`, headers: MERGE, body: { spec: { capacity: { storage: '2Gi' } } } },
      { title: 'invalid: no source, no capacity, no access modes', method: 'POST', path: PV, body: pv('apis-diff-empty', {}) },
      { title: 'invalid: two sources, bad reclaim policy, zero capacity', method: 'POST', path: PV, body: pv('apis-diff-bad', { capacity: { storage: '0' }, accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'], hostPath: { path: '/a' }, nfs: { server: 's', path: '/b' }, persistentVolumeReclaimPolicy: 'Keep' }) },
      { title: 'invalid: csi without driver, nfs relative path', method: 'POST', path: PV, body: pv('apis-diff-csi', { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteMany'], csi: { volumeHandle: 'h' } }) },
      { title: 'delete answers the object', method: 'DELETE', path: `${PV}/apis-diff-pv` },
    ],
    cleanup: [{ method: 'DELETE', path: `${PV}/apis-diff-pv` }],
  },
  {
    name: 'core: pod templates',
    steps: [
      {
        title: 'create: the pod spec is defaulted',
        method: 'POST',
        path: PT,
        body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'tpl' }, template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'registry.example/app:1' }] } } },
      },
      { title: 'get', method: 'GET', path: `${PT}/tpl` },
      { title: 'list', method: 'GET', path: PT },
      { title: 'table', method: 'GET', path: PT, headers: TABLE },
      { title: 'a template change bumps generation', method: 'PATCH', path: `${PT}/tpl`, headers: MERGE, body: { template: { metadata: { labels: { app: 'b' } } } } },
      { title: 'invalid: no containers', method: 'POST', path: PT, body: { apiVersion: 'v1', kind: 'PodTemplate', metadata: { name: 'empty' }, template: { spec: {} } } },
      { title: 'delete answers the object', method: 'DELETE', path: `${PT}/tpl` },
    ],
  },
  {
    name: 'discovery: endpoint slices',
    steps: [
      {
        title: 'create: port name and protocol defaulted',
        method: 'POST',
        path: EPS,
        body: {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { name: 'web-abc', labels: { 'kubernetes.io/service-name': 'web' } },
          addressType: 'IPv4',
          endpoints: [{ addresses: ['10.1.0.1'], conditions: { ready: true }, nodeName: 'node-a', zone: 'z1' }, { addresses: ['10.1.0.2'] }],
          ports: [{ port: 80 }, { name: 'https', port: 443, protocol: 'TCP', appProtocol: 'https' }],
        },
      },
      { title: 'get', method: 'GET', path: `${EPS}/web-abc` },
      { title: 'list', method: 'GET', path: EPS },
      { title: 'table', method: 'GET', path: EPS, headers: TABLE, mask: [AGE] },
      { title: 'a change bumps generation', method: 'PATCH', path: `${EPS}/web-abc`, headers: MERGE, body: { endpoints: [{ addresses: ['10.1.0.3'] }] } },
      { title: 'the address type is immutable', method: 'PATCH', path: `${EPS}/web-abc`, headers: MERGE, body: { addressType: 'IPv6', endpoints: null } },
      {
        title: 'invalid: addresses, duplicate port names, protocol',
        method: 'POST',
        path: EPS,
        body: {
          apiVersion: 'discovery.k8s.io/v1',
          kind: 'EndpointSlice',
          metadata: { name: 'bad' },
          addressType: 'IPv4',
          endpoints: [{ addresses: [] }, { addresses: ['fd00::1', '127.0.0.1', '169.254.1.1'] }],
          ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2, protocol: 'ICMP' }],
        },
      },
      { title: 'invalid: address type', method: 'POST', path: EPS, body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'bad2' }, addressType: 'IPX' } },
      { title: 'invalid: FQDN', method: 'POST', path: EPS, body: { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'bad3' }, addressType: 'FQDN', endpoints: [{ addresses: ['localhost', 'Bad_Name.example.com'] }] } },
    ],
  },
];
