// CustomResourceDefinitions: creation (the status a new CRD starts with),
// upstream's validation messages for bad CRDs, and the first DELETE (which
// marks the CRD with the cleanup finalizer and Terminating instead of removing
// it), and custom resources of an established CRD (schema validation,
// defaulting, pruning, status and scale subresources, kind checks, Table).
// CRDs are cluster-scoped: each is named after the case's namespace so runs do
// not collide, and the case deletes it. Checked by hand against
// kube-apiserver 1.32.4 (the answers matched apart from generated values).

import type { DiffCase, DiffRequest } from '../case.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function widgets(mutate: (crd: any) => void = () => {}): unknown { // eslint-disable-line @typescript-eslint/no-explicit-any -- a CRD body built field by field
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.{ns}.example.com' },
    spec: {
      group: '{ns}.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } } } },
        },
      ],
    },
  };
  mutate(crd);
  return crd;
}

/** A CRD with unknown fields at several depths (a validation rule with one when `withRule`). */
function typos(withRule: boolean): unknown {
  return widgets((c) => {
    c.spec.vesions = [];
    c.spec.names.bogus = 1;
    c.spec.versions[0].x = 1;
    const schema = c.spec.versions[0].schema.openAPIV3Schema;
    schema.foo = 1;
    schema.properties.spec.bar = 2;
    if (withRule) schema.properties.spec['x-kubernetes-validations'] = [{ rule: 'true', zz: 1 }];
  });
}

function invalid(title: string, mutate: (crd: any) => void): DiffRequest { // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  return { title, method: 'POST', path: CRDS, body: widgets(mutate) };
}

