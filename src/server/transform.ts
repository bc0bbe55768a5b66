/**
 * Response conversions a client can ask for in its Accept header (upstream's
 * transformResponseObject): `as=Table` (meta.k8s.io v1 / v1beta1) for objects,
 * lists and watch events, and `as=PartialObjectMetadata` /
 * `as=PartialObjectMetadataList` (meta.k8s.io v1 / v1beta1).
 *
 * Contract:
 * - `RESOURCE_RESTRICTIONS` is the EndpointRestrictions of resource endpoints:
 *   those conversions plus watch streams; anything else in `as=` is skipped by
 *   negotiation (and so, with nothing else acceptable, a 406).
 * - `transformResponse(value, output, ctx)` returns what to encode: `value`
 *   itself when no conversion was negotiated or when it is a Status; otherwise the
 *   converted value. Table options come from the query (`includeObject`, 400 on an
 *   unknown value). Asking for an object form of a list (or the other way round)
 *   is a 406, as upstream.
 * - `watchEventTransformer(output, ctx)` converts watch event objects one by one:
 *   each becomes a one-row Table; only the first carries column definitions (later
 *   ones are written with upstream's noHeaders), ERROR events pass unchanged.
 */
import { buildTable, type IncludeObject, type Printer, type TableApiVersion } from '../api/tables/index.js';
import { notAcceptable } from '../machinery/errors.js';
import type { KubeList, KubeObject } from '../machinery/meta.js';
import type { WatchEvent } from '../registry/rest.js';
import type { EndpointRestrictions, NegotiatedOutput } from './negotiation.js';

const META_GROUP = 'meta.k8s.io';
const META_VERSIONS = ['v1', 'v1beta1'];
const CONVERSION_KINDS = ['Table', 'PartialObjectMetadata', 'PartialObjectMetadataList'];

export const RESOURCE_RESTRICTIONS: EndpointRestrictions = {
  allowsConversion: (t) => t.group === META_GROUP && META_VERSIONS.includes(t.version) && CONVERSION_KINDS.includes(t.kind),
  allowsStreamSchema: (schema) => schema === 'watch',
};

/** Resource endpoints whose storage has no Table convertor (reviews, pods/binding, pods/eviction): Table is never negotiated. */
export const NO_TABLE_RESTRICTIONS: EndpointRestrictions = {
  allowsConversion: (t) => t.kind !== 'Table' && RESOURCE_RESTRICTIONS.allowsConversion(t),
  allowsStreamSchema: RESOURCE_RESTRICTIONS.allowsStreamSchema,
};

export interface TransformContext {
  /** The resource's API group (the Table printer is chosen by group and kind). */
  group: string;
  version: string;
  kind: string;
  query: URLSearchParams;
  /** The media types served, for the 406 message. */
  served: string[];
  /** The resource's own printer (custom resources), else the built-in one for group and kind. */
  printer?: Printer;
}

function isList(value: unknown): value is KubeList {
  return typeof value === 'object' && value !== null && Array.isArray((value as { items?: unknown }).items);
}

function isStatus(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'Status';
}

function includeObjectOf(query: URLSearchParams): IncludeObject | undefined {
  const raw = query.get('includeObject');
  // buildTable rejects unknown values with upstream's 400.
  return raw === null || raw === '' ? undefined : (raw as IncludeObject);
}

function partialMetadata(object: KubeObject, apiVersion: string): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: object.metadata ?? {} };
}

/** The converted response body (see the module comment). */
export function transformResponse(value: unknown, output: NegotiatedOutput, ctx: TransformContext): unknown {
  const target = output.convert;
  if (target === undefined || isStatus(value)) return value;
  const apiVersion = `${target.group}/${target.version}`;
  switch (target.kind) {
    case 'Table': {
      const options: Parameters<typeof buildTable>[3] = { apiVersion: apiVersion as TableApiVersion };
      if (ctx.printer !== undefined) options.printer = ctx.printer;
      const include = includeObjectOf(ctx.query);
      if (include !== undefined) options.includeObject = include;
      if (isList(value)) {
        options.listMeta = value.metadata ?? {};
        // List items carry no type fields; a row's embedded object does (kubectl decodes it by kind).
        const typeMeta = { kind: ctx.kind, apiVersion: ctx.group === '' ? ctx.version : `${ctx.group}/${ctx.version}` };
        const items = value.items.map((item) => (item.kind ? item : { ...typeMeta, ...item }));
        return buildTable(ctx.group, ctx.kind, items, options);
      }
      return buildTable(ctx.group, ctx.kind, [value as KubeObject], options);
    }
    case 'PartialObjectMetadata':
      if (isList(value)) throw notAcceptable(ctx.served);
      return partialMetadata(value as KubeObject, apiVersion);
    case 'PartialObjectMetadataList':
      if (!isList(value)) throw notAcceptable(ctx.served);
      return {
        kind: 'PartialObjectMetadataList',
        apiVersion,
        metadata: value.metadata ?? {},
        items: value.items.map((item) => partialMetadata(item, apiVersion)),
      };
    default:
      return value;
  }
}

/** A per-watch converter of event objects (see the module comment). */
export function watchEventTransformer(output: NegotiatedOutput, ctx: TransformContext): (event: WatchEvent) => WatchEvent {
  const target = output.convert;
  if (target === undefined) return (event) => event;
  const apiVersion = `${target.group}/${target.version}`;
  const include = includeObjectOf(ctx.query);
  // An unknown includeObject is a 400 before the stream starts.
  if (target.kind === 'Table' && include !== undefined) buildTable(ctx.group, ctx.kind, [], { includeObject: include });
  let headersSent = false;
  return (event) => {
    if (event.type === 'ERROR' || isStatus(event.object)) return event;
    const raw = event.object as KubeObject;
    const object = raw.kind ? raw : { kind: ctx.kind, apiVersion: ctx.group === '' ? ctx.version : `${ctx.group}/${ctx.version}`, ...raw };
    if (target.kind === 'Table' && event.type === 'BOOKMARK') {
      // A bookmark carries only a resourceVersion: an empty table at that version.
      const rv = object.metadata?.resourceVersion;
      const table = { kind: 'Table', apiVersion, metadata: rv ? { resourceVersion: rv } : {}, columnDefinitions: [], rows: [] };
      return { type: event.type, object: table as unknown as KubeObject };
    }
    if (target.kind === 'Table') {
      const options: Parameters<typeof buildTable>[3] = { apiVersion: apiVersion as TableApiVersion, omitHeaders: headersSent };
      if (ctx.printer !== undefined) options.printer = ctx.printer;
      if (include !== undefined) options.includeObject = include;
      headersSent = true;
      // A table is a KubeObject-shaped value with kind Table; the encoder writes it as JSON.
      return { type: event.type, object: buildTable(ctx.group, ctx.kind, [object], options) as unknown as KubeObject };
    }
    return { type: event.type, object: partialMetadata(object, apiVersion) as unknown as KubeObject };
  };
}
