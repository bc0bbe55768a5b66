/**
 * The protobuf form of `/openapi/v2`: our Swagger 2.0 JSON document turned into
 * gnostic's `openapi.v2.Document` (see gnostic.ts) and encoded, the bytes
 * kube-openapi serves for `application/com.github.proto-openapi.spec.v2…`.
 *
 * The mapping is gnostic's: maps become repeated `Named*` pairs in key order,
 * `x-…` keys become `vendor_extension` entries whose value is the YAML text of
 * the JSON value, a schema's `type` is a `TypeItem` list, `items` an `ItemsItem`
 * list, `additionalProperties` a schema-or-boolean, parameters are split into
 * body and non-body (by `in`), `$ref`s in parameter and response positions are
 * `JsonReference`s, and zero values are left out as proto3 does.
 * Only the Swagger features our generator uses need to be right, but every
 * schema keyword of Swagger 2.0 is carried so a new one is not lost silently;
 * OAuth2 security definitions are refused and info's contact/license are not
 * carried (we never write them).
 *
 * Contract: `openApiV2Protobuf(doc)` returns the encoded bytes of `doc`
 * (a Swagger 2.0 document as `buildOpenApiV2` makes it).
 */
import YAML from 'yaml';
import { openApiV2Document } from './gnostic.js';

type Obj = Record<string, unknown>;
/** A message object for protobufjs: snake_case field names, absent fields missing. */
type Message = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Sets `out[key]` only to a value proto3 would write (not '', 0, false, [] or undefined). */
function put(out: Message, key: string, value: unknown): void {
  if (value === undefined || value === null || value === '' || value === 0 || value === false) return;
  if (Array.isArray(value) && value.length === 0) return;
  out[key] = value;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}
function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}
function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined;
}

/** gnostic's `Any`: the value written as YAML. */
function anyValue(v: unknown): Message {
  return { yaml: YAML.stringify(v) };
}

function vendorExtensions(o: Obj): Message[] {
  return Object.entries(o)
    .filter(([k]) => k.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyValue(value) }));
}

function externalDocs(v: unknown): Message | undefined {
  if (!isObj(v)) return undefined;
  const out: Message = {};
  put(out, 'description', str(v['description']));
  put(out, 'url', str(v['url']));
  put(out, 'vendor_extension', vendorExtensions(v));
  return out;
}

function xml(v: unknown): Message | undefined {
  if (!isObj(v)) return undefined;
  const out: Message = {};
  for (const k of ['name', 'namespace', 'prefix']) put(out, k, str(v[k]));
  put(out, 'attribute', bool(v['attribute']));
  put(out, 'wrapped', bool(v['wrapped']));
  put(out, 'vendor_extension', vendorExtensions(v));
  return out;
}

/** The validation keywords shared by schemas, non-body parameters, items and headers. */
function validations(out: Message, s: Obj): void {
  put(out, 'maximum', num(s['maximum']));
  put(out, 'exclusive_maximum', bool(s['exclusiveMaximum']));
  put(out, 'minimum', num(s['minimum']));
  put(out, 'exclusive_minimum', bool(s['exclusiveMinimum']));
  put(out, 'max_length', num(s['maxLength']));
  put(out, 'min_length', num(s['minLength']));
  put(out, 'pattern', str(s['pattern']));
  put(out, 'max_items', num(s['maxItems']));
  put(out, 'min_items', num(s['minItems']));
  put(out, 'unique_items', bool(s['uniqueItems']));
  if (Array.isArray(s['enum'])) put(out, 'enum', s['enum'].map(anyValue));
  put(out, 'multiple_of', num(s['multipleOf']));
  if (s['default'] !== undefined) out['default'] = anyValue(s['default']);
}

function schema(s: Obj): Message {
  const out: Message = {};
  put(out, '_ref', str(s['$ref']));
  put(out, 'format', str(s['format']));
  put(out, 'title', str(s['title']));
  put(out, 'description', str(s['description']));
  validations(out, s);
  put(out, 'max_properties', num(s['maxProperties']));
  put(out, 'min_properties', num(s['minProperties']));
  put(out, 'required', strings(s['required']));
  const additional = s['additionalProperties'];
  if (typeof additional === 'boolean') out['additional_properties'] = { boolean: additional };
  else if (isObj(additional)) out['additional_properties'] = { schema: schema(additional) };
  const type = s['type'];
  if (typeof type === 'string') out['type'] = { value: [type] };
  else if (Array.isArray(type)) out['type'] = { value: strings(type) };
  const items = s['items'];
  if (isObj(items)) out['items'] = { schema: [schema(items)] };
  else if (Array.isArray(items)) out['items'] = { schema: items.filter(isObj).map(schema) };
  if (Array.isArray(s['allOf'])) put(out, 'all_of', s['allOf'].filter(isObj).map(schema));
  const properties = s['properties'];
  if (isObj(properties)) {
    out['properties'] = {
      additional_properties: Object.entries(properties)
        .filter((e): e is [string, Obj] => isObj(e[1]))
        .map(([name, value]) => ({ name, value: schema(value) })),
    };
  }
  put(out, 'discriminator', str(s['discriminator']));
  put(out, 'read_only', bool(s['readOnly']));
  put(out, 'xml', xml(s['xml']));
  put(out, 'external_docs', externalDocs(s['externalDocs']));
  if (s['example'] !== undefined) out['example'] = anyValue(s['example']);
  put(out, 'vendor_extension', vendorExtensions(s));
  return out;
}

