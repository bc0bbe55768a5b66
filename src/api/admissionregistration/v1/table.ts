// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// admissionregistration.k8s.io/v1 kinds.
import { AGE_COLUMN, column, NAME_COLUMN, type Printer } from '../../tables/printer.js';
import { at, type Obj, str } from '../../tables/fields.js';
import { timeSince } from '../../tables/duration.js';

export const webhookConfigurationPrinter: Printer = {
  columns: [NAME_COLUMN, column('Webhooks', 'integer', 'How many webhooks the configuration holds.'), AGE_COLUMN],
  print: (o, now) => {
    const hooks = at(o, 'webhooks');
    return { cells: [str(at(o, 'metadata', 'name')), Array.isArray(hooks) ? hooks.length : 0, timeSince(at(o, 'metadata', 'creationTimestamp'), now)] };
  },
};

export const validatingAdmissionPolicyPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Validations', 'integer', 'The number of validation rules of the policy.'),
    column('ParamKind', 'string', 'The kind of the resources that parameterize the policy.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const pk = at(o, 'spec', 'paramKind') as Obj | undefined;
    const validations = at(o, 'spec', 'validations');
    return {
      cells: [
        str(at(o, 'metadata', 'name')),
        Array.isArray(validations) ? validations.length : 0,
        pk !== undefined && pk !== null ? `${str(pk['apiVersion'])}/${str(pk['kind'])}` : '<unset>',
        timeSince(at(o, 'metadata', 'creationTimestamp'), now),
      ],
    };
  },
};

/** metav1.LabelSelector's generated String(), as the ParamRef cell prints a selector. */
function selectorString(sel: Obj): string {
  const labels = (sel['matchLabels'] ?? {}) as Record<string, string>;
  const keys = Object.keys(labels).sort();
  const exprs = Array.isArray(sel['matchExpressions']) ? (sel['matchExpressions'] as Obj[]) : [];
  const expr = exprs.map((e) => `LabelSelectorRequirement{Key:${str(e['key'])},Operator:${str(e['operator'])},Values:[${(Array.isArray(e['values']) ? e['values'] : []).join(' ')}],}`);
  return `&LabelSelector{MatchLabels:map[string]string{${keys.map((k) => `${k}: ${labels[k]},`).join('')}},MatchExpressions:[]LabelSelectorRequirement{${expr.join(',')}},}`;
}

export const validatingAdmissionPolicyBindingPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('PolicyName', 'string', 'The policy the binding binds.'),
    column('ParamRef', 'string', 'The parameter resource of the binding.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    let param = '<unset>';
    const pr = at(o, 'spec', 'paramRef') as Obj | undefined;
    if (pr !== undefined && pr !== null) {
      const name = str(pr['name']);
      const ns = str(pr['namespace']);
      if (name !== '') param = ns !== '' ? `${ns}/${name}` : `*/${name}`;
      else if (pr['selector'] !== undefined && pr['selector'] !== null) param = selectorString(pr['selector'] as Obj);
    }
    return { cells: [str(at(o, 'metadata', 'name')), str(at(o, 'spec', 'policyName')), param, timeSince(at(o, 'metadata', 'creationTimestamp'), now)] };
  },
};

/** The printers by kind, for api/tables/index.ts. */
export const admissionregistrationPrinters: Record<string, Printer> = {
  MutatingWebhookConfiguration: webhookConfigurationPrinter,
  ValidatingWebhookConfiguration: webhookConfigurationPrinter,
  ValidatingAdmissionPolicy: validatingAdmissionPolicyPrinter,
  ValidatingAdmissionPolicyBinding: validatingAdmissionPolicyBindingPrinter,
};
