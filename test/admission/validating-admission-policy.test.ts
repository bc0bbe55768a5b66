// ValidatingAdmissionPolicy through real kubectl 1.32: a policy that limits the
// keys of ConfigMaps in namespaces labelled tier=restricted (Deny, then Warn),
// params from a custom resource (and parameterNotFoundAction Deny), a policy
// whose expression does not type-check against ConfigMap (status.typeChecking),
// upstream's validation errors and Table columns. Expected texts are
// kube-apiserver 1.32.4's for the same steps.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Kubectl, kubectlAgainstNewServer } from '../kubectl/helpers.js';
import { until } from '../helpers/wait.js';

let k: Kubectl;
before(async () => {
  k = await kubectlAgainstNewServer();
});
after(async () => {
  await k.server.stop();
});

const apply = async (yaml: string): Promise<void> => {
  const r = await k.run(['apply', '-f', '-'], { stdin: yaml });
  assert.equal(r.code, 0, r.stderr);
};
const bigConfigMap = ['create', 'configmap', 'big', '--from-literal=a=1', '--from-literal=b=2', '--from-literal=c=3'];
const DENIED = `error: failed to create configmap: configmaps "big" is forbidden: ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-restricted' denied request: a ConfigMap may hold at most 2 keys`;

test('a policy limits ConfigMap keys in namespaces labelled tier=restricted; Deny refuses, Warn warns', async () => {
  await apply(`apiVersion: v1
kind: Namespace
metadata: {name: restricted, labels: {tier: restricted}}
---
apiVersion: v1
kind: Namespace
metadata: {name: open}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-keys}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["configmaps"]
  validations:
  - expression: "!has(object.data) || size(object.data) <= 2"
    message: "a ConfigMap may hold at most 2 keys"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: max-keys-restricted}
spec:
  policyName: max-keys
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels: {tier: restricted}
`);
  await until('the binding denies', async () => (await k.run(['-n', 'restricted', ...bigConfigMap, '--dry-run=server'])).code !== 0);
  assert.equal((await k.fails(['-n', 'restricted', ...bigConfigMap])).trim(), DENIED);
  assert.equal((await k.run(['-n', 'restricted', 'get', 'configmap', 'big'])).code, 1, 'a denied ConfigMap is not stored');
  await k.ok(['-n', 'open', ...bigConfigMap]);
  await k.ok(['-n', 'restricted', 'create', 'configmap', 'small', '--from-literal=a=1']);

  await k.ok(['patch', 'validatingadmissionpolicybinding', 'max-keys-restricted', '--type=merge', '-p', '{"spec":{"validationActions":["Warn"]}}']);
  await until('the binding only warns', async () => (await k.run(['-n', 'restricted', ...bigConfigMap, '--dry-run=server'])).code === 0);
  const r = await k.run(['-n', 'restricted', ...bigConfigMap]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'configmap/big created\n');
  assert.equal(r.stderr.trim(), "Warning: Validation failed for ValidatingAdmissionPolicy 'max-keys' with binding 'max-keys-restricted': a ConfigMap may hold at most 2 keys");

  const table = await k.ok(['get', 'validatingadmissionpolicy,validatingadmissionpolicybinding']);
  assert.match(table, /NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\nvalidatingadmissionpolicy.admissionregistration.k8s.io\/max-keys\s+1\s+<unset>\s+\d+s/);
  assert.match(table, /NAME\s+POLICYNAME\s+PARAMREF\s+AGE\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io\/max-keys-restricted\s+max-keys\s+<unset>\s+\d+s/);
  await k.ok(['delete', 'validatingadmissionpolicybinding', 'max-keys-restricted']);
});

