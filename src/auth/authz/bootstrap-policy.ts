// The bootstrap RBAC policy kube-apiserver 1.32 reconciles on start (upstream
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go): the roles'
// rules as data, with their labels. admin, edit and view carry only their
// aggregation rules; aggregation fills their rules from the
// system:aggregate-to-* roles (and any role a user labels to join them).

import type { ClusterRole, ClusterRoleBinding, PolicyRule } from '../../api/rbac/v1/types.js';
import { deepCopy } from '../../machinery/deep-copy.js';

interface RoleFacts {
  name: string;
  labels: Record<string, string>;
  rules?: PolicyRule[];
  aggregationRule?: ClusterRole['aggregationRule'];
}

const ROLES: RoleFacts[] = [
  {
    "name": "system:service-account-issuer-discovery",
    "labels": { "kubernetes.io/bootstrapping": "rbac-defaults" },
    "rules": [{ "nonResourceURLs": ["/.well-known/openid-configuration", "/.well-known/openid-configuration/", "/openid/v1/jwks", "/openid/v1/jwks/"], "verbs": ["get"] }]
  },
  {
    "name": "cluster-admin",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults"
    },
    "rules": [
      {
        "apiGroups": [
          "*"
        ],
        "resources": [
          "*"
        ],
        "verbs": [
          "*"
        ]
      },
      {
        "nonResourceURLs": [
          "*"
        ],
        "verbs": [
          "*"
        ]
      }
    ]
  },
  {
    "name": "admin",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults"
    },
    "aggregationRule": {
      "clusterRoleSelectors": [
        {
          "matchLabels": {
            "rbac.authorization.k8s.io/aggregate-to-admin": "true"
          }
        }
      ]
    }
  },
  {
    "name": "edit",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults",
      "rbac.authorization.k8s.io/aggregate-to-admin": "true"
    },
    "aggregationRule": {
      "clusterRoleSelectors": [
        {
          "matchLabels": {
            "rbac.authorization.k8s.io/aggregate-to-edit": "true"
          }
        }
      ]
    }
  },
  {
    "name": "view",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults",
      "rbac.authorization.k8s.io/aggregate-to-edit": "true"
    },
    "aggregationRule": {
      "clusterRoleSelectors": [
        {
          "matchLabels": {
            "rbac.authorization.k8s.io/aggregate-to-view": "true"
          }
        }
      ]
    }
  },
  {
    "name": "system:aggregate-to-admin",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults",
      "rbac.authorization.k8s.io/aggregate-to-admin": "true"
    },
    "rules": [
      {
        "apiGroups": [
          "authorization.k8s.io"
        ],
        "resources": [
          "localsubjectaccessreviews"
        ],
        "verbs": [
          "create"
        ]
      },
      {
        "apiGroups": [
          "rbac.authorization.k8s.io"
        ],
        "resources": [
          "rolebindings",
          "roles"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "get",
          "list",
          "patch",
          "update",
          "watch"
        ]
      }
    ]
  },
  {
    "name": "system:aggregate-to-edit",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults",
      "rbac.authorization.k8s.io/aggregate-to-edit": "true"
    },
    "rules": [
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "pods/attach",
          "pods/exec",
          "pods/portforward",
          "pods/proxy",
          "secrets",
          "services/proxy"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "serviceaccounts"
        ],
        "verbs": [
          "impersonate"
        ]
      },
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "pods",
          "pods/attach",
          "pods/exec",
          "pods/portforward",
          "pods/proxy"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "pods/eviction"
        ],
        "verbs": [
          "create"
        ]
      },
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "configmaps",
          "events",
          "persistentvolumeclaims",
          "replicationcontrollers",
          "replicationcontrollers/scale",
          "secrets",
          "serviceaccounts",
          "services",
          "services/proxy"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "serviceaccounts/token"
        ],
        "verbs": [
          "create"
        ]
      },
      {
        "apiGroups": [
          "apps"
        ],
        "resources": [
          "daemonsets",
          "deployments",
          "deployments/rollback",
          "deployments/scale",
          "replicasets",
          "replicasets/scale",
          "statefulsets",
          "statefulsets/scale"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          "autoscaling"
        ],
        "resources": [
          "horizontalpodautoscalers"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          "batch"
        ],
        "resources": [
          "cronjobs",
          "jobs"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          "extensions"
        ],
        "resources": [
          "daemonsets",
          "deployments",
          "deployments/rollback",
          "deployments/scale",
          "ingresses",
          "networkpolicies",
          "replicasets",
          "replicasets/scale",
          "replicationcontrollers/scale"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          "policy"
        ],
        "resources": [
          "poddisruptionbudgets"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          "networking.k8s.io"
        ],
        "resources": [
          "ingresses",
          "networkpolicies"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "patch",
          "update"
        ]
      },
      {
        "apiGroups": [
          "coordination.k8s.io"
        ],
        "resources": [
          "leases"
        ],
        "verbs": [
          "create",
          "delete",
          "deletecollection",
          "get",
          "list",
          "patch",
          "update",
          "watch"
        ]
      }
    ]
  },
  {
    "name": "system:aggregate-to-view",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults",
      "rbac.authorization.k8s.io/aggregate-to-view": "true"
    },
    "rules": [
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "configmaps",
          "endpoints",
          "persistentvolumeclaims",
          "persistentvolumeclaims/status",
          "pods",
          "replicationcontrollers",
          "replicationcontrollers/scale",
          "serviceaccounts",
          "services",
          "services/status"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "bindings",
          "events",
          "limitranges",
          "namespaces/status",
          "pods/log",
          "pods/status",
          "replicationcontrollers/status",
          "resourcequotas",
          "resourcequotas/status"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          ""
        ],
        "resources": [
          "namespaces"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          "discovery.k8s.io"
        ],
        "resources": [
          "endpointslices"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          "apps"
        ],
        "resources": [
          "controllerrevisions",
          "daemonsets",
          "daemonsets/status",
          "deployments",
          "deployments/scale",
          "deployments/status",
          "replicasets",
          "replicasets/scale",
          "replicasets/status",
          "statefulsets",
          "statefulsets/scale",
          "statefulsets/status"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          "autoscaling"
        ],
        "resources": [
          "horizontalpodautoscalers",
          "horizontalpodautoscalers/status"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          "batch"
        ],
        "resources": [
          "cronjobs",
          "cronjobs/status",
          "jobs",
          "jobs/status"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          "extensions"
        ],
        "resources": [
          "daemonsets",
          "daemonsets/status",
          "deployments",
          "deployments/scale",
          "deployments/status",
          "ingresses",
          "ingresses/status",
          "networkpolicies",
          "replicasets",
          "replicasets/scale",
          "replicasets/status",
          "replicationcontrollers/scale"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          "policy"
        ],
        "resources": [
          "poddisruptionbudgets",
          "poddisruptionbudgets/status"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      },
      {
        "apiGroups": [
          "networking.k8s.io"
        ],
        "resources": [
          "ingresses",
          "ingresses/status",
          "networkpolicies"
        ],
        "verbs": [
          "get",
          "list",
          "watch"
        ]
      }
    ]
  },
  {
    "name": "system:basic-user",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults"
    },
    "rules": [
      {
        "apiGroups": [
          "authorization.k8s.io"
        ],
        "resources": [
          "selfsubjectaccessreviews",
          "selfsubjectrulesreviews"
        ],
        "verbs": [
          "create"
        ]
      },
      {
        "apiGroups": [
          "authentication.k8s.io"
        ],
        "resources": [
          "selfsubjectreviews"
        ],
        "verbs": [
          "create"
        ]
      }
    ]
  },
  {
    "name": "system:discovery",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults"
    },
    "rules": [
      {
        "nonResourceURLs": [
          "/api",
          "/api/*",
          "/apis",
          "/apis/*",
          "/healthz",
          "/livez",
          "/openapi",
          "/openapi/*",
          "/readyz",
          "/version",
          "/version/"
        ],
        "verbs": [
          "get"
        ]
      }
    ]
  },
  {
    "name": "system:public-info-viewer",
    "labels": {
      "kubernetes.io/bootstrapping": "rbac-defaults"
    },
    "rules": [
      {
        "nonResourceURLs": [
          "/healthz",
          "/livez",
          "/readyz",
          "/version",
          "/version/"
        ],
        "verbs": [
          "get"
        ]
      }
    ]
  }
];

