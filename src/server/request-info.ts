// Request info: what a request is about, read from its method, path and query
// alone (no knowledge of which resources exist), the way upstream's
// RequestInfoFactory does it (k8s.io/apiserver/pkg/endpoints/request).
//
//   /api/v1/namespaces/{ns}/{resource}[/{name}[/{subresource}]]
//   /api/v1/{resource}[/{name}[/{subresource}]]
//   /apis/{group}/{version}/...                (same shapes)
//   /api/v1/watch/...  /apis/g/v/watch/...     (legacy watch paths: verb "watch")
//
// Anything else (/healthz, /version, /api, /apis/{group}, …) is a non-resource
// request: isResourceRequest false, verb the lower-cased method.

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The path without its query. */
  path: string;
  /** The parsed query (read once per request: routing, handlers and health checks take it from here). */
  query: URLSearchParams;
  /** get, list, watch, create, update, patch, delete, deletecollection (or the method for non-resource requests). */
  verb: string;
  /** "api" or "apis" for resource requests. */
  apiPrefix: string;
  apiGroup: string;
  apiVersion: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path segments from the resource on ("configmaps", "a", "status"). */
  parts: string[];
}

// Path segments after a namespace name that are subresources of the namespace itself.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Record<string, string> = {
  GET: 'get',
  HEAD: 'get',
  POST: 'create',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

/** Go's strconv.ParseBool, which upstream uses for boolean query parameters. */
export function parseBool(value: string | null): boolean | undefined {
  if (value === null) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/**
 * The path and query of a request target as Go's net/http gives a handler
 * (req.URL.Path, req.URL.Query()): the path percent-decoded as a whole and
 * nothing else — dot segments stay segments (`/namespaces/a/../b/secrets`
 * names a resource "..", which no group serves: 404; a name `..` or `%2e%2e`
 * is refused by the store), and `%2f` splits a segment as a `/` does. WHATWG
 * URL parsing (`new URL`) would resolve the dots before routing and route the
 * request somewhere its authorization did not look.
 */
export function splitTarget(rawUrl: string): { path: string; query: URLSearchParams } {
  const { rawPath, query } = splitRawTarget(rawUrl);
  return { path: rawPath.includes('%') ? percentDecode(rawPath) : rawPath, query };
}

const ESCAPE = /(?:%[0-9A-Fa-f]{2})+/g;

/** Go's PathUnescape for a path of valid escapes; a malformed `%` is left as it is. Bytes that are not UTF-8 become U+FFFD. */
function percentDecode(path: string): string {
  return path.replace(ESCAPE, (run) => {
    const bytes = Buffer.alloc(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    return bytes.toString('utf8');
  });
}

/** What a request is about, from its method and target (see the module comment). */
export function parseRequestInfo(method: string, rawUrl: string): RequestInfo {
  const { rawPath, query } = splitRawTarget(rawUrl);
  // Clients send the same few paths again and again: the path's part of the
  // answer is kept (its parts array is shared, and read only), the rest is this request's.
  const key = `${method} ${rawPath}`;
  let shape = shapes.get(key);
  if (shape === undefined) {
    shape = pathShape(method, rawPath.includes('%') ? percentDecode(rawPath) : rawPath);
    if (shapes.size >= SHAPES_MAX) shapes.clear();
    shapes.set(key, shape);
  }
  const info: RequestInfo = {
    isResourceRequest: shape.isResourceRequest,
    path: shape.path,
    query,
    verb: shape.verb,
    apiPrefix: shape.apiPrefix,
    apiGroup: shape.apiGroup,
    apiVersion: shape.apiVersion,
    namespace: shape.namespace,
    resource: shape.resource,
    subresource: shape.subresource,
    name: shape.name,
    parts: shape.parts,
  };
  // A GET without a name is a list, or a watch when ?watch is true.
  if (info.isResourceRequest && info.name === '' && info.verb === 'get') {
    info.verb = parseBool(query.get('watch')) === true ? 'watch' : 'list';
  }
  return info;
}

/** The paths whose shapes are kept; past this many the map starts again (names vary without bound). */
const SHAPES_MAX = 512;
const shapes = new Map<string, Readonly<Omit<RequestInfo, 'query'>>>();

/** The target's raw path (not yet percent-decoded) and its parsed query. */
function splitRawTarget(rawUrl: string): { rawPath: string; query: URLSearchParams } {
  if (!rawUrl.startsWith('/')) {
    // The absolute form (`http://host/path`): its path and query, as Go reads them.
    const url = new URL(rawUrl);
    return splitRawTarget(`${url.pathname}${url.search}`);
  }
  const hash = rawUrl.indexOf('#');
  const target = hash < 0 ? rawUrl : rawUrl.slice(0, hash);
  const q = target.indexOf('?');
  return { rawPath: q < 0 ? target : target.slice(0, q), query: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)) };
}

/** Everything of a request's info that its method and (decoded) path decide; a GET without a name stays verb "get". */
function pathShape(method: string, path: string): Readonly<Omit<RequestInfo, 'query'>> {
  const info: Omit<RequestInfo, 'query'> = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };

  let parts = path.replace(/^\/+|\/+$/g, '').split('/').filter((p, i, all) => !(p === '' && all.length === 1));
  if (parts.length === 0) return info;
  const prefix = parts[0]!;
  if (prefix !== 'api' && prefix !== 'apis') return info;
  parts = parts.slice(1);

  // /api/{version}/… or /apis/{group}/{version}/…: fewer segments is discovery.
  if (prefix === 'apis') {
    if (parts.length < 3) return info;
    info.apiGroup = parts[0]!;
    parts = parts.slice(1);
  } else if (parts.length < 2) {
    return info;
  }
  info.apiPrefix = prefix;
  info.apiVersion = parts[0]!;
  parts = parts.slice(1);
  info.isResourceRequest = true;

  let verb = METHOD_VERBS[method.toUpperCase()] ?? '';
  if (parts[0] === 'watch') {
    verb = 'watch';
    parts = parts.slice(1);
    if (parts.length === 0) {
      // "/api/v1/watch" alone names no resource.
      info.isResourceRequest = false;
      return info;
    }
  }

  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      info.namespace = parts[1]!;
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2]!)) parts = parts.slice(2);
    }
  }

  info.parts = parts;
  info.resource = info.parts[0] ?? '';
  if (info.parts.length >= 2) info.name = info.parts[1]!;
  if (info.parts.length >= 3) info.subresource = info.parts[2]!;
  if (info.name === '' && verb === 'delete') verb = 'deletecollection';
  info.verb = verb;
  return info;
}
