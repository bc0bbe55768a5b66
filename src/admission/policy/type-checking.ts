// Type checking of ValidatingAdmissionPolicies (upstream validating/typechecking.go
// and the status controller): each validation's expression and messageExpression
// is compiled again with `object`/`oldObject` typed by the schema of every kind
// the policy's resourceRules name (no wildcards); what fails becomes an
// expressionWarning in status.typeChecking, prefixed by the kind ("/v1,
// Kind=ConfigMap: ERROR: …"). The controller writes status.observedGeneration
// and typeChecking whenever a policy's generation moves.

import { PolicyCompiler } from '../../api/admissionregistration/v1/policy-cel.js';
import type { ExpressionWarning, ValidatingAdmissionPolicy } from '../../api/admissionregistration/v1/policy-types.js';
import { definitionFor, fieldsOf, refOf, type DefinitionSchema, type ElementSchema } from '../../api/schema/index.js';
import { celEquals, celTypeName, objectTypes, schemaDeclType, type JSONSchema } from '../../machinery/cel/schema-types.js';
import type { RESTStore } from '../../registry/rest.js';
import { deepCopy } from '../../machinery/deep-copy.js';

const ANY: JSONSchema = { 'x-kubernetes-int-or-string': true };

function definitionSchema(def: DefinitionSchema, stack: Set<string>): JSONSchema {
  switch (def.special) {
    case 'quantity':
    case 'intOrString':
    case 'rawExtension':
    case 'json':
    case 'schemaOrArray':
    case 'schemaOrBool':
    case 'schemaOrStringArray':
      return ANY;
    case 'time':
    case 'microTime':
      return { type: 'string', format: 'date-time' };
    case 'duration':
      return { type: 'string' };
    case 'fieldsV1':
      return { type: 'object', additionalProperties: ANY };
  }
  if (def.type !== 'object') return { type: def.type === 'any' ? 'object' : def.type };
  if (stack.has(def.name)) return ANY;
  stack.add(def.name);
  const properties: Record<string, JSONSchema> = {};
  for (const f of fieldsOf(def)) properties[f.name] = elementSchema(f, stack);
  stack.delete(def.name);
  return { type: 'object', properties };
}

function elementSchema(e: ElementSchema, stack: Set<string>): JSONSchema {
  const ref = refOf(e);
  if (ref !== undefined) return definitionSchema(ref, stack);
  switch (e.type) {
    case 'array':
      return { type: 'array', items: e.items !== undefined ? elementSchema(e.items, stack) : ANY };
    case 'map':
      return { type: 'object', additionalProperties: e.values !== undefined ? elementSchema(e.values, stack) : ANY };
    case 'any':
      return ANY;
    case 'object':
      return { type: 'object', additionalProperties: ANY };
    default:
      return e.format !== undefined ? { type: e.type, format: e.format } : { type: e.type };
  }
}

/** Where the schemas come from: the served stores, and the CRDs for custom resources. */
export interface SchemaSource {
  stores: readonly RESTStore[];
  /** A CRD version's openAPIV3Schema, by group, version and plural. */
  crdSchema(group: string, version: string, plural: string): JSONSchema | undefined;
}

/** The JSON schema of a served kind's objects: the registry's for built-in kinds, the CRD's for custom resources. */
function schemaOf(src: SchemaSource, store: RESTStore): JSONSchema | undefined {
  const { group, version, kind, resource } = store.type;
  if (store.unstructured === true) return src.crdSchema(group, version, resource);
  const def = definitionFor(group, version, kind);
  return def === undefined ? undefined : definitionSchema(def, new Set());
}

function declOf(src: SchemaSource, store: RESTStore, prefix: string): { name: string; types: ReturnType<typeof objectTypes> } | undefined {
  const schema = schemaOf(src, store);
  if (schema === undefined) return undefined;
  const { group, version, kind } = store.type;
  const t = schemaDeclType(deepCopy(schema), true, `${prefix}${group === '' ? 'core' : group}.${version}.${kind}`);
  return t === undefined ? undefined : { name: celTypeName(t), types: objectTypes(t) };
}