test('params come from a custom resource; a missing param with parameterNotFoundAction Deny refuses', async () => {
  await apply(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: keylimits.policy.example.com}
spec:
  group: policy.example.com
  scope: Namespaced
  names: {plural: keylimits, singular: keylimit, kind: KeyLimit}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          maxKeys: {type: integer}
`);
  await until('the CRD is served', async () => (await k.run(['get', 'keylimits', '-A'])).code === 0);
  await apply(`apiVersion: policy.example.com/v1
kind: KeyLimit
metadata: {name: limit, namespace: restricted}
maxKeys: 1
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: param-keys}
spec:
  paramKind: {apiVersion: policy.example.com/v1, kind: KeyLimit}
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "size(object.data) <= params.maxKeys"
    messageExpression: "'at most ' + string(params.maxKeys) + ' keys, got ' + string(size(object.data))"
    reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: param-keys}
spec:
  policyName: param-keys
  validationActions: [Deny]
  paramRef: {name: limit, parameterNotFoundAction: Deny}
  matchResources:
    namespaceSelector:
      matchLabels: {tier: restricted}
`);
  const two = ['-n', 'restricted', 'create', 'configmap', 'two', '--from-literal=a=1', '--from-literal=b=2'];
  await until('the param binding denies', async () => (await k.run([...two, '--dry-run=server'])).code !== 0);
  assert.equal(
    (await k.fails(two)).trim(),
    `error: failed to create configmap: configmaps "two" is forbidden: ValidatingAdmissionPolicy 'param-keys' with binding 'param-keys' denied request: at most 1 keys, got 2`,
  );
  // the validation's reason sets the code: Forbidden is 403
  assert.match((await k.run([...two, '-v=6'])).stderr, /403 Forbidden/);
  await k.ok(['-n', 'restricted', 'patch', 'keylimit', 'limit', '--type=merge', '-p', '{"maxKeys":2}']);
  await until('the new param applies', async () => (await k.run([...two, '--dry-run=server'])).code === 0);
  await k.ok(['-n', 'restricted', 'delete', 'keylimit', 'limit']);
  await until('the missing param denies', async () => (await k.run([...two, '--dry-run=server'])).code !== 0);
  assert.equal(
    (await k.fails(two)).trim(),
    "error: failed to create configmap: configmaps \"two\" is forbidden: ValidatingAdmissionPolicy 'param-keys' with binding 'param-keys' denied request: failed to configure binding: no params found for policy binding with `Deny` parameterNotFoundAction",
  );
  // a configuration error has no validation reason: 422 Invalid
  const raw = await k.run(['-n', 'restricted', 'create', 'configmap', 'x', '--from-literal=a=1', '-v=6']);
  assert.match(raw.stderr, /422 Unprocessable Entity/);
  await k.ok(['delete', 'validatingadmissionpolicybinding', 'param-keys']);

  // custom resources are typed by their CRD's schema, as object and as params (kube-apiserver 1.32.4's status)
  await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: crd-typed}
spec:
  paramKind: {apiVersion: policy.example.com/v1, kind: KeyLimit}
  matchConstraints:
    resourceRules:
    - apiGroups: ["policy.example.com"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["keylimits"]
  validations:
  - expression: "object.maxKeys > 0"
  - expression: "object.foo == 1"
  - expression: "params.maxKeys == 1 && params.bar == 2"
  - expression: "object.metadata.name == 'x' && object.maxKeys == 'a'"
`);
  let status = '';
  await until('status is written', async () => {
    status = await k.ok(['get', 'validatingadmissionpolicy', 'crd-typed', '-o', 'jsonpath={.status}']);
    return status.includes('observedGeneration');
  });
  const kind = 'policy.example.com/v1, Kind=KeyLimit';
  assert.deepEqual(JSON.parse(status).typeChecking.expressionWarnings, [
    { fieldRef: 'spec.validations[1].expression', warning: `${kind}: ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 1\n | ......^\n` },
    { fieldRef: 'spec.validations[2].expression', warning: `${kind}: ERROR: <input>:1:30: undefined field 'bar'\n | params.maxKeys == 1 && params.bar == 2\n | .............................^\n` },
    {
      fieldRef: 'spec.validations[3].expression',
      warning: `${kind}: ERROR: <input>:1:47: found no matching overload for '_==_' applied to '(int, string)'\n | object.metadata.name == 'x' && object.maxKeys == 'a'\n | ..............................................^\n`,
    },
  ]);
});

