/**
 * The protobuf messages of the Swagger 2.0 document as kube-openapi serves it
 * (gnostic's `openapi.v2` package), built with protobufjs reflection. Only the
 * messages a Swagger document of ours can reach are declared; names, field
 * numbers and types follow gnostic's definitions so Go's gnostic decodes the
 * bytes as its own `openapi_v2.Document`.
 *
 * Contract: `openApiV2Document()` is the `openapi.v2.Document` type; objects
 * handed to its `encode` use the snake_case field names below, oneof members
 * are set by their field name, absent values are left out.
 */
import protobuf from 'protobufjs';

/** [field name, number, type, repeated?]; a type is a scalar name or a message of openapi.v2. */
type FieldSpec = [name: string, id: number, type: string, repeated?: 'repeated'];
interface MessageSpec {
  fields: FieldSpec[];
  /** A single `oneof oneof { … }` group, as every gnostic union is written. */
  oneof?: FieldSpec[];
}

const R = 'repeated' as const;

/** Fields shared by the four non-body parameter kinds and PrimitivesItems/Header, from `type` on. */
function primitiveTail(first: number): FieldSpec[] {
  const names: Array<[string, string, boolean?]> = [
    ['type', 'string'], ['format', 'string'], ['items', 'PrimitivesItems'], ['collection_format', 'string'],
    ['default', 'Any'], ['maximum', 'double'], ['exclusive_maximum', 'bool'], ['minimum', 'double'],
    ['exclusive_minimum', 'bool'], ['max_length', 'int64'], ['min_length', 'int64'], ['pattern', 'string'],
    ['max_items', 'int64'], ['min_items', 'int64'], ['unique_items', 'bool'], ['enum', 'Any', true],
    ['multiple_of', 'double'],
  ];
  return names.map(([name, type, repeated], i) => (repeated ? [name, first + i, type, R] : [name, first + i, type]));
}

/** A non-body parameter: required, in, description, name, [allow_empty_value], then the primitive tail and extensions. */
function parameterSubSchema(allowEmptyValue: boolean): MessageSpec {
  const head: FieldSpec[] = [['required', 1, 'bool'], ['in', 2, 'string'], ['description', 3, 'string'], ['name', 4, 'string']];
  if (allowEmptyValue) head.push(['allow_empty_value', 5, 'bool']);
  const tail = primitiveTail(head.length + 1);
  return { fields: [...head, ...tail, ['vendor_extension', head.length + tail.length + 1, 'NamedAny', R]] };
}

function named(valueType: string): MessageSpec {
  return { fields: [['name', 1, 'string'], ['value', 2, valueType]] };
}

