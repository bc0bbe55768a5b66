// Typed Secrets as kube-apiserver 1.32 validates them: each type's required
// keys and annotations, and the type's immutability. Dry-run creates.

import type { DiffCase } from '../case.js';

const SECRETS = '/api/v1/namespaces/{ns}/secrets';
const secret = (name: string, type: string, data: Record<string, string> = {}, annotations?: Record<string, string>) => ({
  title: `a ${type} secret: ${name}`,
  method: 'POST' as const,
  path: `${SECRETS}?dryRun=All`,
  body: { apiVersion: 'v1', kind: 'Secret', metadata: { name, ...(annotations ? { annotations } : {}) }, type, stringData: data },
});

export const cases: DiffCase[] = [
  {
    name: 'secret types: required keys and annotations',
    steps: [
      secret('sa-no-annotation', 'kubernetes.io/service-account-token'),
      secret('basic-empty', 'kubernetes.io/basic-auth'),
      secret('ssh-empty', 'kubernetes.io/ssh-auth'),
      secret('tls-missing-key', 'kubernetes.io/tls', { 'tls.crt': 'x' }),
      secret('docker-missing', 'kubernetes.io/dockerconfigjson'),
      secret('dockercfg-bad', 'kubernetes.io/dockercfg', { '.dockercfg': 'not json' }),
      secret('bootstrap', 'bootstrap.kubernetes.io/token', { 'token-id': 'abc' }),
      secret('custom-bad-type', 'Bad Type!'),
    ],
  },
];
