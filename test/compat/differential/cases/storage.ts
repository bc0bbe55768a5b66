// storage.k8s.io/v1: storage classes, CSI drivers, CSI nodes, volume
// attachments (with status) and CSI storage capacities — defaults, get, list,
// Table, immutable fields and validation errors.

import type { DiffCase } from '../case.js';

const G = '/apis/storage.k8s.io/v1';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const AGE = '^\\d+[smhd]$';
const obj = (kind: string, name: string, rest: Record<string, unknown>): Record<string, unknown> => ({ apiVersion: 'storage.k8s.io/v1', kind, metadata: { name }, ...rest });

export const cases: DiffCase[] = [
  {
    name: 'storage: storage classes',
    steps: [
      { title: 'create: reclaim policy and binding mode defaulted', method: 'POST', path: `${G}/storageclasses`, body: { ...obj('StorageClass', 'apis-diff-fast', { provisioner: 'example.com/disk', parameters: { type: 'ssd' }, allowVolumeExpansion: true }), metadata: { name: 'apis-diff-fast', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } } },
      { title: 'get', method: 'GET', path: `${G}/storageclasses/apis-diff-fast` },
      { title: 'table: the default class is marked', method: 'GET', path: `${G}/storageclasses/apis-diff-fast`, headers: TABLE, mask: [AGE] },
      { title: 'parameters, provisioner and reclaim policy are fixed', method: 'PATCH', path: `${G}/storageclasses/apis-diff-fast`, headers: MERGE, body: { parameters: { type: 'hdd' }, provisioner: 'example.com/other', reclaimPolicy: 'Retain' } },
      { title: 'invalid: no provisioner, bad policy and mode', method: 'POST', path: `${G}/storageclasses`, body: obj('StorageClass', 'apis-diff-bad', { reclaimPolicy: 'Recycle', volumeBindingMode: 'Later' }) },
      { title: 'delete answers the object', method: 'DELETE', path: `${G}/storageclasses/apis-diff-fast` },
    ],
    cleanup: [{ method: 'DELETE', path: `${G}/storageclasses/apis-diff-fast` }],
  },
  {
    name: 'storage: CSI drivers and nodes',
    steps: [
      { title: 'create a driver: every flag defaulted', method: 'POST', path: `${G}/csidrivers`, body: obj('CSIDriver', 'apis-diff.csi.example.com', { spec: { tokenRequests: [{ audience: 'vault' }] } }) },
      { title: 'get', method: 'GET', path: `${G}/csidrivers/apis-diff.csi.example.com` },
      { title: 'table', method: 'GET', path: `${G}/csidrivers/apis-diff.csi.example.com`, headers: TABLE, mask: [AGE] },
      { title: 'attachRequired is immutable', method: 'PATCH', path: `${G}/csidrivers/apis-diff.csi.example.com`, headers: MERGE, body: { spec: { attachRequired: false } } },
      { title: 'a spec change bumps generation', method: 'PATCH', path: `${G}/csidrivers/apis-diff.csi.example.com`, headers: MERGE, body: { spec: { podInfoOnMount: true } } },
      { title: 'invalid driver: token requests, modes, fsGroupPolicy', method: 'POST', path: `${G}/csidrivers`, body: obj('CSIDriver', 'apis-diff-bad.example.com', { spec: { tokenRequests: [{ audience: 'a', expirationSeconds: 60 }, { audience: 'a' }], volumeLifecycleModes: ['Forever'], fsGroupPolicy: 'Some' } }) },
      { title: 'create a node', method: 'POST', path: `${G}/csinodes`, body: obj('CSINode', 'apis-diff-node', { spec: { drivers: [{ name: 'apis-diff.csi.example.com', nodeID: 'n1', topologyKeys: ['topology.example.com/zone'], allocatable: { count: 10 } }] } }) },
      { title: 'table', method: 'GET', path: `${G}/csinodes/apis-diff-node`, headers: TABLE, mask: [AGE] },
      { title: 'invalid node: driver name, node ID, duplicates', method: 'POST', path: `${G}/csinodes`, body: obj('CSINode', 'apis-diff-node2', { spec: { drivers: [{ name: 'Bad_Driver', nodeID: '' }, { name: 'Bad_Driver', nodeID: 'x', topologyKeys: ['a', 'a'], allocatable: { count: -1 } }] } }) },
    ],
    cleanup: [{ method: 'DELETE', path: `${G}/csidrivers/apis-diff.csi.example.com` }, { method: 'DELETE', path: `${G}/csinodes/apis-diff-node` }],
  },
  {
    name: 'storage: volume attachments',
    steps: [
      { title: 'create: status dropped', method: 'POST', path: `${G}/volumeattachments`, body: obj('VolumeAttachment', 'apis-diff-va', { spec: { attacher: 'csi.example.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } }, status: { attached: true } }) },
      { title: 'get', method: 'GET', path: `${G}/volumeattachments/apis-diff-va` },
      { title: 'status: attached', method: 'PATCH', path: `${G}/volumeattachments/apis-diff-va/status`, headers: MERGE, body: { status: { attached: true, attachmentMetadata: { dev: '/dev/sdb' } } } },
      { title: 'table', method: 'GET', path: `${G}/volumeattachments/apis-diff-va`, headers: TABLE, mask: [AGE] },
      { title: 'a PUT without resourceVersion is refused', method: 'PUT', path: `${G}/volumeattachments/apis-diff-va`, body: obj('VolumeAttachment', 'apis-diff-va', { spec: { attacher: 'csi.example.com', nodeName: 'node-a', source: { persistentVolumeName: 'pv-1' } } }) },
      { title: 'invalid: no source, bad attacher and node', method: 'POST', path: `${G}/volumeattachments`, body: obj('VolumeAttachment', 'apis-diff-va2', { spec: { attacher: 'Bad Attacher', nodeName: 'Node_A', source: {} } }) },
      { title: 'invalid: both sources', method: 'POST', path: `${G}/volumeattachments`, body: obj('VolumeAttachment', 'apis-diff-va3', { spec: { attacher: 'a.example.com', nodeName: 'n', source: { persistentVolumeName: 'p', inlineVolumeSpec: { csi: { driver: 'd', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'] } } } }) },
    ],
    cleanup: [{ method: 'DELETE', path: `${G}/volumeattachments/apis-diff-va` }],
  },
  {
    name: 'storage: CSI storage capacities',
    steps: [
      { title: 'create', method: 'POST', path: `${G}/namespaces/{ns}/csistoragecapacities`, body: { ...obj('CSIStorageCapacity', 'cap', {}), storageClassName: 'fast', capacity: '100Gi', maximumVolumeSize: '10Gi', nodeTopology: { matchLabels: { 'topology.example.com/zone': 'a' } } } },
      { title: 'list', method: 'GET', path: `${G}/namespaces/{ns}/csistoragecapacities` },
      { title: 'table', method: 'GET', path: `${G}/namespaces/{ns}/csistoragecapacities`, headers: TABLE },
      { title: 'the class is immutable', method: 'PATCH', path: `${G}/namespaces/{ns}/csistoragecapacities/cap`, headers: MERGE, body: { storageClassName: 'slow' } },
      { title: 'invalid: no class, negative capacity, bad selector', method: 'POST', path: `${G}/namespaces/{ns}/csistoragecapacities`, body: { ...obj('CSIStorageCapacity', 'bad', {}), capacity: '-1', nodeTopology: { matchExpressions: [{ key: 'k', operator: 'Exists', values: ['v'] }] } } },
    ],
  },
];
