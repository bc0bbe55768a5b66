// The etcd v3 backend; the code lives in ./etcd/ (backend, watch, leases,
// protocol, errors), one concern per file.
export { EtcdBackend, type EtcdConnectOptions, type EtcdWatchHandle, COMPACT_REV_KEY } from './etcd/backend.js';
export { progressFixedIn } from './etcd/protocol.js';
