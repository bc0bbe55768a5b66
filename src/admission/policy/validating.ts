// The ValidatingAdmissionPolicy admission plugin (upstream's
// admission/plugin/policy/validating, dispatcher.go): in the validating phase,
// every policy that has bindings and whose matchConstraints select the request
// is evaluated once per matching binding and per parameter object; a failed
// validation is acted on as the binding's validationActions say (Deny: the
// request fails with the first denial; Warn: a Warning header; Audit: the
// `validation.policy.admission.k8s.io/validation_failure` audit annotation).
// Policies and bindings come from informers (policy/informer.ts), compiled
// once per resourceVersion.

import type { AdmissionAttributes, AdmissionPlugin } from '../../registry/admission.js';
import type { RESTStore } from '../../registry/rest.js';
import { StatusError, type StatusReason } from '../../machinery/errors.js';
import { groupResourceString, type KubeObject } from '../../machinery/meta.js';
import { labelSelectorFromMeta } from '../../machinery/labels.js';
import { jsonToCel } from '../../machinery/cel/schema-types.js';
import { CelAuthorizer, CelResourceCheck, type AuthorizeFunction } from '../../machinery/cel/library-authz.js';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../api/admissionregistration/v1/policy-types.js';
import { StoreInformer } from './informer.js';
import { CompiledPolicy, type Activation } from './compiled.js';
import { matchResources, type MatchEnvironment } from './matching.js';
import { PolicyStatusController, type SchemaSource } from './type-checking.js';

const GROUP = 'admissionregistration.k8s.io';
const VALIDATION_FAILURE_KEY = 'validation.policy.admission.k8s.io/validation_failure';
const MAX_AUDIT_VALUE_LENGTH = 10 * 1024;

/** What the plugin reads of the registry. */
export interface PolicyStores {
  storeFor(group: string, resource: string, version?: string): RESTStore | undefined;
  readonly stores?: readonly RESTStore[];
}

interface Denial {
  policy: string;
  binding?: string;
  message: string;
  reason?: string;
}

const REASON_CODES: Record<string, number> = { Unauthorized: 401, Forbidden: 403, Invalid: 422, RequestEntityTooLarge: 413 };

/** Upstream's IsExemptAdmissionConfigurationResource: admission configuration is never subject to policies. */
function isExempt(a: AdmissionAttributes): boolean {
  return (
    a.resource.group === GROUP &&
    ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations', 'validatingadmissionpolicies', 'validatingadmissionpolicybindings', 'mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'].includes(a.resource.resource)
  );
}

function gvkString(group: string, version: string, kind: string): string {
  return `${group}/${version}, Kind=${kind}`;
}