/** The type of `params`: the paramKind's schema, as upstream types it. */
function paramsType(policy: ValidatingAdmissionPolicy, src: SchemaSource): ReturnType<typeof declOf> {
  const pk = policy.spec?.paramKind;
  if (pk === undefined || pk === null) return undefined;
  const apiVersion = pk.apiVersion ?? '';
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  const store = src.stores.find((s) => s.type.group === group && s.type.version === version && s.type.kind === pk.kind);
  return store === undefined ? undefined : declOf(src, store, 'params.');
}

interface TypedKind {
  gvk: string;
  compiler: () => PolicyCompiler;
}

/** The kinds a policy's rules name, each with a compiler typing object/oldObject by its schema. */
function typedKinds(policy: ValidatingAdmissionPolicy, src: SchemaSource): TypedKind[] {
  const out: TypedKind[] = [];
  const seen = new Set<string>();
  for (const r of policy.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = r.apiGroups ?? [];
    const versions = r.apiVersions ?? [];
    const resources = r.resources ?? [];
    if (groups.includes('*') || versions.includes('*') || resources.some((x) => x.split('/')[0] === '*')) return [];
    for (const g of groups) {
      for (const v of versions) {
        for (const res of resources) {
          const resource = res.split('/')[0]!;
          const store = src.stores.find((s) => s.type.group === g && s.type.version === v && s.type.resource === resource);
          if (store === undefined || schemaOf(src, store) === undefined) continue;
          const gvk = `${g}/${v}, Kind=${store.type.kind}`;
          if (seen.has(gvk)) continue;
          seen.add(gvk);
          out.push({
            gvk,
            compiler: () => {
              const params = paramsType(policy, src);
              const t = declOf(src, store, '');
              return new PolicyCompiler({
                hasParams: policy.spec.paramKind != null,
                ...(params !== undefined ? { paramsType: params } : {}),
                ...(t !== undefined ? { objectType: { ...t, equals: celEquals } } : {}),
              });
            },
          });
        }
      }
    }
  }
  return out;
}

/** status.typeChecking.expressionWarnings of a policy. */
export function typeCheckPolicy(policy: ValidatingAdmissionPolicy, src: SchemaSource): ExpressionWarning[] {
  const kinds = typedKinds(policy, src);
  if (kinds.length === 0) return [];
  const compilers = kinds.map((k) => {
    const c = k.compiler();
    for (const v of policy.spec.variables ?? []) c.compileVariable(v.name, v.expression);
    return { gvk: k.gvk, c };
  });
  const check = (expr: string, message = false): string => {
    const parts: string[] = [];
    for (const { gvk, c } of compilers) {
      const r = message ? c.compileMessage(expr) : c.compile(expr);
      if (r.error !== undefined) parts.push(`${gvk}: ${r.error.message}\n`);
    }
    return parts.join('\n');
  };
  const warnings: ExpressionWarning[] = [];
  for (const [i, v] of (policy.spec.validations ?? []).entries()) {
    const w = check(v.expression);
    if (w !== '') warnings.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    if ((v.messageExpression ?? '') === '') continue;
    const m = check(v.messageExpression!, true);
    if (m !== '') warnings.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  }
  return warnings;
}

/** Writes status (observedGeneration, typeChecking) of every policy whose generation it has not seen yet. */
export class PolicyStatusController {
  private running = false;
  private again = false;

  constructor(
    private readonly store: () => RESTStore | undefined,
    private readonly schemas: () => SchemaSource,
    private readonly policies: () => ValidatingAdmissionPolicy[],
  ) {}

  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.run().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  private async run(): Promise<void> {
    const store = this.store();
    if (store === undefined) return;
    for (const p of this.policies()) {
      const generation = p.metadata.generation ?? 0;
      if (p.status?.observedGeneration === generation) continue;
      const warnings = typeCheckPolicy(p, this.schemas());
      const body = deepCopy(p) as ValidatingAdmissionPolicy;
      body.apiVersion = 'admissionregistration.k8s.io/v1';
      body.kind = 'ValidatingAdmissionPolicy';
      body.status = { ...(body.status ?? {}), observedGeneration: generation, typeChecking: warnings.length > 0 ? { expressionWarnings: warnings } : {} };
      try {
        await store.update('', p.metadata.name ?? '', body, { subresource: 'status', fieldManager: 'validatingadmissionpolicy-status' } as never);
      } catch {
        // a conflict or a deleted policy: the informer brings the next version
      }
    }
  }
}
