// Response compression (APIResponseCompression, on in 1.32): which answers
// come gzipped (over 128 KiB, to a client whose Accept-Encoding holds the
// token `gzip`), with which headers, and what the body holds decompressed.

import type { DiffCase } from '../case.js';

const CM = '/api/v1/namespaces/{ns}/configmaps';
// 150 ConfigMaps of about 1 KiB: their list is about 170 KB.
const PAYLOAD = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(29);

export const cases: DiffCase[] = [
  {
    name: 'response compression',
    setup: Array.from({ length: 150 }, (_, i) => ({ method: 'POST' as const, path: CM, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { payload: PAYLOAD } } })),
    steps: [
      { title: 'a list over 128 KiB to a client that accepts gzip', method: 'GET', path: CM, headers: { 'accept-encoding': 'gzip' }, select: 'items.149' },
      { title: 'gzip among other encodings', method: 'GET', path: CM, headers: { 'accept-encoding': 'deflate, br, gzip' }, select: 'items.0.data' },
      { title: 'gzip with a parameter is not the gzip token', method: 'GET', path: CM, headers: { 'accept-encoding': 'gzip;q=1.0' }, select: 'items.0.data' },
      { title: 'a client that does not ask', method: 'GET', path: CM, select: 'items.0.data' },
      { title: 'a list under the threshold', method: 'GET', path: `${CM}?limit=20`, headers: { 'accept-encoding': 'gzip' }, select: 'items.19.metadata.name' },
      { title: 'one object', method: 'GET', path: `${CM}/cm-7`, headers: { 'accept-encoding': 'gzip' } },
      { title: 'a Table of the list', method: 'GET', path: CM, headers: { 'accept-encoding': 'gzip', accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, select: 'rows.149.cells.0' },
    ],
  },
];
