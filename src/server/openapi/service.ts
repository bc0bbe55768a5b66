/**
 * The OpenAPI endpoints, built once from the served resource types and the schema
 * registry and cached as bytes with their hash:
 *
 *   /openapi/v2                     Swagger 2.0, JSON, or gnostic's `openapi.v2.Document`
 *                                   in protobuf (protobuf.ts) for
 *                                   application/com.github.proto-openapi.spec.v2[@.]v1.0+protobuf,
 *                                   served as `…spec.v2.v1.0+protobuf` with the JSON's
 *                                   Etag, as kube-openapi does. The first Accept clause
 *                                   (by q) that names either form picks it; wildcards pick JSON.
 *   /openapi/v3                     discovery: {"paths": {"api/v1": {"serverRelativeURL":
 *                                   "/openapi/v3/api/v1?hash=<HASH>"}, …}}
 *   /openapi/v3/api/v1, /openapi/v3/apis/{group}/{version}
 *                                   one OpenAPI 3.0 document per group/version.
 *
 * Caching as upstream's kube-openapi handlers: every answer has an `Etag` (the
 * upper-case hex SHA-512 of the JSON, quoted) and `If-None-Match` answers 304; a
 * group/version request carrying `?hash=` that matches is served with
 * `Cache-Control: public, immutable` and a one-year `Expires`, one whose hash is
 * stale is redirected (301) to the current hash's URL.
 *
 * Contract: `createOpenApiService(types, version)` returns `{ handles(path), serve(req, res, path) }`;
 * `serve` writes the whole response (200, 301, 304, 404 or 406).
 * `buildOpenApiV2`/`buildOpenApiV3` build the documents; `groupVersionPath` names a v3 document.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResourceType } from '../../registry/rest.js';
import { parseAccept } from '../negotiation.js';
import { PATCH_DEF, pathDefinitionRoots, resourcePaths } from './paths.js';
import { type Flavour, type JsonSchema, closure, definitionSchema } from './schemas.js';
import { definitionByName } from '../../api/schema/index.js';
import { openApiV2Protobuf } from './protobuf.js';

interface CachedDocument {
  body: Buffer;
  etag: string;
  lastModified: string;
}

function cachedDocument(value: unknown): CachedDocument {
  const body = Buffer.from(JSON.stringify(value));
  return {
    body,
    etag: createHash('sha512').update(body).digest('hex').toUpperCase(),
    lastModified: new Date().toUTCString(),
  };
}

/** Both forms of /openapi/v2; they share the JSON's Etag and time (upstream hashes the JSON only). */
interface CachedV2 {
  json: CachedDocument;
  protobuf(): CachedDocument;
}

function cachedV2(doc: Record<string, unknown>): CachedV2 {
  const json = cachedDocument(doc);
  let protobuf: CachedDocument | undefined;
  return { json, protobuf: () => (protobuf ??= { ...json, body: openApiV2Protobuf(doc) }) };
}

const PATCH_SCHEMA: JsonSchema = { description: 'A patch document; its format is given by the request Content-Type.', type: 'object' };

const SECURITY_V2 = {
  securityDefinitions: { BearerToken: { description: 'Bearer token authentication', type: 'apiKey', name: 'authorization', in: 'header' } },
  security: [{ BearerToken: [] }],
};

function definitionsFor(types: ResourceType[], flavour: Flavour): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const name of closure(pathDefinitionRoots(types))) out[name] = definitionSchema(definitionByName(name)!, flavour);
  out[PATCH_DEF] = PATCH_SCHEMA;
  for (const t of types) if (t.openapi !== undefined) Object.assign(out, t.openapi.definitions(flavour));
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function sortedPaths(paths: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The Swagger 2.0 document of every served type. */
export function buildOpenApiV2(types: ResourceType[], version: string): Record<string, unknown> {
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version },
    paths: sortedPaths(resourcePaths(types, 'v2')),
    definitions: definitionsFor(types, 'v2'),
    ...SECURITY_V2,
  };
}

/** The OpenAPI 3.0 document of one group/version's types. */
export function buildOpenApiV3(types: ResourceType[], version: string): Record<string, unknown> {
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes', version },
    paths: sortedPaths(resourcePaths(types, 'v3')),
    components: {
      schemas: definitionsFor(types, 'v3'),
      securitySchemes: { BearerToken: { type: 'apiKey', description: 'Bearer token authentication', name: 'authorization', in: 'header' } },
    },
  };
}

/** "api/v1" or "apis/apps/v1": the key of a group/version in the v3 discovery document. */
export function groupVersionPath(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group === '' ? `api/${type.version}` : `apis/${type.group}/${type.version}`;
}

export interface OpenApiService {
  /** Whether `path` (no query) is one of ours. */
  handles(path: string): boolean;
  serve(req: IncomingMessage, res: ServerResponse, path: string): void;
}

const V2_PROTOBUF = ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'com.github.proto-openapi.spec.v2.v1.0+protobuf'];
/** The Content-Type of the protobuf form, whichever of the two names was asked for. */
const V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/** The form of /openapi/v2 an Accept header picks: its first clause naming JSON, protobuf or a wildcard; none is 406. */
function v2Form(header: string | undefined): 'json' | 'protobuf' | undefined {
  if (header === undefined || header.trim() === '') return 'json';
  for (const range of parseAccept(header)) {
    if (range.type !== '*' && range.type !== 'application') continue;
    if (range.subtype === 'json' || range.subtype === '*') return 'json';
    if (V2_PROTOBUF.includes(range.subtype)) return 'protobuf';
  }
  return undefined;
}

