// PodSecurity admission through real kubectl 1.32: the namespace labels pick
// the level per mode; enforce refuses with upstream's message, warn prints
// kubectl's "Warning:" line, workloads with pod templates are only warned,
// bad label values are refused, and raising a namespace's enforce level warns
// about the pods already there. Expected texts are kube-apiserver 1.32.4's.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kubectl, kubectlAgainstNewServer } from '../kubectl/helpers.js';
import { evaluatePod, describe } from '../../src/admission/pod-security/checks.js';

let k: Kubectl;
before(async () => {
  // Privileged containers allowed (--allow-privileged=true): without it, pod
  // validation refuses a privileged container before PodSecurity sees it (test/registry/allow-privileged.test.ts).
  k = await kubectlAgainstNewServer({ allowPrivileged: true });
});
after(async () => {
  await k.server.stop();
});

const RESTRICTED_NGINX = (c: string): string =>
  `allowPrivilegeEscalation != false (container "${c}" must set securityContext.allowPrivilegeEscalation=false), ` +
  `unrestricted capabilities (container "${c}" must set securityContext.capabilities.drop=["ALL"]), ` +
  `runAsNonRoot != true (pod or container "${c}" must set securityContext.runAsNonRoot=true), ` +
  `seccompProfile (pod or container "${c}" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`;

test('enforce=restricted refuses a privileged pod with upstream\'s message', async () => {
  await k.ok(['create', 'namespace', 'psa-enforce']);
  await k.ok(['label', 'namespace', 'psa-enforce', 'pod-security.kubernetes.io/enforce=restricted']);
  const err = await k.fails(['-n', 'psa-enforce', 'run', 'p', '--image=nginx', '--privileged']);
  assert.equal(
    err.trim(),
    `Error from server (Forbidden): pods "p" is forbidden: violates PodSecurity "restricted:latest": privileged (container "p" must not set securityContext.privileged=true), ${RESTRICTED_NGINX('p')}`,
  );
  assert.equal((await k.run(['-n', 'psa-enforce', 'get', 'pod', 'p'])).code, 1, 'nothing stored');
  // a pinned older version applies that version's checks (capabilities came in 1.22)
  await k.ok(['label', 'namespace', 'psa-enforce', 'pod-security.kubernetes.io/enforce-version=v1.21']);
  const old = await k.fails(['-n', 'psa-enforce', 'run', 'p4', '--image=nginx', '--dry-run=server']);
  assert.equal(
    old.trim(),
    'Error from server (Forbidden): pods "p4" is forbidden: violates PodSecurity "restricted:v1.21": allowPrivilegeEscalation != false (container "p4" must set securityContext.allowPrivilegeEscalation=false), runAsNonRoot != true (pod or container "p4" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "p4" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
  );
});

test('a restricted-compliant pod is admitted', async () => {
  await k.ok(['create', 'namespace', 'psa-ok']);
  await k.ok(['label', 'namespace', 'psa-ok', 'pod-security.kubernetes.io/enforce=restricted']);
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'good', namespace: 'psa-ok' },
    spec: {
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [{ name: 'c', image: 'nginx', securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } } }],
    },
  };
  const r = await k.run(['create', '-f', '-'], { stdin: JSON.stringify(pod) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
});

test('warn=restricted lets the pod in and kubectl prints the warning; a Deployment is warned, never refused', async () => {
  await k.ok(['create', 'namespace', 'psa-warn']);
  await k.ok(['label', 'namespace', 'psa-warn', 'pod-security.kubernetes.io/warn=restricted', 'pod-security.kubernetes.io/enforce=baseline']);
  const r = await k.run(['-n', 'psa-warn', 'run', 'p5', '--image=nginx']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.trim(), `Warning: would violate PodSecurity "restricted:latest": ${RESTRICTED_NGINX('p5')}`);
  const d = await k.run(['-n', 'psa-warn', 'create', 'deployment', 'd2', '--image=nginx']);
  assert.equal(d.code, 0, d.stderr);
  assert.equal(d.stderr.trim(), `Warning: would violate PodSecurity "restricted:latest": ${RESTRICTED_NGINX('nginx')}`);
  // enforce=restricted on a Deployment: still only warnings (its pods are judged when created)
  await k.ok(['create', 'namespace', 'psa-workload']);
  await k.ok(['label', 'namespace', 'psa-workload', 'pod-security.kubernetes.io/enforce=restricted']);
  const d3 = await k.run(['-n', 'psa-workload', 'create', 'deployment', 'd3', '--image=nginx']);
  assert.equal(d3.code, 0, d3.stderr);
});

