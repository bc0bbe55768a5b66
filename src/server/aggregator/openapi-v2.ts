// /openapi/v2 with the extension servers' specs merged in, as kube-aggregator's
// OpenAPI v2 aggregator does: our own document first, then each available
// remote APIService's /openapi/v2 (downloaded by the availability controller)
// in APIService priority order. A path already present is kept as it is (the
// first one wins); a definition already present with the same content is
// shared, one with other content is renamed (`<name>_v2`, `_v3`, …) in the
// spec that brings it, with that spec's references rewritten to the new name.
// Parameters are merged the same way.

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A stable text of a value (keys sorted), to tell equal definitions from different ones. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** The value with every `$ref` to a renamed definition or parameter pointing at its new name. */
function rewriteRefs(v: unknown, renamed: Map<string, string>): unknown {
  if (renamed.size === 0) return v;
  if (Array.isArray(v)) return v.map((x) => rewriteRefs(x, renamed));
  if (!isObject(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = k === '$ref' && typeof x === 'string' && renamed.has(x) ? renamed.get(x) : rewriteRefs(x, renamed);
  }
  return out;
}

/** Adds `source`'s entries of one section to `dest`'s, renaming the conflicting ones; returns the renames as $ref maps. */
function mergeSection(dest: Obj, source: Obj, refPrefix: string, renamed: Map<string, string>): void {
  for (const [name, value] of Object.entries(source)) {
    const mine = dest[name];
    if (mine === undefined || canonical(mine) === canonical(value)) continue;
    let n = 2;
    while (dest[`${name}_v${n}`] !== undefined && canonical(dest[`${name}_v${n}`]) !== canonical(value)) n++;
    renamed.set(`${refPrefix}${name}`, `${refPrefix}${name}_v${n}`);
  }
}

/** Our Swagger 2.0 document with the extension servers' specs merged in (none of the inputs is changed). */
export function mergeOpenApiV2(local: Obj, remote: readonly Obj[]): Obj {
  const paths: Obj = { ...(isObject(local['paths']) ? local['paths'] : {}) };
  const definitions: Obj = { ...(isObject(local['definitions']) ? local['definitions'] : {}) };
  const parameters: Obj = { ...(isObject(local['parameters']) ? local['parameters'] : {}) };
  for (const spec of remote) {
    const renamed = new Map<string, string>();
    const theirDefinitions = isObject(spec['definitions']) ? spec['definitions'] : {};
    const theirParameters = isObject(spec['parameters']) ? spec['parameters'] : {};
    mergeSection(definitions, theirDefinitions, '#/definitions/', renamed);
    mergeSection(parameters, theirParameters, '#/parameters/', renamed);
    const rename = (prefix: string, name: string): string => (renamed.get(`${prefix}${name}`) ?? `${prefix}${name}`).slice(prefix.length);
    for (const [name, value] of Object.entries(theirDefinitions)) definitions[rename('#/definitions/', name)] ??= rewriteRefs(value, renamed);
    for (const [name, value] of Object.entries(theirParameters)) parameters[rename('#/parameters/', name)] ??= rewriteRefs(value, renamed);
    for (const [path, item] of Object.entries(isObject(spec['paths']) ? spec['paths'] : {})) paths[path] ??= rewriteRefs(item, renamed);
  }
  const sorted = (o: Obj): Obj => Object.fromEntries(Object.keys(o).sort().map((k) => [k, o[k]]));
  const out: Obj = { ...local, paths: sorted(paths), definitions: sorted(definitions) };
  if (Object.keys(parameters).length > 0) out['parameters'] = sorted(parameters);
  return out;
}