const MESSAGES: Record<string, MessageSpec> = {
  Document: {
    fields: [
      ['swagger', 1, 'string'], ['info', 2, 'Info'], ['host', 3, 'string'], ['base_path', 4, 'string'],
      ['schemes', 5, 'string', R], ['consumes', 6, 'string', R], ['produces', 7, 'string', R], ['paths', 8, 'Paths'],
      ['definitions', 9, 'Definitions'], ['parameters', 10, 'ParameterDefinitions'], ['responses', 11, 'ResponseDefinitions'],
      ['security', 12, 'SecurityRequirement', R], ['security_definitions', 13, 'SecurityDefinitions'], ['tags', 14, 'Tag', R],
      ['external_docs', 15, 'ExternalDocs'], ['vendor_extension', 16, 'NamedAny', R],
    ],
  },
  Info: {
    fields: [
      ['title', 1, 'string'], ['version', 2, 'string'], ['description', 3, 'string'], ['terms_of_service', 4, 'string'],
      ['contact', 5, 'Contact'], ['license', 6, 'License'], ['vendor_extension', 7, 'NamedAny', R],
    ],
  },
  Contact: { fields: [['name', 1, 'string'], ['url', 2, 'string'], ['email', 3, 'string'], ['vendor_extension', 4, 'NamedAny', R]] },
  License: { fields: [['name', 1, 'string'], ['url', 2, 'string'], ['vendor_extension', 3, 'NamedAny', R]] },
  ExternalDocs: { fields: [['description', 1, 'string'], ['url', 2, 'string'], ['vendor_extension', 3, 'NamedAny', R]] },
  Tag: { fields: [['name', 1, 'string'], ['description', 2, 'string'], ['external_docs', 3, 'ExternalDocs'], ['vendor_extension', 4, 'NamedAny', R]] },
  Any: { fields: [['value', 1, 'google.protobuf.Any'], ['yaml', 2, 'string']] },
  NamedAny: named('Any'),
  VendorExtension: { fields: [['additional_properties', 1, 'NamedAny', R]] },
  Paths: { fields: [['vendor_extension', 1, 'NamedAny', R], ['path', 2, 'NamedPathItem', R]] },
  NamedPathItem: named('PathItem'),
  PathItem: {
    fields: [
      ['_ref', 1, 'string'], ['get', 2, 'Operation'], ['put', 3, 'Operation'], ['post', 4, 'Operation'], ['delete', 5, 'Operation'],
      ['options', 6, 'Operation'], ['head', 7, 'Operation'], ['patch', 8, 'Operation'], ['parameters', 9, 'ParametersItem', R],
      ['vendor_extension', 10, 'NamedAny', R],
    ],
  },
  Operation: {
    fields: [
      ['tags', 1, 'string', R], ['summary', 2, 'string'], ['description', 3, 'string'], ['external_docs', 4, 'ExternalDocs'],
      ['operation_id', 5, 'string'], ['produces', 6, 'string', R], ['consumes', 7, 'string', R], ['parameters', 8, 'ParametersItem', R],
      ['responses', 9, 'Responses'], ['schemes', 10, 'string', R], ['deprecated', 11, 'bool'], ['security', 12, 'SecurityRequirement', R],
      ['vendor_extension', 13, 'NamedAny', R],
    ],
  },
  ParameterDefinitions: { fields: [['additional_properties', 1, 'NamedParameter', R]] },
  NamedParameter: named('Parameter'),
  ResponseDefinitions: { fields: [['additional_properties', 1, 'NamedResponse', R]] },
  NamedResponse: named('Response'),
  ParametersItem: { fields: [], oneof: [['parameter', 1, 'Parameter'], ['json_reference', 2, 'JsonReference']] },
  JsonReference: { fields: [['_ref', 1, 'string'], ['description', 2, 'string']] },
  Parameter: { fields: [], oneof: [['body_parameter', 1, 'BodyParameter'], ['non_body_parameter', 2, 'NonBodyParameter']] },
  BodyParameter: {
    fields: [
      ['description', 1, 'string'], ['name', 2, 'string'], ['in', 3, 'string'], ['required', 4, 'bool'], ['schema', 5, 'Schema'],
      ['vendor_extension', 6, 'NamedAny', R],
    ],
  },
  NonBodyParameter: {
    fields: [],
    oneof: [
      ['header_parameter_sub_schema', 1, 'HeaderParameterSubSchema'], ['form_data_parameter_sub_schema', 2, 'FormDataParameterSubSchema'],
      ['query_parameter_sub_schema', 3, 'QueryParameterSubSchema'], ['path_parameter_sub_schema', 4, 'PathParameterSubSchema'],
    ],
  },
  HeaderParameterSubSchema: parameterSubSchema(false),
  FormDataParameterSubSchema: parameterSubSchema(true),
  QueryParameterSubSchema: parameterSubSchema(true),
  PathParameterSubSchema: parameterSubSchema(false),
  PrimitivesItems: { fields: [...primitiveTail(1), ['vendor_extension', 18, 'NamedAny', R]] },
  Header: { fields: [...primitiveTail(1), ['description', 18, 'string'], ['vendor_extension', 19, 'NamedAny', R]] },
  Headers: { fields: [['additional_properties', 1, 'NamedHeader', R]] },
  NamedHeader: named('Header'),
  Examples: { fields: [['additional_properties', 1, 'NamedAny', R]] },
  Responses: { fields: [['response_code', 1, 'NamedResponseValue', R], ['vendor_extension', 2, 'NamedAny', R]] },
  NamedResponseValue: named('ResponseValue'),
  ResponseValue: { fields: [], oneof: [['response', 1, 'Response'], ['json_reference', 2, 'JsonReference']] },
  Response: {
    fields: [
      ['description', 1, 'string'], ['schema', 2, 'SchemaItem'], ['headers', 3, 'Headers'], ['examples', 4, 'Examples'],
      ['vendor_extension', 5, 'NamedAny', R],
    ],
  },
  SchemaItem: { fields: [], oneof: [['schema', 1, 'Schema'], ['file_schema', 2, 'FileSchema']] },
  FileSchema: {
    fields: [
      ['format', 1, 'string'], ['title', 2, 'string'], ['description', 3, 'string'], ['default', 4, 'Any'], ['required', 5, 'string', R],
      ['type', 6, 'string'], ['read_only', 7, 'bool'], ['external_docs', 8, 'ExternalDocs'], ['example', 9, 'Any'],
      ['vendor_extension', 10, 'NamedAny', R],
    ],
  },
  Definitions: { fields: [['additional_properties', 1, 'NamedSchema', R]] },
  NamedSchema: named('Schema'),
  Properties: { fields: [['additional_properties', 1, 'NamedSchema', R]] },
  Schema: {
    fields: [
      ['_ref', 1, 'string'], ['format', 2, 'string'], ['title', 3, 'string'], ['description', 4, 'string'], ['default', 5, 'Any'],
      ['multiple_of', 6, 'double'], ['maximum', 7, 'double'], ['exclusive_maximum', 8, 'bool'], ['minimum', 9, 'double'],
      ['exclusive_minimum', 10, 'bool'], ['max_length', 11, 'int64'], ['min_length', 12, 'int64'], ['pattern', 13, 'string'],
      ['max_items', 14, 'int64'], ['min_items', 15, 'int64'], ['unique_items', 16, 'bool'], ['max_properties', 17, 'int64'],
      ['min_properties', 18, 'int64'], ['required', 19, 'string', R], ['enum', 20, 'Any', R],
      ['additional_properties', 21, 'AdditionalPropertiesItem'], ['type', 22, 'TypeItem'], ['items', 23, 'ItemsItem'],
      ['all_of', 24, 'Schema', R], ['properties', 25, 'Properties'], ['discriminator', 26, 'string'], ['read_only', 27, 'bool'],
      ['xml', 28, 'Xml'], ['external_docs', 29, 'ExternalDocs'], ['example', 30, 'Any'], ['vendor_extension', 31, 'NamedAny', R],
    ],
  },
  AdditionalPropertiesItem: { fields: [], oneof: [['schema', 1, 'Schema'], ['boolean', 2, 'bool']] },
  TypeItem: { fields: [['value', 1, 'string', R]] },
  ItemsItem: { fields: [['schema', 1, 'Schema', R]] },
  Xml: {
    fields: [
      ['name', 1, 'string'], ['namespace', 2, 'string'], ['prefix', 3, 'string'], ['attribute', 4, 'bool'], ['wrapped', 5, 'bool'],
      ['vendor_extension', 6, 'NamedAny', R],
    ],
  },
  SecurityRequirement: { fields: [['additional_properties', 1, 'NamedStringArray', R]] },
  NamedStringArray: named('StringArray'),
  StringArray: { fields: [['value', 1, 'string', R]] },
  SecurityDefinitions: { fields: [['additional_properties', 1, 'NamedSecurityDefinitionsItem', R]] },
  NamedSecurityDefinitionsItem: named('SecurityDefinitionsItem'),
  // The OAuth2 members (3–6) are not declared: a document of ours defines bearer-token security only.
  SecurityDefinitionsItem: { fields: [], oneof: [['basic_authentication_security', 1, 'BasicAuthenticationSecurity'], ['api_key_security', 2, 'ApiKeySecurity']] },
  BasicAuthenticationSecurity: { fields: [['type', 1, 'string'], ['description', 2, 'string'], ['vendor_extension', 3, 'NamedAny', R]] },
  ApiKeySecurity: {
    fields: [['type', 1, 'string'], ['name', 2, 'string'], ['in', 3, 'string'], ['description', 4, 'string'], ['vendor_extension', 5, 'NamedAny', R]],
  },
};

function field([name, id, type, repeated]: FieldSpec): protobuf.Field {
  return new protobuf.Field(name, id, type, repeated);
}

let documentType: protobuf.Type | undefined;

/** The `openapi.v2.Document` message type (built once). */
export function openApiV2Document(): protobuf.Type {
  if (documentType !== undefined) return documentType;
  const root = new protobuf.Root();
  root.define('google.protobuf').add(new protobuf.Type('Any').add(new protobuf.Field('type_url', 1, 'string')).add(new protobuf.Field('value', 2, 'bytes')));
  const ns = root.define('openapi.v2');
  for (const [name, spec] of Object.entries(MESSAGES)) {
    const type = new protobuf.Type(name);
    for (const f of spec.fields) type.add(field(f));
    if (spec.oneof !== undefined) {
      const group = new protobuf.OneOf('oneof');
      type.add(group);
      for (const f of spec.oneof) {
        group.add(field(f)); // also adds the field to the type
      }
    }
    ns.add(type);
  }
  root.resolveAll();
  documentType = root.lookupType('openapi.v2.Document');
  return documentType;
}