test('raising the enforce level warns about existing pods, one line per set of violations; a bad level is refused', async () => {
  await k.ok(['-n', 'psa-warn', 'run', 'p6', '--image=nginx']);
  await k.ok(['-n', 'psa-warn', 'run', 'p7', '--image=nginx', '--overrides', JSON.stringify({ spec: { securityContext: { runAsNonRoot: true } } })]);
  const r = await k.run(['label', 'namespace', 'psa-warn', 'pod-security.kubernetes.io/enforce=restricted', '--overwrite']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stderr.trim(),
    'Warning: existing pods in namespace "psa-warn" violate the new PodSecurity enforce level "restricted:latest"\n' +
      'Warning: p5 (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile\n' +
      'Warning: p7: allowPrivilegeEscalation != false, unrestricted capabilities, seccompProfile',
  );
  const bad = await k.fails(['label', 'namespace', 'psa-warn', 'pod-security.kubernetes.io/enforce=foo', '--overwrite']);
  assert.equal(
    bad.trim(),
    'The Namespace "psa-warn" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "foo": must be one of privileged, baseline, restricted',
  );
});

test('at the restricted level, the restricted checks replace their baseline counterparts (upstream\'s order)', () => {
  const results = evaluatePod('restricted', { major: Number.POSITIVE_INFINITY, minor: 0 }, {}, {
    hostPID: true,
    securityContext: { seLinuxOptions: { type: 'spc_t', user: 'u' }, runAsUser: 0 },
    volumes: [{ name: 'h', hostPath: { path: '/tmp' } }, { name: 'g', nfs: { server: 'x', path: '/' } }, { name: 'e', emptyDir: {} }],
    initContainers: [{ name: 'i', securityContext: { procMount: 'Default', capabilities: { add: ['NET_ADMIN', 'SYS_TIME'] } } }],
    containers: [
      { name: 'c', ports: [{ hostPort: 8080 }], securityContext: { seccompProfile: { type: 'Unconfined' }, runAsNonRoot: false, appArmorProfile: { type: 'Unconfined' } } },
      { name: 'd', ports: [{ hostPort: 81 }], securityContext: { appArmorProfile: { type: 'Unconfined' } } },
    ],
  } as never);
  // kube-apiserver 1.32.4's answer for this pod (its strategy had also copied the fields into annotations)
  assert.equal(
    describe(results),
    'forbidden AppArmor profile (containers "c", "d" must not set AppArmor profile type to "Unconfined"), host namespaces (hostPID=true), hostPort (containers "c", "d" use hostPorts 8080, 81), seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set), allowPrivilegeEscalation != false (containers "i", "c", "d" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "i", "c", "d" must set securityContext.capabilities.drop=["ALL"]; container "i" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add), restricted volume types (volumes "h", "g" use restricted volume types "hostPath", "nfs"), runAsNonRoot != true (container "c" must not set securityContext.runAsNonRoot=false), runAsUser=0 (pod must not set runAsUser=0), seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined")',
  );
});

test('every baseline check names what it found, in upstream\'s order and words', () => {
  const results = evaluatePod('baseline', { major: Number.POSITIVE_INFINITY, minor: 0 }, { annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' } }, {
    hostPID: true,
    hostIPC: true,
    securityContext: { sysctls: [{ name: 'kernel.msgmax' }, { name: 'net.ipv4.tcp_rmem' }], seLinuxOptions: { type: 'spc_t', user: 'u' } },
    volumes: [{ name: 'h', hostPath: { path: '/tmp' } }, { name: 'e', emptyDir: {} }],
    initContainers: [{ name: 'i', securityContext: { procMount: 'Unmasked', capabilities: { add: ['NET_ADMIN', 'SYS_TIME'] } } }],
    containers: [
      { name: 'c', ports: [{ hostPort: 8080 }], securityContext: { privileged: true, seccompProfile: { type: 'Unconfined' }, windowsOptions: { hostProcess: true } } },
      { name: 'd', ports: [{ hostPort: 81 }] },
    ],
  } as never);
  assert.equal(
    describe(results),
    'forbidden AppArmor profile (annotation must not set AppArmor profile type to "container.apparmor.security.beta.kubernetes.io/c="unconfined""), ' +
      'non-default capabilities (container "i" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add), ' +
      'host namespaces (hostIPC=true, hostPID=true), ' +
      'hostPath volumes (volume "h"), ' +
      'hostPort (containers "c", "d" use hostPorts 80, 8080), '.replace('80, 8080', '8080, 81') +
      'privileged (container "c" must not set securityContext.privileged=true), ' +
      'procMount (container "i" must not set securityContext.procMount to "Unmasked"), ' +
      'seLinuxOptions (pod set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set), ' +
      'seccompProfile (container "c" must not set securityContext.seccompProfile.type to "Unconfined"), ' +
      'forbidden sysctls (kernel.msgmax), ' +
      'hostProcess (container "c" must not set securityContext.windowsOptions.hostProcess=true)',
  );
});
