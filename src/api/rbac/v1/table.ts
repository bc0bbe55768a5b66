// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// rbac.authorization.k8s.io/v1 RoleBindings and ClusterRoleBindings (roles use
// the default table).
import { AGE_COLUMN, column, NAME_COLUMN, type Printer } from '../../tables/printer.js';
import { at, type Obj, str } from '../../tables/fields.js';
import { timeSince } from '../../tables/duration.js';

function subjects(o: Obj): [string, string, string] {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  const list = at(o, 'subjects');
  for (const s of Array.isArray(list) ? list : []) {
    const subject = (s ?? {}) as Obj;
    const name = str(subject['name']);
    if (subject['kind'] === 'User') users.push(name);
    else if (subject['kind'] === 'Group') groups.push(name);
    else if (subject['kind'] === 'ServiceAccount') serviceAccounts.push(`${str(subject['namespace'])}/${name}`);
  }
  return [users.join(', '), groups.join(', '), serviceAccounts.join(', ')];
}

export const roleBindingPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Role', 'string', 'The role the binding grants.'),
    AGE_COLUMN,
    column('Users', 'string', 'The users bound.', { priority: 1 }),
    column('Groups', 'string', 'The groups bound.', { priority: 1 }),
    column('ServiceAccounts', 'string', 'The service accounts bound.', { priority: 1 }),
  ],
  print: (o, now) => ({
    cells: [
      str(at(o, 'metadata', 'name')),
      `${str(at(o, 'roleRef', 'kind'))}/${str(at(o, 'roleRef', 'name'))}`,
      timeSince(at(o, 'metadata', 'creationTimestamp'), now),
      ...subjects(o),
    ],
  }),
};

/** The printers by kind, for api/tables/index.ts. */
export const rbacPrinters: Record<string, Printer> = {
  RoleBinding: roleBindingPrinter,
  ClusterRoleBinding: roleBindingPrinter,
};