/** `type`, `format`, `items`, `collectionFormat` and the validations of a primitive (non-body parameter, items, header). */
function primitive(out: Message, p: Obj): void {
  put(out, 'type', str(p['type']));
  put(out, 'format', str(p['format']));
  if (isObj(p['items'])) out['items'] = primitivesItems(p['items']);
  put(out, 'collection_format', str(p['collectionFormat']));
  validations(out, p);
}

function primitivesItems(p: Obj): Message {
  const out: Message = {};
  primitive(out, p);
  put(out, 'vendor_extension', vendorExtensions(p));
  return out;
}

const NON_BODY: Record<string, string> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

function parameter(p: Obj): Message {
  const out: Message = {};
  put(out, 'required', bool(p['required']));
  put(out, 'in', str(p['in']));
  put(out, 'description', str(p['description']));
  put(out, 'name', str(p['name']));
  if (p['in'] === 'body') {
    if (isObj(p['schema'])) out['schema'] = schema(p['schema']);
    put(out, 'vendor_extension', vendorExtensions(p));
    return { body_parameter: out };
  }
  const kind = NON_BODY[String(p['in'])];
  if (kind === undefined) throw new Error(`openapi v2 protobuf: parameter ${String(p['name'])} has unknown "in" ${String(p['in'])}`);
  if (p['in'] === 'query' || p['in'] === 'formData') put(out, 'allow_empty_value', bool(p['allowEmptyValue']));
  primitive(out, p);
  put(out, 'vendor_extension', vendorExtensions(p));
  return { non_body_parameter: { [kind]: out } };
}

function jsonReference(o: Obj): Message {
  const out: Message = {};
  put(out, '_ref', str(o['$ref']));
  put(out, 'description', str(o['description']));
  return out;
}

function parametersItems(v: unknown): Message[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isObj).map((p) => (typeof p['$ref'] === 'string' ? { json_reference: jsonReference(p) } : { parameter: parameter(p) }));
}

function response(r: Obj): Message {
  const out: Message = {};
  put(out, 'description', str(r['description']));
  const s = r['schema'];
  if (isObj(s)) {
    if (s['type'] === 'file') {
      const file: Message = {};
      for (const k of ['format', 'title', 'description', 'type']) put(file, k, str(s[k]));
      if (s['default'] !== undefined) file['default'] = anyValue(s['default']);
      put(file, 'required', strings(s['required']));
      put(file, 'read_only', bool(s['readOnly']));
      put(file, 'external_docs', externalDocs(s['externalDocs']));
      if (s['example'] !== undefined) file['example'] = anyValue(s['example']);
      put(file, 'vendor_extension', vendorExtensions(s));
      out['schema'] = { file_schema: file };
    } else {
      out['schema'] = { schema: schema(s) };
    }
  }
  if (isObj(r['headers'])) {
    out['headers'] = {
      additional_properties: Object.entries(r['headers'])
        .filter((e): e is [string, Obj] => isObj(e[1]))
        .map(([name, h]) => {
          const header: Message = {};
          primitive(header, h);
          put(header, 'description', str(h['description']));
          put(header, 'vendor_extension', vendorExtensions(h));
          return { name, value: header };
        }),
    };
  }
  if (isObj(r['examples'])) {
    out['examples'] = { additional_properties: Object.entries(r['examples']).map(([name, value]) => ({ name, value: anyValue(value) })) };
  }
  put(out, 'vendor_extension', vendorExtensions(r));
  return out;
}

function responses(v: unknown): Message | undefined {
  if (!isObj(v)) return undefined;
  const codes = Object.entries(v)
    .filter((e): e is [string, Obj] => /^([0-9]{3}|default)$/.test(e[0]) && isObj(e[1]))
    .map(([name, r]) => ({ name, value: typeof r['$ref'] === 'string' ? { json_reference: jsonReference(r) } : { response: response(r) } }));
  const out: Message = {};
  put(out, 'response_code', codes);
  put(out, 'vendor_extension', vendorExtensions(v));
  return out;
}