export const cases: DiffCase[] = [
  {
    name: 'crd: invalid CustomResourceDefinitions are 422 with upstream paths and messages',
    steps: [
      invalid('name must be plural.group', (c) => (c.metadata.name = 'foo.{ns}.example.com')),
      invalid('a property without a type', (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.b = {})),
      // (Two storage versions are refused too, but upstream prints the versions with Go's %#v: not comparable.)
      invalid('bad scope and group', (c) => Object.assign(c.spec, { scope: 'Foo', group: 'nodot' })),
      invalid('properties with additionalProperties', (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.additionalProperties = { type: 'string' })),
      invalid('metadata beyond name', (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.metadata = { type: 'object', properties: { labels: { type: 'object' } } })),
      invalid('deprecationWarning on a current version', (c) => (c.spec.versions[0].deprecationWarning = 'x')),
      invalid('list-type map without keys', (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.l = { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object', properties: { k: { type: 'string' } } } })),
      invalid('webhook conversion without its settings', (c) => (c.spec.conversion = { strategy: 'Webhook' })),
      invalid('a printer column of an unknown type', (c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 'X', type: 'foo', jsonPath: 'spec.a' }])),
      invalid('kind equal to listKind, a bad short name', (c) => Object.assign(c.spec.names, { listKind: 'Widget', shortNames: ['Bad_Name'] })),
      invalid('a root that is not an object', (c) => (c.spec.versions[0].schema.openAPIV3Schema.type = 'string')),
      invalid('no schema', (c) => delete c.spec.versions[0].schema.openAPIV3Schema),
      invalid('scale paths', (c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: 'spec.r', statusReplicasPath: '.spec.r' } })),
      invalid('rules inside allOf, anyOf, oneOf and not', (c) =>
        Object.assign(c.spec.versions[0].schema.openAPIV3Schema.properties.spec, {
          allOf: [{ 'x-kubernetes-validations': [{ rule: "self.a == 'x'" }] }],
          anyOf: [{ properties: { a: { 'x-kubernetes-validations': [{ rule: 'self.size() > 1' }] } } }],
          oneOf: [{ 'x-kubernetes-validations': [{ rule: 'has(self.a)' }] }],
          not: { 'x-kubernetes-validations': [{ rule: "self.a == 'y'" }] },
        }),
      ),
      invalid('a pattern Go refuses (lookahead)', (c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.a.pattern = '^(?!x)a')),
      invalid('rules with patterns Go refuses: matches (checker), find and findAll (program)', (c) => {
        const spec = c.spec.versions[0].schema.openAPIV3Schema.properties.spec;
        spec.properties.a.maxLength = 10;
        spec['x-kubernetes-validations'] = [
          { rule: "self.a.matches('(?=a)b')" },
          { rule: "self.a.matches('(a)\\\\1')" },
          { rule: "self.a.find('(?<=a)b') == ''" },
          { rule: "self.a.findAll('[[:alpha:]').size() == 0" },
          { rule: "self.a.matches('^a\\\\z') && self.a.matches('(?P<n>a)\\\\pL') && self.a.matches('(?i)A')" },
        ];
      }),
      { title: 'unknown fields, Strict', method: 'POST', path: `${CRDS}?fieldValidation=Strict&dryRun=All`, body: typos(true) },
      { title: 'unknown fields, Warn: dropped with a Warning each', method: 'POST', path: `${CRDS}?dryRun=All`, body: typos(false) },
    ],
  },
  {
    name: 'crd: create: the status a new CRD starts with',
    steps: [{ title: 'create: status starts empty with storedVersions', method: 'POST', path: CRDS, body: widgets() }],
    cleanup: [{ method: 'DELETE', path: `${CRDS}/widgets.{ns}.example.com` }],
  },
  {
    name: 'crd: the first DELETE of an established CRD marks it with the cleanup finalizer',
    setup: [
      { method: 'POST', path: CRDS, body: widgets() },
      { method: 'GET', path: `${CRDS}/widgets.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
    ],
    steps: [{ title: 'delete: Terminating, finalizer added', method: 'DELETE', path: `${CRDS}/widgets.{ns}.example.com`, mask: ['"lastTransitionTime":"[^"]*"'] }],
  },
];

const crontabs = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.{ns}.example.com' },
  spec: {
    group: '{ns}.example.com',
    scope: 'Namespaced',
    names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                required: ['cronSpec'],
                properties: {
                  cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
                  image: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                },
              },
              status: { type: 'object', properties: { replicas: { type: 'integer' } } },
            },
          },
        },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        additionalPrinterColumns: [
          { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
        ],
      },
    ],
  },
};

const CT = '/apis/{ns}.example.com/v1/namespaces/{ns}/crontabs';
const ct = (name: string, spec: unknown, extra: Record<string, unknown> = {}): unknown => ({ apiVersion: '{ns}.example.com/v1', kind: 'CronTab', metadata: { name }, spec, ...extra });

cases.push({
  name: 'crd: custom resources of an established CRD',
  setup: [
    { method: 'POST', path: CRDS, body: crontabs },
    { method: 'GET', path: `${CRDS}/crontabs.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
  ],
  steps: [
    { title: 'create: the schema default fills replicas, status is dropped', method: 'POST', path: CT, body: ct('a', { cronSpec: '* * * * */5' }, { status: { replicas: 3 } }) },
    { title: 'get', method: 'GET', path: `${CT}/a` },
    // One type error per step: upstream reports several in Go's random map order.
    { title: 'a type error', method: 'POST', path: CT, body: ct('b', { cronSpec: 1 }) },
    { title: 'a type error and the scale accessor error', method: 'POST', path: CT, body: ct('b', { cronSpec: '* * * * *', replicas: 'x' }) },
    { title: 'minimum and required', method: 'POST', path: CT, body: ct('b', { replicas: 0 }) },
    { title: 'a kind that does not match', method: 'POST', path: CT, body: { ...(ct('b', { cronSpec: '* * * * *' }) as object), kind: 'Other' } },
    { title: 'Strict: unknown fields', method: 'POST', path: `${CT}?fieldValidation=Strict`, body: ct('b', { cronSpec: '* * * * *', zzz: 1 }, { extra: 3 }) },
    { title: 'Warn: unknown fields pruned with a warning', method: 'POST', path: CT, body: ct('c', { cronSpec: '* * * * *', zzz: 1 }) },
    { title: 'status subresource: only status changes', method: 'PATCH', path: `${CT}/a/status`, body: { spec: { cronSpec: '1 * * * *' }, status: { replicas: 2 } }, headers: { 'content-type': 'application/merge-patch+json' } },
    { title: 'a spec patch bumps the generation, keeps status', method: 'PATCH', path: `${CT}/a`, body: { spec: { image: 'x' }, status: { replicas: 9 } }, headers: { 'content-type': 'application/merge-patch+json' } },
    { title: 'a patch in a media type patches do not take', method: 'PATCH', path: `${CT}/a`, body: { spec: { image: 'y' } }, headers: { 'content-type': 'application/json' } },
    { title: 'a strategic merge patch, which custom resources do not take', method: 'PATCH', path: `${CT}/a`, body: { spec: { image: 'y' } }, headers: { 'content-type': 'application/strategic-merge-patch+json' } },
    { title: 'scale: read', method: 'GET', path: `${CT}/a/scale` },
    { title: 'scale: patch replicas', method: 'PATCH', path: `${CT}/a/scale`, body: { spec: { replicas: 4 } }, headers: { 'content-type': 'application/merge-patch+json' } },
    { title: 'list', method: 'GET', path: CT },
    { title: 'Table with the printer columns', method: 'GET', path: CT, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } },
    { title: 'an unserved version', method: 'GET', path: '/apis/{ns}.example.com/v2/namespaces/{ns}/crontabs' },
    { title: 'delete', method: 'DELETE', path: `${CT}/c` },
  ],
  cleanup: [{ method: 'DELETE', path: `${CRDS}/crontabs.{ns}.example.com` }],
});

