// Content negotiation: which media type a response is written in (Accept) and
// which one a request body is read from (Content-Type), following upstream's
// handlers/negotiation package:
//
// - Accept clauses are ordered by q (highest first), then by specificity; a
//   clause matches a served type exactly, by "type/*" or by "*/*".
// - A clause carrying conversion parameters (as=, g=, v=) is only taken when the
//   endpoint allows that conversion (Table, aggregated discovery, …); otherwise
//   it is skipped and the next clause is tried. That is the seam for as=Table.
// - A missing Accept means the first served type (JSON). Nothing acceptable
//   means 406 listing the served types.
// - A missing Content-Type means JSON; an unknown one means 415.

import { notAcceptable, unsupportedMediaType } from '../machinery/errors.js';

export interface MediaRange {
  type: string;
  subtype: string;
  params: Record<string, string>;
  q: number;
}

/** What a negotiated response should be: a serializer media type plus any conversion asked for. */
export interface NegotiatedOutput {
  /** "application/json", "application/yaml", … */
  mediaType: string;
  /** Set when the clause asked for another representation (as=Table, as=APIGroupDiscoveryList). */
  convert?: { group: string; version: string; kind: string };
  /** stream=watch on the clause. */
  stream?: string;
  pretty: boolean;
}

/** Kubernetes protobuf (the `k8s\0` envelope), for built-in kinds. */
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** The media types resource responses are served in, in upstream's preference order. */
export const SERVED_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE];
/** Non-resource documents (discovery, version): no protobuf form here. */
export const DOCUMENT_MEDIA_TYPES = ['application/json', 'application/yaml'];
/** The media types a watch stream can be served in (YAML has no stream framing upstream either). */
export const SERVED_STREAM_MEDIA_TYPES = ['application/json;stream=watch', `${PROTOBUF_MEDIA_TYPE};stream=watch`];
/** Serializers that have a stream framing (watch). */
const STREAMABLE = new Set(['application/json', PROTOBUF_MEDIA_TYPE]);
/** Request body types for create and update. */
export const SERVED_INPUT_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_MEDIA_TYPE];
/** Server-side apply's patch type (served for kinds with an apply schema). */
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';

/** Patch types we apply for built-in kinds, besides apply. */
export const SERVED_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json'];
/** Patch types for kinds with no schema (no strategic merge patch without patch metadata). */
export const SCHEMALESS_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json'];

/** Parses an Accept header into media ranges, sorted the way upstream's goautoneg does. */
export function parseAccept(header: string): MediaRange[] {
  const ranges: Array<MediaRange & { index: number }> = [];
  header.split(',').forEach((raw, index) => {
    const pieces = raw.split(';').map((p) => p.trim());
    const full = pieces.shift() ?? '';
    if (full === '') return;
    const slash = full.indexOf('/');
    let type: string;
    let subtype: string;
    if (full === '*') {
      type = '*';
      subtype = '*';
    } else if (slash < 0) {
      return; // not a media range
    } else {
      type = full.slice(0, slash).toLowerCase();
      subtype = full.slice(slash + 1).toLowerCase();
    }
    const params: Record<string, string> = {};
    let q = 1;
    for (const piece of pieces) {
      const eq = piece.indexOf('=');
      if (eq < 0) continue;
      const key = piece.slice(0, eq).trim();
      const value = piece.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
      if (key === 'q') {
        const parsed = Number.parseFloat(value);
        q = Number.isFinite(parsed) ? parsed : 0;
      } else {
        params[key] = value;
      }
    }
    ranges.push({ type, subtype, params, q, index });
  });
  const specificity = (r: MediaRange): number => (r.type === '*' ? 0 : r.subtype === '*' ? 1 : 2);
  ranges.sort((a, b) => b.q - a.q || specificity(b) - specificity(a) || a.index - b.index);
  return ranges.filter((r) => r.q > 0).map(({ index: _index, ...rest }) => rest);
}

/** Which conversions an endpoint can produce (upstream's EndpointRestrictions). */
export interface EndpointRestrictions {
  allowsConversion(target: { group: string; version: string; kind: string }): boolean;
  allowsStreamSchema(schema: string): boolean;
}