function operation(op: Obj): Message {
  const out: Message = {};
  put(out, 'tags', strings(op['tags']));
  put(out, 'summary', str(op['summary']));
  put(out, 'description', str(op['description']));
  put(out, 'external_docs', externalDocs(op['externalDocs']));
  put(out, 'operation_id', str(op['operationId']));
  put(out, 'produces', strings(op['produces']));
  put(out, 'consumes', strings(op['consumes']));
  put(out, 'parameters', parametersItems(op['parameters']));
  put(out, 'responses', responses(op['responses']));
  put(out, 'schemes', strings(op['schemes']));
  put(out, 'deprecated', bool(op['deprecated']));
  put(out, 'security', securityRequirements(op['security']));
  put(out, 'vendor_extension', vendorExtensions(op));
  return out;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function pathItem(item: Obj): Message {
  const out: Message = {};
  put(out, '_ref', str(item['$ref']));
  for (const m of METHODS) if (isObj(item[m])) out[m] = operation(item[m]);
  put(out, 'parameters', parametersItems(item['parameters']));
  put(out, 'vendor_extension', vendorExtensions(item));
  return out;
}

function securityRequirements(v: unknown): Message[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.filter(isObj).map((req) => ({
    additional_properties: Object.entries(req).map(([name, scopes]) => ({ name, value: { value: strings(scopes) ?? [] } })),
  }));
}

function securityDefinition(name: string, d: Obj): Message {
  const out: Message = {};
  if (d['type'] === 'apiKey') {
    for (const k of ['type', 'name', 'in', 'description']) put(out, k, str(d[k]));
    put(out, 'vendor_extension', vendorExtensions(d));
    return { api_key_security: out };
  }
  if (d['type'] === 'basic') {
    for (const k of ['type', 'description']) put(out, k, str(d[k]));
    put(out, 'vendor_extension', vendorExtensions(d));
    return { basic_authentication_security: out };
  }
  throw new Error(`openapi v2 protobuf: security definition ${name} of type ${String(d['type'])} is not supported`);
}

/** The `openapi.v2.Document` message object of a Swagger 2.0 document. */
export function openApiV2Message(doc: Obj): Message {
  const out: Message = {};
  put(out, 'swagger', str(doc['swagger']));
  const info = doc['info'];
  if (isObj(info)) {
    const i: Message = {};
    for (const k of ['title', 'version', 'description']) put(i, k, str(info[k]));
    put(i, 'terms_of_service', str(info['termsOfService']));
    put(i, 'vendor_extension', vendorExtensions(info));
    out['info'] = i;
  }
  put(out, 'host', str(doc['host']));
  put(out, 'base_path', str(doc['basePath']));
  put(out, 'schemes', strings(doc['schemes']));
  put(out, 'consumes', strings(doc['consumes']));
  put(out, 'produces', strings(doc['produces']));
  const paths = doc['paths'];
  if (isObj(paths)) {
    const p: Message = {};
    put(p, 'vendor_extension', vendorExtensions(paths));
    put(
      p,
      'path',
      Object.entries(paths)
        .filter((e): e is [string, Obj] => e[0].startsWith('/') && isObj(e[1]))
        .map(([name, item]) => ({ name, value: pathItem(item) })),
    );
    out['paths'] = p;
  }
  const definitions = doc['definitions'];
  if (isObj(definitions)) {
    out['definitions'] = {
      additional_properties: Object.entries(definitions)
        .filter((e): e is [string, Obj] => isObj(e[1]))
        .map(([name, s]) => ({ name, value: schema(s) })),
    };
  }
  if (isObj(doc['parameters'])) {
    out['parameters'] = {
      additional_properties: Object.entries(doc['parameters'])
        .filter((e): e is [string, Obj] => isObj(e[1]))
        .map(([name, p]) => ({ name, value: parameter(p) })),
    };
  }
  if (isObj(doc['responses'])) {
    out['responses'] = {
      additional_properties: Object.entries(doc['responses'])
        .filter((e): e is [string, Obj] => isObj(e[1]))
        .map(([name, r]) => ({ name, value: response(r) })),
    };
  }
  put(out, 'security', securityRequirements(doc['security']));
  const securityDefinitions = doc['securityDefinitions'];
  if (isObj(securityDefinitions)) {
    out['security_definitions'] = {
      additional_properties: Object.entries(securityDefinitions)
        .filter((e): e is [string, Obj] => isObj(e[1]))
        .map(([name, d]) => ({ name, value: securityDefinition(name, d) })),
    };
  }
  if (Array.isArray(doc['tags'])) {
    put(
      out,
      'tags',
      doc['tags'].filter(isObj).map((t) => {
        const tag: Message = {};
        put(tag, 'name', str(t['name']));
        put(tag, 'description', str(t['description']));
        put(tag, 'external_docs', externalDocs(t['externalDocs']));
        put(tag, 'vendor_extension', vendorExtensions(t));
        return tag;
      }),
    );
  }
  put(out, 'external_docs', externalDocs(doc['externalDocs']));
  put(out, 'vendor_extension', vendorExtensions(doc));
  return out;
}

/** The encoded `openapi.v2.Document` of a Swagger 2.0 document. */
export function openApiV2Protobuf(doc: Obj): Buffer {
  const type = openApiV2Document();
  const bytes = type.encode(type.fromObject(openApiV2Message(doc))).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
