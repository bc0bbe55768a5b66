// networking.k8s.io/v1: network policies, ingresses (and their status) and
// ingress classes — create with defaults, get, list, Table, and validation errors.

import type { DiffCase } from '../case.js';

const NP = '/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies';
const ING = '/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses';
const IC = '/apis/networking.k8s.io/v1/ingressclasses';
const TABLE = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
const MERGE = { 'content-type': 'application/merge-patch+json' };
const AGE = '^\\d+[smhd]$';

export const cases: DiffCase[] = [
  {
    name: 'networking: network policies',
    steps: [
      {
        title: 'create: policyTypes and port protocols defaulted',
        method: 'POST',
        path: NP,
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: { name: 'web' },
          spec: {
            podSelector: { matchLabels: { app: 'web' } },
            ingress: [{ from: [{ podSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80 }, { port: 'http' }] }],
            egress: [{ to: [{ namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a'] }] } }], ports: [{ port: 53, protocol: 'UDP', endPort: 60 }] }],
          },
        },
      },
      { title: 'get', method: 'GET', path: `${NP}/web` },
      { title: 'list', method: 'GET', path: NP },
      { title: 'table', method: 'GET', path: NP, headers: TABLE, mask: [AGE] },
      { title: 'a spec change bumps generation', method: 'PATCH', path: `${NP}/web`, headers: MERGE, body: { spec: { policyTypes: ['Ingress'] } } },
      {
        title: 'invalid: no peer, ipBlock with a selector, except outside cidr, endPort below port, bad protocol and type',
        method: 'POST',
        path: NP,
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'NetworkPolicy',
          metadata: { name: 'bad' },
          spec: {
            podSelector: { matchExpressions: [{ key: 'a', operator: 'In' }] },
            ingress: [{ from: [{}, { ipBlock: { cidr: '10.0.0.0/16', except: ['192.168.0.0/24'] }, podSelector: {} }], ports: [{ port: 90, endPort: 80 }, { protocol: 'ICMP' }] }],
            policyTypes: ['Sideways'],
          },
        },
      },
      { title: 'invalid: a malformed cidr', method: 'POST', path: NP, body: { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'cidr' }, spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.0/33' } }] }] } } },
    ],
  },
  {
    name: 'networking: ingresses and their status',
    steps: [
      {
        title: 'create',
        method: 'POST',
        path: ING,
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'site' },
          spec: {
            ingressClassName: 'nginx',
            tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
            rules: [
              { host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } },
              { host: '*.b.example.com', http: { paths: [{ path: '/api', pathType: 'Exact', backend: { service: { name: 'api', port: { name: 'http' } } } }] } },
            ],
          },
          status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
        },
      },
      { title: 'get: status was dropped', method: 'GET', path: `${ING}/site` },
      { title: 'status: set the address', method: 'PATCH', path: `${ING}/site/status`, headers: MERGE, body: { status: { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'lb.example.com' }] } } } },
      { title: 'status: an IP as hostname', method: 'PATCH', path: `${ING}/site/status`, headers: MERGE, body: { status: { loadBalancer: { ingress: [{ hostname: '1.2.3.4' }] } } } },
      { title: 'a spec write keeps the status', method: 'PATCH', path: `${ING}/site`, headers: MERGE, body: { spec: { ingressClassName: 'other' }, status: null } },
      { title: 'list', method: 'GET', path: ING },
      { title: 'table', method: 'GET', path: ING, headers: TABLE, mask: [AGE] },
      { title: 'invalid: neither rules nor default backend', method: 'POST', path: ING, body: { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'empty' }, spec: {} } },
      {
        title: 'invalid: paths, backends, hosts',
        method: 'POST',
        path: ING,
        body: {
          apiVersion: 'networking.k8s.io/v1',
          kind: 'Ingress',
          metadata: { name: 'bad', annotations: { 'kubernetes.io/ingress.class': 'a' } },
          spec: {
            ingressClassName: 'b',
            rules: [
              { host: '10.0.0.1', http: { paths: [{ path: 'relative', pathType: 'Prefix', backend: { service: { name: 'web' } } }, { path: '/x', backend: {} }] } },
              { host: 'UPPER.example.com', http: { paths: [{ path: '/a//b', pathType: 'Exact', backend: { service: { name: 'web', port: { number: 80, name: 'http' } } } }, { path: '/', pathType: 'Fuzzy', backend: { service: { name: 'web', port: { number: 70000 } } } }] } },
            ],
          },
        },
      },
    ],
  },
  {
    name: 'networking: ingress classes',
    steps: [
      {
        title: 'create: parameters scope defaulted',
        method: 'POST',
        path: IC,
        body: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'apis-diff-nginx' }, spec: { controller: 'example.com/ingress', parameters: { apiGroup: 'k8s.example.com', kind: 'Params', name: 'p' } } },
      },
      { title: 'get', method: 'GET', path: `${IC}/apis-diff-nginx` },
      { title: 'table', method: 'GET', path: `${IC}/apis-diff-nginx`, headers: TABLE, mask: [AGE] },
      { title: 'the controller is immutable', method: 'PATCH', path: `${IC}/apis-diff-nginx`, headers: MERGE, body: { spec: { controller: 'example.com/other' } } },
      {
        title: 'invalid: controller not domain-prefixed, namespace scope without namespace',
        method: 'POST',
        path: IC,
        body: { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'apis-diff-bad' }, spec: { controller: 'nginx', parameters: { kind: 'Params', name: 'p', scope: 'Namespace' } } },
      },
    ],
    cleanup: [{ method: 'DELETE', path: `${IC}/apis-diff-nginx` }, { method: 'DELETE', path: `${IC}/apis-diff-bad` }],
  },
];
