// Real kubectl 1.32 against CRD validation rules (x-kubernetes-validations):
// a violating custom resource is refused with upstream's messages (rule
// message and messageExpression), a transition rule (oldSelf) refuses a
// change, and a ratcheted failure (an unchanged value that fails a rule added
// later) is let through with upstream's Warning. Every expected text was read
// from a kube-apiserver v1.32.4 given the same objects.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { runKubectl } from '../helpers/kubectl.js';
import { startCluster, waitFor, type Cluster } from '../namespaces/helpers.js';

const crd = (colorRule: boolean) => `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.cel.example.com
spec:
  group: cel.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.minReplicas <= self.maxReplicas"
              message: "minReplicas must not exceed maxReplicas"
            - rule: "self.size != 'huge'"
              messageExpression: "'size ' + self.size + ' is not allowed'"
            properties:
              minReplicas: {type: integer}
              maxReplicas: {type: integer}
              size: {type: string}
              name:
                type: string
                x-kubernetes-validations:
                - rule: "self == oldSelf"
                  message: "name is immutable"
              color:
                type: string${colorRule ? `
                x-kubernetes-validations:
                - rule: "self.startsWith('c')"` : ''}
`;

const widget = (name: string, spec: string) => `apiVersion: cel.example.com/v1
kind: Widget
metadata: {name: ${name}, namespace: default}
spec: {${spec}}
`;

let cluster: Cluster;
const kubectl = (args: string[], stdin?: string) => runKubectl(cluster.server.kubeconfigPath, args, stdin === undefined ? {} : { stdin });

before(async () => {
  cluster = await startCluster();
  const applied = await kubectl(['apply', '-f', '-'], crd(true));
  assert.equal(applied.code, 0, applied.stderr);
  const waited = await kubectl(['wait', '--for=condition=Established', 'crd/widgets.cel.example.com', '--timeout=10s']);
  assert.equal(waited.code, 0, waited.stderr);
});
after(() => cluster.stop());

test('a custom resource breaking rules is refused with the rule message and the messageExpression result', async () => {
  const ok = await waitFor('the Widget resource to be served', async () => {
    const r = await kubectl(['apply', '-f', '-'], widget('w1', 'minReplicas: 1, maxReplicas: 3, size: small, name: a'));
    return r.code === 0 ? r : undefined;
  });
  assert.equal(ok.stdout.trim(), 'widget.cel.example.com/w1 created');

  const bad = await kubectl(['apply', '-f', '-'], widget('w2', 'minReplicas: 5, maxReplicas: 3, size: huge, name: a'));
  assert.equal(bad.code, 1);
  assert.equal(
    bad.stderr.trim(),
    'The Widget "w2" is invalid: \n' +
      '* spec: Invalid value: "object": minReplicas must not exceed maxReplicas\n' +
      '* spec: Invalid value: "object": size huge is not allowed',
  );
  const absent = await kubectl(['get', 'widget', 'w2']);
  assert.notEqual(absent.code, 0);
});

test('a transition rule (self == oldSelf) refuses a change on update', async () => {
  const changed = await kubectl(['apply', '-f', '-'], widget('w1', 'minReplicas: 1, maxReplicas: 3, size: small, name: b'));
  assert.equal(changed.code, 1);
  assert.equal(changed.stderr.trim(), 'The Widget "w1" is invalid: spec.name: Invalid value: "string": name is immutable');
  const kept = await kubectl(['get', 'widget', 'w1', '-o', 'jsonpath={.spec.name}']);
  assert.equal(kept.stdout, 'a');
});

test('a ratcheted rule failure on update is let through with a Warning', async () => {
  // w3 is stored while the color rule does not exist yet.
  const loose = await kubectl(['apply', '-f', '-'], crd(false));
  assert.equal(loose.code, 0, loose.stderr);
  await waitFor('the CRD without the color rule', async () => {
    const r = await kubectl(['apply', '-f', '-'], widget('w3', 'minReplicas: 1, maxReplicas: 3, size: small, name: a, color: red'));
    return r.code === 0 ? r : undefined;
  });
  const strict = await kubectl(['apply', '-f', '-'], crd(true));
  assert.equal(strict.code, 0, strict.stderr);
  const refused = await waitFor('the color rule to apply', async () => {
    const r = await kubectl(['apply', '-f', '-'], widget('w4', 'minReplicas: 1, maxReplicas: 3, size: small, name: a, color: red'));
    return r.code !== 0 ? r : undefined;
  });
  assert.equal(refused.stderr.trim(), `The Widget "w4" is invalid: spec.color: Invalid value: "string": failed rule: self.startsWith('c')`);

  // color is unchanged: the failure is ratcheted into a warning.
  const updated = await kubectl(['apply', '-f', '-'], widget('w3', 'minReplicas: 1, maxReplicas: 3, size: big, name: a, color: red'));
  assert.equal(updated.code, 0, updated.stderr);
  assert.equal(updated.stdout.trim(), 'widget.cel.example.com/w3 configured');
  assert.equal(updated.stderr.trim(), `Warning: spec.color: Invalid value: "string": failed rule: self.startsWith('c')`);
  // A changed color must pass the rule.
  const recolored = await kubectl(['patch', 'widget', 'w3', '--type=merge', '-p', '{"spec":{"color":"blue"}}']);
  assert.equal(recolored.code, 1);
  assert.equal(
    recolored.stderr.trim(),
    `The Widget "w3" is invalid: spec.color: Invalid value: "string": failed rule: self.startsWith('c')`,
  );
});