export class ValidatingAdmissionPolicyPlugin implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionPolicy';
  readonly policies: StoreInformer<ValidatingAdmissionPolicy>;
  readonly bindings: StoreInformer<ValidatingAdmissionPolicyBinding>;
  private compiled = new Map<string, CompiledPolicy>();
  /** Policies with their bindings, rebuilt when either informer changes. */
  private hooks: { policy: CompiledPolicy; bindings: ValidatingAdmissionPolicyBinding[] }[] = [];
  private hooksAt = -1;

  private readonly status: PolicyStatusController;

  /** `authorize`: the server's authorizer for the CEL `authorizer` variable (absent: everything is allowed, as with AlwaysAllow). */
  constructor(
    private readonly lookup: () => PolicyStores,
    private readonly authorize: () => AuthorizeFunction | undefined = () => undefined,
  ) {
    const policyStore = (): RESTStore | undefined => lookup().storeFor(GROUP, 'validatingadmissionpolicies');
    this.status = new PolicyStatusController(policyStore, () => this.schemaSource(), () => this.policies.list());
    this.policies = new StoreInformer(policyStore, () => this.status.kick());
    this.bindings = new StoreInformer(() => lookup().storeFor(GROUP, 'validatingadmissionpolicybindings'));
  }

  /** Schemas for type checking: the registry's stores, and CRDs (read from their store's cache) for custom resources. */
  private schemaSource(): SchemaSource {
    const lookup = this.lookup();
    return {
      stores: lookup.stores ?? [],
      crdSchema: (group, version, plural) => {
        const crd = lookup.storeFor('apiextensions.k8s.io', 'customresourcedefinitions')?.getCached('', `${plural}.${group}`) as
          | { spec?: { versions?: { name: string; schema?: { openAPIV3Schema?: Record<string, unknown> } }[] } }
          | undefined;
        return crd?.spec?.versions?.find((v) => v.name === version)?.schema?.openAPIV3Schema;
      },
    };
  }

  start(): void {
    void this.policies.start().catch(() => {});
    void this.bindings.start().catch(() => {});
  }

  stop(): void {
    this.policies.stop();
    this.bindings.stop();
  }

  private currentHooks(): { policy: CompiledPolicy; bindings: ValidatingAdmissionPolicyBinding[] }[] {
    const at = this.policies.generation() * 1_000_003 + this.bindings.generation();
    if (at === this.hooksAt) return this.hooks;
    const byPolicy = new Map<string, ValidatingAdmissionPolicyBinding[]>();
    for (const b of this.bindings.list()) {
      const name = b.spec?.policyName ?? '';
      let list = byPolicy.get(name);
      if (list === undefined) byPolicy.set(name, (list = []));
      list.push(b);
    }
    const hooks: typeof this.hooks = [];
    const compiled = new Map<string, CompiledPolicy>();
    for (const p of this.policies.list().sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : 1))) {
      const bindings = byPolicy.get(p.metadata.name ?? '');
      const key = `${p.metadata.name}@${p.metadata.resourceVersion}`;
      let c = this.compiled.get(key);
      if (c === undefined) c = new CompiledPolicy(p);
      compiled.set(key, c);
      if (bindings === undefined) continue;
      hooks.push({ policy: c, bindings: bindings.sort((x, y) => (x.metadata.name! < y.metadata.name! ? -1 : 1)) });
    }
    this.compiled = compiled;
    this.hooks = hooks;
    this.hooksAt = at;
    return hooks;
  }

  validate(a: AdmissionAttributes): Promise<void> | undefined {
    if (isExempt(a)) return undefined;
    // Policies and bindings in, and no policy bound: nothing to evaluate, nothing to wait for.
    if (this.policies.synced() && this.bindings.synced() && this.currentHooks().length === 0) return undefined;
    return this.validateBound(a);
  }

  private async validateBound(a: AdmissionAttributes): Promise<void> {
    await Promise.all([this.policies.start(), this.bindings.start()]);
    const hooks = this.currentHooks();
    if (hooks.length === 0) return;

    const lookup = this.lookup();
    let nsObject: KubeObject | null | undefined;
    const namespaceObject = async (): Promise<KubeObject | null> => {
      if (nsObject !== undefined) return nsObject;
      const store = lookup.storeFor('', 'namespaces');
      nsObject = null;
      if (a.namespace !== '' && store !== undefined) {
        nsObject = (store.getCached('', a.namespace) as KubeObject | undefined) ?? null;
        if (nsObject === null) nsObject = await store.get('', a.namespace, {}).catch(() => null);
      }
      return nsObject;
    };
    const env: MatchEnvironment = {
      namespaceLabels: async () => (await namespaceObject())?.metadata.labels,
      servedVersions: (group, resource) =>
        (lookup.stores ?? []).filter((s) => s.type.group === group && s.type.resource === resource).map((s) => s.type.version),
    };

    const denials: Denial[] = [];
    // Each variable is built once per request, and only when some policy reads it.
    const built: Partial<Omit<Activation, 'params'>> = {};
    const activation = async (uses: ReadonlySet<string>): Promise<Omit<Activation, 'params'>> => {
      if (uses.has('object') && built.object === undefined) built.object = a.object !== undefined ? jsonToCel(a.object) : null;
      if (uses.has('oldObject') && built.oldObject === undefined) built.oldObject = a.oldObject !== undefined ? jsonToCel(a.oldObject) : null;
      if (uses.has('request') && built.request === undefined) built.request = jsonToCel(this.request(a));
      if (uses.has('namespaceObject') && built.namespaceObject === undefined) {
        const isNamespace = a.kind.group === '' && a.kind.kind === 'Namespace';
        const ns = isNamespace ? null : await namespaceObject();
        built.namespaceObject = ns !== null ? jsonToCel(namespaceView(ns)) : null;
      }
      if (uses.has('authorizer') && built.authorizer === undefined) built.authorizer = this.celAuthorizer(a);
      return { object: built.object ?? null, oldObject: built.oldObject ?? null, request: built.request ?? null, namespaceObject: built.namespaceObject ?? null, authorizer: built.authorizer ?? null };
    };

    for (const { policy, bindings } of hooks) {
      const spec = policy.policy.spec ?? {};
      if (spec.matchConstraints === undefined || !(await matchResources(spec.matchConstraints, a, env))) continue;
      const configError = (message: string, binding?: string): void => {
        if (policy.failurePolicy === 'Ignore') return;
        denials.push({ policy: policy.name, ...(binding !== undefined ? { binding } : {}), message: binding !== undefined ? `failed to configure binding: ${message}` : `failed to configure policy: ${message}` });
      };
      if (policy.configurationError !== undefined) {
        configError(policy.configurationError);
        continue;
      }
      let paramStore: RESTStore | undefined;
      if (spec.paramKind !== undefined && spec.paramKind !== null) {
        paramStore = this.paramStore(spec.paramKind.apiVersion ?? '', spec.paramKind.kind ?? '');
        if (paramStore === undefined) {
          const [g, v] = (spec.paramKind.apiVersion ?? '').includes('/') ? spec.paramKind.apiVersion!.split('/') : ['', spec.paramKind.apiVersion ?? ''];
          configError(`failed to find resource referenced by paramKind: '${gvkString(g!, v!, spec.paramKind.kind ?? '')}'`);
          continue;
        }
      }
      const annotations = new Map<string, string[]>();
      for (const binding of bindings) {
        const bname = binding.metadata.name ?? '';
        if (binding.spec?.matchResources !== undefined && binding.spec.matchResources !== null && !(await matchResources(binding.spec.matchResources, a, env))) continue;
        let params: unknown[];
        try {
          params = await this.collectParams(policy.policy, binding, paramStore, a.namespace);
        } catch (e) {
          configError((e as Error).message, bname);
          continue;
        }
        const act = await activation(policy.uses);
        for (const param of params) {
          const result = policy.validate({ ...act, params: param === null ? null : jsonToCel(param) });
          for (const [i, d] of result.decisions.entries()) {
            if (d.action !== 'deny') continue;
            for (const action of binding.spec?.validationActions ?? []) {
              if (action === 'Deny') denials.push({ policy: policy.name, binding: bname, message: d.message, ...(d.reason !== undefined ? { reason: d.reason } : {}) });
              else if (action === 'Warn') a.request?.addWarning(`Validation failed for ValidatingAdmissionPolicy '${policy.name}' with binding '${bname}': ${d.message}`);
              else if (action === 'Audit' && a.request !== undefined && !(VALIDATION_FAILURE_KEY in a.request.auditAnnotations)) {
                a.request.auditAnnotations[VALIDATION_FAILURE_KEY] = JSON.stringify([
                  { message: d.message, policy: binding.spec?.policyName ?? '', binding: bname, expressionIndex: i, validationActions: binding.spec?.validationActions ?? [] },
                ]);
              }
            }
          }
          for (const an of result.auditAnnotations) {
            if (an.action === 'publish') {
              const value = an.value!.length > MAX_AUDIT_VALUE_LENGTH ? an.value!.slice(0, MAX_AUDIT_VALUE_LENGTH) : an.value!;
              const list = annotations.get(an.key) ?? [];
              if (!list.includes(value)) list.push(value);
              annotations.set(an.key, list);
            } else if (an.action === 'error') {
              denials.push({ policy: policy.name, binding: bname, message: an.error ?? '' });
            }
          }
        }
      }
      const audit = a.request?.auditAnnotations;
      if (audit !== undefined) {
        for (const [key, values] of annotations) {
          const full = `${policy.name}/${key}`;
          if (!(full in audit)) audit[full] = values.join(', ');
        }
      }
    }

    if (denials.length > 0) {
      const d = denials[0]!;
      const message =
        d.binding !== undefined
          ? `ValidatingAdmissionPolicy '${d.policy}' with binding '${d.binding}' denied request: ${d.message}`
          : `ValidatingAdmissionPolicy '${d.policy}' denied request: ${d.message}`;
      const gr = { group: a.resource.group, resource: a.resource.resource };
      const full = a.name === '' ? `${groupResourceString(gr)} is forbidden: ${message}` : `${groupResourceString(gr)} "${a.name}" is forbidden: ${message}`;
      const reason = d.reason ?? 'Invalid';
      throw new StatusError(REASON_CODES[reason] ?? 422, reason as StatusReason, full, {
        name: a.name,
        ...(a.resource.group !== '' ? { group: a.resource.group } : {}),
        kind: a.resource.resource,
        causes: [{ message }],
      } as never);
    }
  }

  /** The CEL `authorizer` of a request: its user, and the request's resource as `authorizer.requestResource`. */
  private celAuthorizer(a: AdmissionAttributes): CelAuthorizer {
    const authorize = this.authorize() ?? ((): { allowed: boolean; reason: string } => ({ allowed: true, reason: '' }));
    const u = a.userInfo;
    const user = { name: u?.username ?? '', groups: [...(u?.groups ?? [])], ...(u?.uid !== undefined ? { uid: u.uid } : {}), ...(u?.extra !== undefined ? { extra: u.extra } : {}) };
    const authz = new CelAuthorizer(user, authorize);
    const request = new CelResourceCheck(authz, a.resource.group, a.resource.resource, a.subresource, a.namespace, a.name, a.resource.version);
    return new CelAuthorizer(user, authorize, request);
  }

  /** The store of a paramKind (apiVersion + kind), among every served store (custom resources too). */
  private paramStore(apiVersion: string, kind: string): RESTStore | undefined {
    const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
    return (this.lookup().stores ?? []).find((s) => s.type.group === group && s.type.version === version && s.type.kind === kind);
  }

  /** Upstream's CollectParams: the params a binding evaluates with ([null] when the policy takes none). */
  private async collectParams(policy: ValidatingAdmissionPolicy, binding: ValidatingAdmissionPolicyBinding, store: RESTStore | undefined, namespace: string): Promise<unknown[]> {
    const ref = binding.spec?.paramRef;
    if (policy.spec.paramKind === undefined || policy.spec.paramKind === null || ref === undefined || ref === null || store === undefined) return [null];
    const namespaced = store.type.namespaced;
    let ns = '';
    if (namespaced) {
      ns = (ref.namespace ?? '') !== '' ? ref.namespace! : namespace;
      if ((ref.namespace ?? '') === '' && namespace === '') throw new Error('cannot use namespaced paramRef in policy binding that matches cluster-scoped resources');
    } else if ((ref.namespace ?? '') !== '') throw new Error('paramRef.namespace must not be provided for a cluster-scoped `paramKind`');
    const withTypeMeta = (o: KubeObject): KubeObject => ({ ...o, apiVersion: policy.spec.paramKind!.apiVersion!, kind: policy.spec.paramKind!.kind! });
    let params: unknown[];
    if ((ref.name ?? '') !== '') {
      const cached = store.getCached(ns, ref.name!);
      const found = cached ?? (await store.get(ns, ref.name!, {}).catch((e: unknown) => {
        if (e instanceof StatusError && e.code === 404) return undefined;
        throw e;
      }));
      params = found !== undefined ? [withTypeMeta(found)] : [];
    } else if (ref.selector !== undefined && ref.selector !== null) {
      const selector = labelSelectorFromMeta(ref.selector);
      const list = await store.list(ns, { resourceVersion: '0' });
      params = (list.items as KubeObject[]).filter((o) => selector.matches(o.metadata.labels ?? {})).map(withTypeMeta);
    } else throw new Error('one of name or selector must be provided');
    if (params.length === 0 && ref.parameterNotFoundAction === 'Deny') throw new Error('no params found for policy binding with `Deny` parameterNotFoundAction');
    return params;
  }

  /** The admission.k8s.io/v1 AdmissionRequest CEL sees as `request`. */
  private request(a: AdmissionAttributes): Record<string, unknown> {
    const r: Record<string, unknown> = {
      kind: { group: a.kind.group, version: a.kind.version, kind: a.kind.kind },
      resource: { group: a.resource.group, version: a.resource.version, resource: a.resource.resource },
      requestKind: { group: a.kind.group, version: a.kind.version, kind: a.kind.kind },
      requestResource: { group: a.resource.group, version: a.resource.version, resource: a.resource.resource },
      name: a.name,
      namespace: a.namespace,
      operation: a.operation,
      userInfo: a.userInfo !== undefined ? { username: a.userInfo.username, ...(a.userInfo.uid !== undefined ? { uid: a.userInfo.uid } : {}), groups: a.userInfo.groups ?? [], ...(a.userInfo.extra !== undefined ? { extra: a.userInfo.extra } : {}) } : {},
      dryRun: a.dryRun,
    };
    if (a.subresource !== '') {
      r['subResource'] = a.subresource;
      r['requestSubResource'] = a.subresource;
    }
    return r;
  }
}

/** Upstream's CreateNamespaceObject: what `namespaceObject` shows of the namespace. */
function namespaceView(ns: KubeObject): Record<string, unknown> {
  const m = ns.metadata;
  const meta: Record<string, unknown> = { name: m.name };
  for (const k of ['generateName', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers'] as const) {
    if (m[k as keyof typeof m] !== undefined) meta[k] = m[k as keyof typeof m];
  }
  return { metadata: meta, spec: ns['spec'] ?? {}, status: ns['status'] ?? {} };
}
