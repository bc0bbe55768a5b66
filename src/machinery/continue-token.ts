// Continue tokens for paginated lists, byte-compatible with upstream's
// (apiserver pkg/storage/continue.go): base64url without padding of the JSON
// {"v":"meta.k8s.io/v1","rv":<revision>,"start":"<key after the prefix>"}.
//
// Contract:
// - encodeContinue(key, keyPrefix, revision): `key` is the first key the next
//   page should read (callers pass lastKey + "\u0000"); it must start with
//   keyPrefix. The token stores the key without the prefix.
// - decodeContinue(token, keyPrefix) → { fromKey: keyPrefix + start, revision }.
//   A malformed token, unknown version, zero revision, empty start key or a
//   start key that is not already a clean path (path traversal) throws a 400
//   BadRequest "invalid continue token: continue key is not valid...", as the
//   etcd3 store reports it. A negative revision is passed through: upstream
//   reads such a continuation at the latest revision.

import { badRequest, internalError } from './errors.js';

const TOKEN_VERSION = 'meta.k8s.io/v1';
const GENERIC = 'continue key is not valid';

function invalidToken(detail: string): Error {
  return badRequest(`invalid continue token: ${detail}`);
}

/** JSON the way Go's encoding/json writes a string: HTML-safe escapes, \u00XX for controls. */
function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || ch === '<' || ch === '>' || ch === '&' || c === 0x2028 || c === 0x2029) {
      out += `\\u${c.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

export function encodeContinue(key: string, keyPrefix: string, revision: number): string {
  if (keyPrefix === '' || !key.startsWith(keyPrefix)) {
    throw internalError(
      new Error(`unable to encode next field: the key and key prefix do not match ${keyPrefix} ${key}`),
    );
  }
  const start = key.slice(keyPrefix.length);
  const json = `{"v":${goJsonString(TOKEN_VERSION)},"rv":${Math.trunc(revision)},"start":${goJsonString(start)}}`;
  return Buffer.from(json, 'utf8').toString('base64url');
}

const B64URL = /^[A-Za-z0-9_-]$/;

/** Go's base64.RawURLEncoding strictness: reports the offset of the first bad byte. */
function base64UrlError(token: string): string {
  // Go's decoder skips CR and LF wherever they are.
  const clean = token.replace(/[\r\n]/g, '');
  for (let i = 0; i < clean.length; i++) {
    if (!B64URL.test(clean[i]!)) return `illegal base64 data at input byte ${i}`;
  }
  if (clean.length % 4 === 1) return `illegal base64 data at input byte ${clean.length - 1}`;
  return '';
}

/** Go's path.Clean for a rooted path. */
export function cleanPath(p: string): string {
  const out: string[] = [];
  for (const part of p.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `/${out.join('/')}`;
}

/** Describes a JSON value's type as Go's json errors do. */
function goJsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'boolean') return 'bool';
  return typeof v === 'object' ? 'object' : typeof v;
}

export function decodeContinue(token: string, keyPrefix: string): { fromKey: string; revision: number } {
  const b64err = base64UrlError(token);
  if (b64err !== '') throw invalidToken(`${GENERIC}: ${b64err}`);
  const text = Buffer.from(token.replace(/[\r\n]/g, ''), 'base64url').toString('utf8');

  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Go's own syntax error texts depend on its scanner; these are its two commonest.
    const first = text.trimStart()[0];
    const detail =
      first === undefined ? 'unexpected end of JSON input' : `invalid character '${first}' looking for beginning of value`;
    throw invalidToken(`${GENERIC}: ${detail}`);
  }
  if (parsed === null) parsed = {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw invalidToken(
      `${GENERIC}: json: cannot unmarshal ${goJsonKind(parsed)} into Go value of type storage.continueToken`,
    );
  }
  const raw = parsed as Record<string, unknown>;
  const field = (name: string, goType: string, ok: (v: unknown) => boolean): unknown => {
    const v = raw[name];
    if (v === undefined || v === null) return undefined;
    if (!ok(v)) {
      const shown = typeof v === 'number' ? `number ${v}` : goJsonKind(v);
      throw invalidToken(
        `${GENERIC}: json: cannot unmarshal ${shown} into Go struct field continueToken.${name} of type ${goType}`,
      );
    }
    return v;
  };
  const version = (field('v', 'string', (v) => typeof v === 'string') as string | undefined) ?? '';
  const rv = (field('rv', 'int64', (v) => typeof v === 'number' && Number.isInteger(v)) as number | undefined) ?? 0;
  const start = (field('start', 'string', (v) => typeof v === 'string') as string | undefined) ?? '';

  if (version !== TOKEN_VERSION) {
    throw invalidToken(`${GENERIC}: server does not recognize this encoded version ${version}`);
  }
  if (rv === 0) throw invalidToken(`${GENERIC}: incorrect encoded start resourceVersion (version meta.k8s.io/v1)`);
  if (start === '') throw invalidToken(`${GENERIC}: encoded start key empty (version meta.k8s.io/v1)`);
  // A start key must already be clean, so prefix + key can never climb above the prefix.
  const key = start.startsWith('/') ? start : `/${start}`;
  if (cleanPath(key) !== key) throw invalidToken(`${GENERIC}: ${start}`);
  return { fromKey: keyPrefix + key.slice(1), revision: rv };
}
