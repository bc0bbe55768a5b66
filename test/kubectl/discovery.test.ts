// Real kubectl 1.32 against apiary: version, api-versions, api-resources and
// explain (which reads /openapi/v3). Expected output is what kubectl prints
// against a kube-apiserver 1.32 serving the same resources.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kubectl, expectTable, kubectlAgainstNewServer } from './helpers.js';

let k: Kubectl;
before(async () => {
  k = await kubectlAgainstNewServer();
});
after(() => k.server.stop());

test('kubectl version reports the server as 1.32', async () => {
  const out = await k.ok(['version']);
  assert.match(out, /^Client Version: v1\.32\./m);
  assert.match(out, /^Server Version: v1\.32\.0-apiary$/m);
  const json = JSON.parse(await k.ok(['version', '-o', 'json']));
  assert.equal(json.serverVersion.major, '1');
  assert.equal(json.serverVersion.minor, '32');
});

test('kubectl api-versions lists the served group/versions, sorted', async () => {
  const out = await k.ok(['api-versions']);
  assert.deepEqual(out.trim().split('\n'), [
    'admissionregistration.k8s.io/v1', 'apiextensions.k8s.io/v1', 'apps/v1', 'autoscaling/v1', 'autoscaling/v2', 'batch/v1', 'certificates.k8s.io/v1', 'coordination.k8s.io/v1', 'discovery.k8s.io/v1', 'events.k8s.io/v1',
    'flowcontrol.apiserver.k8s.io/v1', 'hnc.x-k8s.io/v1alpha2', 'networking.k8s.io/v1', 'node.k8s.io/v1', 'policy/v1', 'rbac.authorization.k8s.io/v1', 'scheduling.k8s.io/v1', 'storage.k8s.io/v1', 'v1',
  ]);
});

test('kubectl api-resources: columns and rows as a cluster prints them', async () => {
  const rows = expectTable(await k.ok(['api-resources']), ['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
  const byName = new Map(rows.map((r) => [r[0], r]));
  assert.deepEqual(byName.get('configmaps'), ['configmaps', 'cm', 'v1', 'true', 'ConfigMap']);
  assert.deepEqual(byName.get('namespaces'), ['namespaces', 'ns', 'v1', 'false', 'Namespace']);
  assert.deepEqual(byName.get('deployments'), ['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
  assert.deepEqual(byName.get('leases'), ['leases', 'coordination.k8s.io/v1', 'true', 'Lease']);
  assert.deepEqual(byName.get('replicasets'), ['replicasets', 'rs', 'apps/v1', 'true', 'ReplicaSet']);
  assert.deepEqual(byName.get('statefulsets'), ['statefulsets', 'sts', 'apps/v1', 'true', 'StatefulSet']);
  assert.deepEqual(byName.get('cronjobs'), ['cronjobs', 'cj', 'batch/v1', 'true', 'CronJob']);
  assert.deepEqual(byName.get('jobs'), ['jobs', 'batch/v1', 'true', 'Job']);
  assert.deepEqual(byName.get('horizontalpodautoscalers'), ['horizontalpodautoscalers', 'hpa', 'autoscaling/v2', 'true', 'HorizontalPodAutoscaler']);
  assert.deepEqual(byName.get('poddisruptionbudgets'), ['poddisruptionbudgets', 'pdb', 'policy/v1', 'true', 'PodDisruptionBudget']);
  // Secrets have no short name: the empty cell collapses in this split.
  assert.deepEqual(byName.get('secrets'), ['secrets', 'v1', 'true', 'Secret']);
  // The core resources with no storage of their own, as a cluster lists them.
  assert.deepEqual(byName.get('bindings'), ['bindings', 'v1', 'true', 'Binding']);
  assert.deepEqual(byName.get('componentstatuses'), ['componentstatuses', 'cs', 'v1', 'false', 'ComponentStatus']);
  // hierarchical namespaces (HNC's API, served built in)
  assert.deepEqual(byName.get('subnamespaceanchors'), ['subnamespaceanchors', 'subns', 'hnc.x-k8s.io/v1alpha2', 'true', 'SubnamespaceAnchor']);
  assert.deepEqual(byName.get('hierarchicalresourcequotas'), ['hierarchicalresourcequotas', 'hrq', 'hnc.x-k8s.io/v1alpha2', 'true', 'HierarchicalResourceQuota']);
  assert.deepEqual(byName.get('validatingadmissionpolicies'), ['validatingadmissionpolicies', 'admissionregistration.k8s.io/v1', 'false', 'ValidatingAdmissionPolicy']);
  const namespaced = await k.ok(['api-resources', '--namespaced=false', '-o', 'name']);
  assert.deepEqual(namespaced.trim().split('\n'), [
    'componentstatuses', 'namespaces', 'nodes', 'persistentvolumes', 'mutatingwebhookconfigurations.admissionregistration.k8s.io', 'validatingadmissionpolicies.admissionregistration.k8s.io', 'validatingadmissionpolicybindings.admissionregistration.k8s.io', 'validatingwebhookconfigurations.admissionregistration.k8s.io',
    'customresourcedefinitions.apiextensions.k8s.io', 'certificatesigningrequests.certificates.k8s.io',
    'flowschemas.flowcontrol.apiserver.k8s.io', 'prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', 'hncconfigurations.hnc.x-k8s.io',
    'ingressclasses.networking.k8s.io', 'runtimeclasses.node.k8s.io', 'clusterrolebindings.rbac.authorization.k8s.io', 'clusterroles.rbac.authorization.k8s.io',
    'priorityclasses.scheduling.k8s.io', 'csidrivers.storage.k8s.io', 'csinodes.storage.k8s.io', 'storageclasses.storage.k8s.io', 'volumeattachments.storage.k8s.io',
  ]);
});

test('kubectl explain configmap.data reads the OpenAPI v3 schema', async () => {
  const out = await k.ok(['explain', 'configmap.data']);
  assert.match(out, /^KIND:\s+ConfigMap\nVERSION:\s+v1\n\nFIELD: data <map\[string\]string>\n/);
  assert.match(out, /\nDESCRIPTION:\n {4}\S/);
});

test('kubectl explain deployment.spec --recursive walks nested fields, required markers included', async () => {
  const out = await k.ok(['explain', 'deployment.spec', '--recursive']);
  assert.match(out, /^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n\nFIELD: spec <DeploymentSpec>/);
  assert.match(out, /^ {2}replicas\t<integer>$/m);
  assert.match(out, /^ {2}selector\t<LabelSelector> -required-$/m);
  assert.match(out, /^ {4}matchLabels\t<map\[string\]string>$/m);
  assert.match(out, /^ {2}template\t<PodTemplateSpec> -required-$/m);
  assert.match(out, /^ {6}containers\t<\[\]Container> -required-$/m);
  assert.match(out, /^ {8}image\t<string>$/m);
  assert.match(out, /^ {6}maxSurge\t<IntOrString>$/m);
});

test('kubectl explain of a field that does not exist fails as against a cluster', async () => {
  const err = await k.fails(['explain', 'configmap.nope']);
  assert.match(err, /field "nope" does not exist/);
});
