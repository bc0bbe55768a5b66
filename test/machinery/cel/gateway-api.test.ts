// Real-world rules: the Gateway API's CRDs (fixtures/README.md). They install on kube-apiserver
// 1.32, so every rule must compile here too; the HTTPRoute answers below are kube-apiserver's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { compileValidationRules } from '../../../src/machinery/cel/index.js';

// plain JSON schemas and objects, walked by key: `any` keeps the walk short
type Schema = Record<string, any>;

const crd = (name: string): Schema => parse(readFileSync(new URL(`./fixtures/gateway-api-v1.2.1-${name}.yaml`, import.meta.url), 'utf8'));

test('every version of the Gateway API CRDs compiles without errors', () => {
  for (const name of ['gateways', 'httproutes', 'grpcroutes']) {
    const versions = crd(name).spec.versions as Schema[];
    versions.forEach((v, i) => {
      const { rules, errors } = compileValidationRules(v.schema.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`);
      assert.deepEqual(errors.map(String), [], `${name} ${v.name}`);
      assert.ok(rules, `${name} ${v.name}`);
    });
  }
});

/** The schema defaults the API server applies before validation (what kube-apiserver validated). */
function withDefaults(v: unknown, s: Schema | undefined): unknown {
  if (!s || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return s.items ? v.map((x) => withDefaults(x, s.items)) : v;
  const out: Schema = { ...v };
  for (const [k, ps] of Object.entries((s.properties ?? {}) as Schema)) {
    if (out[k] === undefined && ps.default !== undefined) out[k] = structuredClone(ps.default);
    if (out[k] !== undefined) out[k] = withDefaults(out[k], ps);
  }
  return out;
}

test('HTTPRoute objects: the rules answer as kube-apiserver did', () => {
  const schema = crd('httproutes').spec.versions[0].schema.openAPIV3Schema as Schema;
  const { rules } = compileValidationRules(schema, 'openAPIV3Schema');
  const check = (spec: unknown) =>
    rules!.validate(withDefaults({ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'n' }, spec }, schema), undefined).map(String);
  const cases: [string, unknown, string[]][] = [
    ['a valid route', { parentRefs: [{ name: 'gw' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/a' } }], backendRefs: [{ name: 'svc', port: 80 }] }] }, []],
    ['a relative path with //', { parentRefs: [{ name: 'gw' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: 'a//b' } }] }] }, [
      "spec.rules[0].matches[0].path: Invalid value: \"object\": value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']",
      "spec.rules[0].matches[0].path: Invalid value: \"object\": must not contain '//' when type one of ['Exact', 'PathPrefix']",
    ]],
    ['redirect and rewrite together', { rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https' } }, { type: 'URLRewrite', urlRewrite: { hostname: 'x' } }] }] }, [
      'spec.rules[0].filters: Invalid value: "array": May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both',
    ]],
    ['a filter of the wrong type', { rules: [{ filters: [{ type: 'RequestHeaderModifier', requestRedirect: { scheme: 'https' } }] }] }, [
      'spec.rules[0].filters[0]: Invalid value: "object": filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type',
      'spec.rules[0].filters[0]: Invalid value: "object": filter.requestRedirect must be nil if the filter.type is not RequestRedirect',
    ]],
    ['durations compared', { rules: [{ timeouts: { request: '1s', backendRequest: '2s' } }] }, [
      'spec.rules[0].timeouts: Invalid value: "object": backendRequest timeout cannot be longer than request timeout',
    ]],
    ['replacePrefixMatch with an Exact match', { rules: [{ matches: [{ path: { type: 'Exact', value: '/x' } }], filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/y' } } }] }] }, [
      'spec.rules[0]: Invalid value: "object": When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified',
    ]],
    ['a Service backend without a port', { parentRefs: [{ name: 'gw', kind: 'Service', group: '' }], rules: [{ backendRefs: [{ name: 'svc' }] }] }, [
      'spec.rules[0].backendRefs[0]: Invalid value: "object": Must have port for Service reference',
    ]],
  ];
  for (const [name, spec, want] of cases) assert.deepEqual(check(spec), want, name);
});
