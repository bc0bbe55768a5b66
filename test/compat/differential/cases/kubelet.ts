// The kubelet-facing connect subresources up to the kubelet, against
// kube-apiserver 1.32: which error comes first (options, the pod, its
// container, its node, the node's address), the kubelet unreachable (a node
// whose kubelet port has no listener), a request that is not an upgrade, and
// the proxy subresources' address and endpoint checks. What a kubelet answers
// is proven against kwok in test/kubelet/.

import type { DiffCase } from '../case.js';

const MERGE = { 'content-type': 'application/merge-patch+json' };
/** A node whose kubelet would be at 127.0.0.1:1, where nothing listens. */
const node = (name: string, addresses: { type: string; address: string }[]): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name },
  status: { addresses, daemonEndpoints: { kubeletEndpoint: { Port: 1 } } },
});
const pod = (name: string, nodeName: string, containers: string[], initContainers: string[] = []): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: {
    nodeName,
    containers: containers.map((c) => ({ name: c, image: 'nginx', ports: [{ containerPort: 8080 }] })),
    ...(initContainers.length > 0 ? { initContainers: initContainers.map((c) => ({ name: c, image: 'busybox' })) } : {}),
  },
});
const LOG = '/api/v1/namespaces/{ns}/pods';

export const cases: DiffCase[] = [
  {
    name: 'kubelet: connect subresources up to the kubelet',
    setup: [
      { method: 'POST', path: '/api/v1/nodes', body: node('{ns}-n', [{ type: 'InternalIP', address: '127.0.0.1' }]) },
      { method: 'POST', path: '/api/v1/nodes', body: node('{ns}-bare', []) },
      { method: 'POST', path: `${LOG}`, body: pod('multi', '{ns}-n', ['a', 'b'], ['i']) },
      { method: 'POST', path: `${LOG}`, body: pod('one', '{ns}-n', ['c']) },
      { method: 'POST', path: `${LOG}`, body: pod('orphan', '{ns}-bare', ['c']) },
      { method: 'POST', path: `${LOG}`, body: pod('ghost', '{ns}-missing', ['c']) },
      { method: 'PATCH', path: `${LOG}/one/status`, headers: MERGE, body: { status: { podIP: '127.0.0.1', podIPs: [{ ip: '127.0.0.1' }] } } },
      { method: 'PATCH', path: `${LOG}/multi/status`, headers: MERGE, body: { status: { podIP: '10.244.0.9', podIPs: [{ ip: '10.244.0.9' }] } } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ name: 'http', port: 80 }] } } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/services', body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's2' }, spec: { ports: [{ name: 'http', port: 80 }] } } },
      { method: 'POST', path: '/api/v1/namespaces/{ns}/endpoints', body: { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 's2' }, subsets: [] } },
    ],
    steps: [
      { title: 'log: a container must be named among several', method: 'GET', path: `${LOG}/multi/log` },
      { title: 'log: an unknown container', method: 'GET', path: `${LOG}/multi/log?container=zz` },
      { title: 'log: an init container is a container', method: 'GET', path: `${LOG}/multi/log?container=i&tailLines=1` },
      { title: 'log: negative tailLines', method: 'GET', path: `${LOG}/one/log?tailLines=-1` },
      { title: 'log: limitBytes 0', method: 'GET', path: `${LOG}/one/log?limitBytes=0` },
      { title: 'log: sinceSeconds 0', method: 'GET', path: `${LOG}/one/log?sinceSeconds=0` },
      { title: 'log: sinceSeconds and sinceTime', method: 'GET', path: `${LOG}/one/log?sinceSeconds=5&sinceTime=2024-01-01T00:00:00Z` },
      { title: 'log: tailLines not a number', method: 'GET', path: `${LOG}/one/log?tailLines=abc` },
      { title: 'log: the kubelet unreachable', method: 'GET', path: `${LOG}/one/log?follow=true&timestamps=true` },
      { title: 'log: a node without addresses', method: 'GET', path: `${LOG}/orphan/log` },
      { title: 'log: a node that does not exist', method: 'GET', path: `${LOG}/ghost/log` },
      { title: 'exec: not an upgrade', method: 'POST', path: `${LOG}/one/exec?command=ls&stdout=true` },
      { title: 'exec: GET, not an upgrade', method: 'GET', path: `${LOG}/one/exec?command=ls&stdout=true` },
      { title: 'exec: an unknown container', method: 'POST', path: `${LOG}/multi/exec?command=ls&stdout=true&container=zz` },
      { title: 'exec: no container named among several', method: 'POST', path: `${LOG}/multi/exec?command=ls&stdout=true` },
      { title: 'exec: a node without addresses', method: 'POST', path: `${LOG}/orphan/exec?command=ls&stdout=true` },
      { title: 'attach: not an upgrade', method: 'POST', path: `${LOG}/one/attach?stdout=true` },
      { title: 'portforward: not an upgrade', method: 'POST', path: `${LOG}/one/portforward?ports=80` },
      { title: 'portforward: a node that does not exist', method: 'POST', path: `${LOG}/ghost/portforward?ports=80` },
      { title: 'pods/proxy: a loopback pod IP', method: 'GET', path: `${LOG}/one/proxy/` },
      { title: 'pods/proxy: a named port on a loopback pod IP', method: 'GET', path: `${LOG}/https:one:443/proxy/x` },
      { title: 'pods/proxy: a malformed name', method: 'GET', path: `${LOG}/a:b:c:d/proxy/` },
      { title: 'pods/proxy: an unknown scheme', method: 'GET', path: `${LOG}/ftp:one:21/proxy/` },
      { title: 'nodes/proxy: a loopback kubelet', method: 'GET', path: '/api/v1/nodes/{ns}-n/proxy/healthz' },
      { title: 'nodes/proxy: another port of a loopback node', method: 'GET', path: '/api/v1/nodes/{ns}-n:8080/proxy/' },
      { title: 'nodes/proxy: a node without addresses', method: 'GET', path: '/api/v1/nodes/{ns}-bare/proxy/' },
      { title: 'services/proxy: no Endpoints object', method: 'GET', path: '/api/v1/namespaces/{ns}/services/s/proxy/' },
      { title: 'services/proxy: a port the service lacks', method: 'GET', path: '/api/v1/namespaces/{ns}/services/s:81/proxy/' },
      { title: 'services/proxy: a port number of a missing service', method: 'GET', path: '/api/v1/namespaces/{ns}/services/nope:80/proxy/' },
      { title: 'services/proxy: Endpoints without subsets', method: 'GET', path: '/api/v1/namespaces/{ns}/services/s2/proxy/' },
      { title: 'services/proxy: a port name of Endpoints without subsets', method: 'GET', path: '/api/v1/namespaces/{ns}/services/s2:http/proxy/' },
    ],
    cleanup: [
      { method: 'DELETE', path: '/api/v1/nodes/{ns}-n' },
      { method: 'DELETE', path: '/api/v1/nodes/{ns}-bare' },
    ],
  },
];