/** Picks JSON from an Accept header. */
function acceptsJson(header: string | undefined): boolean {
  if (header === undefined || header.trim() === '') return true;
  for (const range of parseAccept(header)) {
    if (range.type === '*' || (range.type === 'application' && (range.subtype === 'json' || range.subtype === '*'))) return true;
  }
  return false;
}

/**
 * `extraV3Paths`: more entries of the v3 discovery document (the extension
 * servers' group/versions, served by the aggregator's proxy).
 */
export function createOpenApiService(
  types: ResourceType[],
  version: string,
  extraV3Paths?: () => Record<string, { serverRelativeURL: string }>,
  extraV2?: { specs: () => { key: string; specs: Record<string, unknown>[] }; merge: (local: Record<string, unknown>, remote: readonly Record<string, unknown>[]) => Record<string, unknown> },
): OpenApiService {
  const groupVersions = new Map<string, ResourceType[]>();
  for (const t of types) {
    const key = groupVersionPath(t);
    groupVersions.set(key, [...(groupVersions.get(key) ?? []), t]);
  }
  let v2: CachedV2 | undefined;
  let localV2: Record<string, unknown> | undefined;
  // `extraV2`: the extension servers' specs merged into ours, remade when they change.
  let v2Key = '';
  const v2Document = (): CachedV2 => {
    localV2 ??= buildOpenApiV2(types, version);
    const extra = extraV2?.specs();
    if (extra === undefined || extra.specs.length === 0) {
      if (v2 === undefined || v2Key !== '') v2 = cachedV2(localV2);
      v2Key = '';
      return v2;
    }
    if (v2 === undefined || v2Key !== extra.key) {
      v2 = cachedV2(extraV2!.merge(localV2, extra.specs));
      v2Key = extra.key;
    }
    return v2;
  };
  const v3 = new Map<string, CachedDocument>();
  let discovery: CachedDocument | undefined;

  const v3Document = (gv: string): CachedDocument | undefined => {
    const members = groupVersions.get(gv);
    if (members === undefined) return undefined;
    let doc = v3.get(gv);
    if (doc === undefined) {
      doc = cachedDocument(buildOpenApiV3(members, version));
      v3.set(gv, doc);
    }
    return doc;
  };
  // The discovery document with the extra entries, remade when they change.
  let merged: { key: string; doc: CachedDocument } | undefined;
  const discoveryDocument = (): CachedDocument => {
    if (discovery === undefined) {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const gv of [...groupVersions.keys()].sort()) {
        paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${v3Document(gv)!.etag}` };
      }
      discovery = cachedDocument({ paths });
    }
    const extra = extraV3Paths?.() ?? {};
    if (Object.keys(extra).length === 0) return discovery;
    const key = JSON.stringify(extra);
    if (merged?.key !== key) {
      const paths = { ...(JSON.parse(discovery.body.toString('utf8')) as { paths: Record<string, unknown> }).paths, ...extra };
      const sorted = Object.fromEntries(Object.keys(paths).sort().map((k) => [k, paths[k]]));
      merged = { key, doc: cachedDocument({ paths: sorted }) };
    }
    return merged.doc;
  };

  const send = (req: IncomingMessage, res: ServerResponse, doc: CachedDocument, headers: Record<string, string> = {}): void => {
    res.setHeader('Content-Type', headers['Content-Type'] ?? 'application/json');
    res.setHeader('Etag', `"${doc.etag}"`);
    res.setHeader('Last-Modified', doc.lastModified);
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    const match = req.headers['if-none-match'];
    if (match !== undefined && match.split(',').some((tag) => tag.trim() === `"${doc.etag}"` || tag.trim() === '*')) {
      res.writeHead(304);
      res.end();
      return;
    }
    res.setHeader('Content-Length', doc.body.length);
    res.writeHead(200);
    res.end(req.method === 'HEAD' ? undefined : doc.body);
  };
  const plain = (res: ServerResponse, code: number, text: string): void => {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.writeHead(code);
    res.end(text);
  };

  return {
    handles: (path) => path === '/openapi/v2' || path === '/openapi/v3' || path.startsWith('/openapi/v3/'),
    serve(req, res, path) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'Method Not Allowed\n');
      if (path === '/openapi/v2') {
        res.setHeader('Vary', 'Accept');
        const form = v2Form(req.headers.accept);
        // Nothing we serve was asked for: upstream answers 406 with no body and lists no types either.
        if (form === undefined) return plain(res, 406, '');
        const doc = v2Document();
        if (form === 'protobuf') return send(req, res, doc.protobuf(), { 'Content-Type': V2_PROTOBUF_CONTENT_TYPE });
        return send(req, res, doc.json);
      }
      if (path === '/openapi/v3') return send(req, res, discoveryDocument());
      const gv = path.slice('/openapi/v3/'.length);
      const doc = v3Document(gv);
      if (doc === undefined) return plain(res, 404, '404 page not found\n');
      res.setHeader('Vary', 'Accept');
      if (!acceptsJson(req.headers.accept)) return plain(res, 406, '');
      const hash = new URL(req.url ?? '/', 'http://apiary.invalid').searchParams.get('hash');
      if (hash !== null && hash !== '') {
        if (hash !== doc.etag) {
          res.setHeader('Location', `/openapi/v3/${gv}?hash=${doc.etag}`);
          return plain(res, 301, '');
        }
        const expires = new Date(Date.now() + 365 * 24 * 3600 * 1000).toUTCString();
        return send(req, res, doc, { 'Cache-Control': 'public, immutable', Expires: expires });
      }
      return send(req, res, doc);
    },
  };
}