/** Plain resource endpoints today: no conversions (as=Table arrives with its own issue), watch streams allowed. */
export const DEFAULT_RESTRICTIONS: EndpointRestrictions = {
  allowsConversion: () => false,
  allowsStreamSchema: (schema) => schema === 'watch',
};

/** The media types of `served` without parameters (and, streaming, those with stream framing), per list: the lists are constants. */
const candidateLists = new WeakMap<readonly string[], { all: string[]; streamable: string[] }>();

function candidatesOf(served: readonly string[], streaming: boolean): string[] {
  let lists = candidateLists.get(served);
  if (lists === undefined) {
    const all = served.map((m) => m.split(';')[0]!);
    // A watch can only be written by a serializer with stream framing.
    lists = { all, streamable: all.filter((m) => STREAMABLE.has(m)) };
    candidateLists.set(served, lists);
  }
  return streaming ? lists.streamable : lists.all;
}

/**
 * Picks the response representation for an Accept header among `served`
 * (e.g. SERVED_MEDIA_TYPES), or throws 406 listing `served`.
 */
export function negotiateOutput(
  acceptHeader: string | undefined,
  restrictions: EndpointRestrictions = DEFAULT_RESTRICTIONS,
  served: string[] = SERVED_MEDIA_TYPES,
  streaming = false,
): NegotiatedOutput {
  const candidates = candidatesOf(served, streaming);
  const errorList = streaming ? SERVED_STREAM_MEDIA_TYPES : served;
  if (acceptHeader === undefined || acceptHeader.trim() === '') {
    return { mediaType: candidates[0]!, pretty: false };
  }
  for (const range of parseAccept(acceptHeader)) {
    for (const mediaType of candidates) {
      const [type, subtype] = mediaType.split('/') as [string, string];
      const matches =
        (range.type === type && (range.subtype === subtype || range.subtype === '*')) ||
        (range.type === '*' && range.subtype === '*');
      if (!matches) continue;
      const out = acceptOptions(range, mediaType, restrictions);
      if (out !== undefined) return out;
    }
  }
  throw notAcceptable(errorList);
}

function acceptOptions(
  range: MediaRange,
  mediaType: string,
  restrictions: EndpointRestrictions,
): NegotiatedOutput | undefined {
  const out: NegotiatedOutput = { mediaType, pretty: false };
  let convert: { group: string; version: string; kind: string } | undefined;
  const converting = (): { group: string; version: string; kind: string } => (convert ??= { group: '', version: '', kind: '' });
  for (const [key, value] of Object.entries(range.params)) {
    switch (key) {
      case 'as':
        converting().kind = value;
        break;
      case 'g':
        converting().group = value;
        break;
      case 'v':
        converting().version = value;
        break;
      case 'stream':
        if (value !== '' && (!STREAMABLE.has(mediaType) || !restrictions.allowsStreamSchema(value))) return undefined;
        out.stream = value;
        break;
      case 'pretty':
        out.pretty = value === '1';
        break;
      default:
        break; // unrecognized parameters are ignored, as upstream does
    }
  }
  if (convert !== undefined) {
    if (!restrictions.allowsConversion(convert)) return undefined;
    out.convert = convert;
  }
  return out;
}

/**
 * go-restful's route check, which runs before kube-apiserver's own
 * negotiation: some Accept entry, parameters and q dropped, is "*\/*" or
 * exactly one of the route's `produces` (no "type/*" wildcards, no q=0).
 * A missing Accept is "*\/*".
 */
export function routeAccepts(acceptHeader: string | undefined, produces: readonly string[]): boolean {
  if (acceptHeader === undefined || acceptHeader.trim() === '') return true;
  for (const entry of acceptHeader.split(',')) {
    const mediaType = (entry.split(';')[0] ?? '').trim();
    if (mediaType === '*/*' || produces.includes(mediaType)) return true;
  }
  return false;
}

/** The body decoder a Content-Type names, or 415 listing `accepted`. */
export function negotiateInput(contentType: string | undefined, accepted: string[] = SERVED_INPUT_MEDIA_TYPES): string {
  const mediaType = baseMediaType(contentType ?? '');
  if (mediaType === '') return accepted[0]!;
  if (accepted.includes(mediaType)) return mediaType;
  throw unsupportedMediaType('', accepted);
}

/** "application/json; charset=utf-8" → "application/json". */
export function baseMediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}