const things = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'things.{ns}.example.com' },
  spec: {
    group: '{ns}.example.com',
    scope: 'Namespaced',
    names: { plural: 'things', singular: 'thing', kind: 'Thing', categories: ['all'] },
    versions: [
      { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      { name: 'v2alpha1', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    ],
  },
};

cases.push({
  name: 'crd: several versions, conversion None, deprecation warnings, discovery of the group',
  setup: [
    { method: 'POST', path: CRDS, body: things },
    { method: 'GET', path: `${CRDS}/things.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
  ],
  steps: [
    { title: 'create through the deprecated version: a Warning', method: 'POST', path: '/apis/{ns}.example.com/v1beta1/namespaces/{ns}/things', body: { apiVersion: '{ns}.example.com/v1beta1', kind: 'Thing', metadata: { name: 't' }, data: { x: 1 } } },
    { title: 'read through the storage version: apiVersion rewritten', method: 'GET', path: '/apis/{ns}.example.com/v1/namespaces/{ns}/things/t' },
    { title: 'list through the deprecated version', method: 'GET', path: '/apis/{ns}.example.com/v1beta1/namespaces/{ns}/things' },
    { title: 'an unserved version', method: 'GET', path: '/apis/{ns}.example.com/v2alpha1/namespaces/{ns}/things' },
    { title: 'the group: versions newest first, the preferred one', method: 'GET', path: '/apis/{ns}.example.com' },
    { title: 'the resource list: verbs in upstream order, categories', method: 'GET', path: '/apis/{ns}.example.com/v1' },
    { title: 'a body of the other served version on this endpoint', method: 'POST', path: '/apis/{ns}.example.com/v1/namespaces/{ns}/things', body: { apiVersion: '{ns}.example.com/v1beta1', kind: 'Thing', metadata: { name: 'u' } } },
  ],
  cleanup: [{ method: 'DELETE', path: `${CRDS}/things.{ns}.example.com` }],
});

const embs = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'embs.{ns}.example.com' },
  spec: {
    group: '{ns}.example.com',
    scope: 'Cluster',
    names: { plural: 'embs', singular: 'emb', kind: 'Emb' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
              spec: { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } },
            },
          },
        },
      },
    ],
  },
};

cases.push({
  name: 'crd: metadata.name restricted by the schema, embedded resources',
  setup: [
    { method: 'POST', path: CRDS, body: embs },
    { method: 'GET', path: `${CRDS}/embs.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
  ],
  steps: [
    {
      title: 'a name too long for the schema, an embedded resource without apiVersion and with a bad kind',
      method: 'POST',
      path: '/apis/{ns}.example.com/v1/embs',
      body: { apiVersion: '{ns}.example.com/v1', kind: 'Emb', metadata: { name: 'toolongname' }, spec: { template: { kind: 'Bad_Kind', metadata: { name: 'x' } } } },
    },
    {
      title: 'a valid embedded resource',
      method: 'POST',
      path: '/apis/{ns}.example.com/v1/embs',
      body: { apiVersion: '{ns}.example.com/v1', kind: 'Emb', metadata: { name: 'ok' }, spec: { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } } } },
    },
  ],
  cleanup: [
    { method: 'DELETE', path: '/apis/{ns}.example.com/v1/embs/ok' },
    { method: 'DELETE', path: `${CRDS}/embs.{ns}.example.com` },
  ],
});