const BINDINGS: [name: string, groups: string[]][] = [
  ['cluster-admin', ['system:masters']],
  ['system:basic-user', ['system:authenticated']],
  ['system:discovery', ['system:authenticated']],
  ['system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']],
  ['system:service-account-issuer-discovery', ['system:serviceaccounts']],
];

const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' };

const CORE = [''];
const EVENTS_RULE: PolicyRule = { verbs: ['create', 'patch', 'update'], apiGroups: ['', 'events.k8s.io'], resources: ['events'] };

/**
 * kube-controller-manager's own role and the roles of the controllers apiary
 * runs (upstream's bootstrappolicy policy.go and controller_policy.go, same
 * rules): the controller manager's identity lists and watches for the shared
 * informers; each controller writes as its service account
 * system:serviceaccount:kube-system:<name>, bound to system:controller:<name>.
 */
const CONTROLLER_MANAGER_ROLE: RoleFacts = {
  name: 'system:kube-controller-manager',
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  rules: [
    EVENTS_RULE,
    { verbs: ['create'], apiGroups: ['coordination.k8s.io'], resources: ['leases'] },
    { verbs: ['get', 'update'], apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: ['kube-controller-manager'] },
    { verbs: ['create'], apiGroups: CORE, resources: ['secrets', 'serviceaccounts'] },
    { verbs: ['delete'], apiGroups: CORE, resources: ['secrets'] },
    { verbs: ['get'], apiGroups: CORE, resources: ['configmaps', 'namespaces', 'secrets', 'serviceaccounts'] },
    { verbs: ['update'], apiGroups: CORE, resources: ['secrets', 'serviceaccounts'] },
    { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'] },
    { verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'] },
    { verbs: ['list', 'watch'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['create'], apiGroups: CORE, resources: ['serviceaccounts/token'] },
  ],
};

/** The controllers' roles, by service account name in kube-system. */
export const CONTROLLER_ROLES: Record<string, PolicyRule[]> = {
  'namespace-controller': [
    { verbs: ['delete', 'get', 'list', 'watch'], apiGroups: CORE, resources: ['namespaces'] },
    { verbs: ['update'], apiGroups: CORE, resources: ['namespaces/finalize', 'namespaces/status'] },
    { verbs: ['delete', 'deletecollection', 'get', 'list', 'watch'], apiGroups: ['*'], resources: ['*'] },
  ],
  'resourcequota-controller': [
    { verbs: ['list', 'watch'], apiGroups: ['*'], resources: ['*'] },
    { verbs: ['update'], apiGroups: CORE, resources: ['resourcequotas/status'] },
    EVENTS_RULE,
  ],
  'generic-garbage-collector': [{ verbs: ['delete', 'get', 'list', 'patch', 'update', 'watch'], apiGroups: ['*'], resources: ['*'] }, EVENTS_RULE],
  'pvc-protection-controller': [
    { verbs: ['get', 'list', 'update', 'watch'], apiGroups: CORE, resources: ['persistentvolumeclaims'] },
    { verbs: ['get', 'list', 'watch'], apiGroups: CORE, resources: ['pods'] },
    EVENTS_RULE,
  ],
  'service-account-controller': [{ verbs: ['create'], apiGroups: CORE, resources: ['serviceaccounts'] }, EVENTS_RULE],
  'root-ca-cert-publisher': [{ verbs: ['create', 'update'], apiGroups: CORE, resources: ['configmaps'] }, EVENTS_RULE],
};

/** The user a controller acts as. */
export function controllerUser(name: string): string {
  return `system:serviceaccount:kube-system:${name}`;
}

function allRoles(): RoleFacts[] {
  const controllers = Object.entries(CONTROLLER_ROLES).map(([name, rules]): RoleFacts => ({
    name: `system:controller:${name}`,
    labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
    rules,
  }));
  return [...ROLES, CONTROLLER_MANAGER_ROLE, ...controllers];
}

export function bootstrapClusterRoles(): ClusterRole[] {
  return allRoles().map((r) => {
    const role: ClusterRole = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: r.name, labels: { ...r.labels }, annotations: { ...AUTOUPDATE } },
    };
    if (r.aggregationRule !== undefined) role.aggregationRule = deepCopy(r.aggregationRule);
    else role.rules = deepCopy(r.rules ?? []);
    return role;
  });
}

export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  const binding = (name: string, subjects: ClusterRoleBinding['subjects']): ClusterRoleBinding => ({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { ...AUTOUPDATE } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects,
  });
  return [
    ...BINDINGS.map(([name, groups]) => binding(name, groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })))),
    binding('system:kube-controller-manager', [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'system:kube-controller-manager' }]),
    ...Object.keys(CONTROLLER_ROLES).map((name) => binding(`system:controller:${name}`, [{ kind: 'ServiceAccount', name, namespace: 'kube-system' }])),
  ];
}