test('a type error against ConfigMap is reported in status.typeChecking', async () => {
  await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typo}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "object.foo == 1"
  - expression: "size(object.data) < 3"
`);
  let status = '';
  await until('status is written', async () => {
    status = await k.ok(['get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.status}']);
    return status.includes('observedGeneration');
  });
  assert.deepEqual(JSON.parse(status), {
    observedGeneration: 1,
    typeChecking: {
      expressionWarnings: [
        { fieldRef: 'spec.validations[0].expression', warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 1\n | ......^\n" },
      ],
    },
  });
});

test('params are typed by a built-in paramKind, messageExpressions are checked too', async () => {
  await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: typed-params}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["secrets"]
  validations:
  - expression: "params.foo == 1"
  - expression: "size(object.data) <= int(params.data.max)"
  - expression: "object.type == params.metadata.name"
    messageExpression: "string(params.data.x) + string(object.stringData)"
`);
  let status = '';
  await until('status is written', async () => {
    status = await k.ok(['get', 'validatingadmissionpolicy', 'typed-params', '-o', 'jsonpath={.status}']);
    return status.includes('observedGeneration');
  });
  // kube-apiserver 1.32.4's status for the same policy
  assert.deepEqual(JSON.parse(status), {
    observedGeneration: 1,
    typeChecking: {
      expressionWarnings: [
        { fieldRef: 'spec.validations[0].expression', warning: "/v1, Kind=Secret: ERROR: <input>:1:7: undefined field 'foo'\n | params.foo == 1\n | ......^\n" },
        {
          fieldRef: 'spec.validations[2].messageExpression',
          warning: "/v1, Kind=Secret: ERROR: <input>:1:31: found no matching overload for 'string' applied to '(map(string, string))'\n | string(params.data.x) + string(object.stringData)\n | ..............................^\n",
        },
      ],
    },
  });
});

test('bad policies and bindings are refused with upstream\'s field errors', async () => {
  const r = await k.run(['create', '-f', '-'], {
    stdin: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: bad}
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
  validations:
  - expression: "'abc'"
  - expression: "params.x == 1"
  - expression: "true"
    messageExpression: "1"
    reason: Bad
`,
  });
  assert.notEqual(r.code, 0);
  assert.equal(
    r.stderr.trim(),
    `The ValidatingAdmissionPolicy "bad" is invalid: \n` +
      `* spec.validations[0].expression: Invalid value: "'abc'": must evaluate to bool but got string\n` +
      `* spec.validations[1].expression: Invalid value: "params.x == 1": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^\n` +
      `* spec.validations[2].messageExpression: Invalid value: "1": must evaluate to string but got int\n` +
      `* spec.validations[2].reason: Unsupported value: "Bad": supported values: "Forbidden", "Invalid", "RequestEntityTooLarge"`,
  );
  const b = await k.run(['create', '-f', '-'], {
    stdin: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: bad}
spec: {paramRef: {}, validationActions: [Deny, Warn, Foo]}
`,
  });
  assert.equal(
    b.stderr.trim(),
    `The ValidatingAdmissionPolicyBinding "bad" is invalid: \n` +
      `* spec.policyName: Required value\n` +
      `* spec.paramRef: Required value: one of name or selector must be specified\n` +
      `* spec.paramRef.parameterNotFoundAction: Required value\n` +
      `* spec.validationActions[2]: Unsupported value: "Foo": supported values: "Audit", "Deny", "Warn"\n` +
      `* spec.validationActions: Invalid value: []admissionregistration.ValidationAction{"Deny", "Warn", "Foo"}: must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)`,
  );
});