const regexes = widgets((c) => {
  c.metadata.name = 'regexes.{ns}.example.com';
  c.spec.names = { plural: 'regexes', singular: 'regex', kind: 'Regex' };
  const spec = c.spec.versions[0].schema.openAPIV3Schema.properties.spec;
  spec.properties = {
    a: { type: 'string', maxLength: 20, pattern: '^[^\\s]*\\z' },
    b: { type: 'string', maxLength: 20 },
  };
  spec['x-kubernetes-validations'] = [
    { rule: "!has(self.b) || self.b.matches('^a.b$')", message: 'b: a, one character, b' },
    { rule: "!has(self.b) || self.b.findAll('a*').size() <= 2", message: 'b: at most two runs of a' },
  ];
});
const RX = '/apis/{ns}.example.com/v1/namespaces/{ns}/regexes';
const rx = (name: string, spec: unknown): unknown => ({ apiVersion: '{ns}.example.com/v1', kind: 'Regex', metadata: { name }, spec });

cases.push({
  name: "crd: schema patterns and CEL regexes run with Go's RE2 semantics",
  setup: [
    { method: 'POST', path: CRDS, body: regexes },
    { method: 'GET', path: `${CRDS}/regexes.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
  ],
  steps: [
    // Go's '.' matches U+2028 and '\s' is ASCII only; JavaScript's differ on both
    { title: "'.' matches U+2028, NBSP is no \\s", method: 'POST', path: `${RX}?dryRun=All`, body: rx('a', { a: 'x\u00a0y', b: 'a\u2028b' }) },
    { title: 'a space fails the pattern, a newline fails the rule', method: 'POST', path: `${RX}?dryRun=All`, body: rx('b', { a: 'x y', b: 'a\nb' }) },
    // 'aaa' has one match of a* for Go (no empty match after it), two for JavaScript
    { title: "findAll drops an empty match that abuts the previous one", method: 'POST', path: `${RX}?dryRun=All`, body: rx('c', { b: 'aab' }) },
    { title: 'three runs', method: 'POST', path: `${RX}?dryRun=All`, body: rx('d', { b: 'acaca' }) },
    // a type error blocks the rules (one error says so); a failed pattern did not (above).
    // (One schema error per step: upstream reports several in Go's random map order.)
    { title: 'a type error: the rules do not run', method: 'POST', path: `${RX}?dryRun=All`, body: rx('e', { b: 7 }) },
    { title: 'too long: the rules do not run', method: 'POST', path: `${RX}?dryRun=All`, body: rx('e', { b: 'a'.repeat(21) }) },
  ],
  cleanup: [{ method: 'DELETE', path: `${CRDS}/regexes.{ns}.example.com` }],
});

/** A CRD (dry run) whose spec has a list `l` of maxItems `maxItems` (none when undefined) of `items`, and `rules` on spec. */
function costly(rules: string[], items: unknown, maxItems: number | undefined): unknown {
  return widgets((c) => {
    const spec = c.spec.versions[0].schema.openAPIV3Schema.properties.spec;
    spec.properties.l = { type: 'array', items, ...(maxItems === undefined ? {} : { maxItems }) };
    spec['x-kubernetes-validations'] = rules.map((rule) => ({ rule }));
  });
}
const CRDS_DRY = `${CRDS}?dryRun=All`;
const str = (maxLength?: number): unknown => ({ type: 'string', ...(maxLength === undefined ? {} : { maxLength }) });

cases.push({
  name: 'crd: estimated CEL cost: unbounded lists refused, maxItems/maxLength bound them, the boundary to the unit',
  steps: [
    { title: 'a rule over an unbounded list of unbounded strings', method: 'POST', path: CRDS_DRY, body: costly(["self.l.all(x, x.matches('^[a-z]+$'))"], str(), undefined) },
    { title: 'maxLength alone', method: 'POST', path: CRDS_DRY, body: costly(["self.l.all(x, x.matches('^[a-z]+$'))"], str(64), undefined) },
    { title: 'maxItems and maxLength: accepted', method: 'POST', path: CRDS_DRY, body: costly(["self.l.all(x, x.matches('^[a-z]+$'))"], str(64), 1000) },
    { title: 'a quadratic rule just over the limit', method: 'POST', path: CRDS_DRY, body: costly(['self.l.all(x, self.l.exists(y, y == x))'], str(10), 1000) },
    { title: 'the same rule just under it', method: 'POST', path: CRDS_DRY, body: costly(['self.l.all(x, self.l.exists(y, y == x))'], str(10), 999) },
    { title: 'ip parsing costs a traversal of the string', method: 'POST', path: CRDS_DRY, body: costly(['self.l.all(x, isIP(x))'], str(40), 625000) },
    { title: 'a named format validation', method: 'POST', path: CRDS_DRY, body: costly(['self.l.all(x, format.dns1123Label().validate(x).hasValue())'], str(40), 24131) },
    { title: 'presence tests and integer comparisons', method: 'POST', path: CRDS_DRY, body: costly(['self.l.all(x, has(x.n) && x.v > 1)'], { type: 'object', properties: { n: str(20), v: { type: 'integer' } } }, 1785714) },
    { title: 'a rule on items of an unbounded list', method: 'POST', path: CRDS_DRY, body: costly([], { type: 'object', properties: { n: str() }, 'x-kubernetes-validations': [{ rule: "self.n.matches('^a')" }] }, undefined) },
    {
      title: 'the total for the schema over its budget names the expensive rules',
      method: 'POST',
      path: CRDS_DRY,
      body: costly(['self.l.all(x, self.l.exists(y, y == x))', "self.l.all(x, self.l.all(y, x != y || x == 'a'))", 'self.l.all(x, x.size() < 5)'], str(10), 900),
    },
  ],
});

const quadratic = costly(['self.l.all(x, self.l.all(y, x != y || x == y))'], { type: 'integer' }, 700) as { metadata: { name: string }; spec: { names: unknown } };
quadratic.metadata.name = 'quadratics.{ns}.example.com';
quadratic.spec.names = { plural: 'quadratics', singular: 'quadratic', kind: 'Quadratic' };
const QD = '/apis/{ns}.example.com/v1/namespaces/{ns}/quadratics';
const qd = (name: string, n: number): unknown => ({ apiVersion: '{ns}.example.com/v1', kind: 'Quadratic', metadata: { name }, spec: { l: Array.from({ length: n }, (_, i) => i + 1) } });

cases.push({
  name: 'crd: runtime CEL cost: a rule over its per-call limit stops validation',
  setup: [
    { method: 'POST', path: CRDS, body: quadratic },
    { method: 'GET', path: `${CRDS}/quadratics.{ns}.example.com`, until: { path: 'status.conditions.1.status', equals: 'True' } },
  ],
  steps: [
    { title: 'a small list: accepted', method: 'POST', path: `${QD}?dryRun=All`, body: qd('a', 50) },
    // cel-go's units: 407 items cost just under the per-call limit, 408 just over
    { title: 'the longest list under the per-call limit', method: 'POST', path: `${QD}?dryRun=All`, body: qd('b', 407) },
    { title: 'one item more: over the per-call limit', method: 'POST', path: `${QD}?dryRun=All`, body: qd('c', 408) },
    { title: 'a large list', method: 'POST', path: `${QD}?dryRun=All`, body: qd('d', 700) },
  ],
  cleanup: [{ method: 'DELETE', path: `${CRDS}/quadratics.{ns}.example.com` }],
});
