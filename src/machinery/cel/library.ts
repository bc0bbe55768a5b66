// The Kubernetes CEL extension libraries (k8s.io/apiserver/pkg/cel/library and the cel-go
// extensions Kubernetes enables), added to one base environment that every CEL user in apiary
// (CRD validation rules, ValidatingAdmissionPolicy, matchConditions) clones.
//
// Covered: strings ext (charAt, replace, the rest is built in), lists (isSorted, sum, min, max,
// indexOf, lastIndexOf), regex (find, findAll), urls (url, isURL, getScheme/Host/Hostname/Port/
// EscapedPath/Query), quantity (quantity, isQuantity and its methods), sets (contains,
// equivalent, intersects), strings.quote. As in 1.32: no base64, no Quantity.sign().
// Also: format (format.named, format.dns1123Label() …, <Format>.validate), ip and cidr, the
// strings extension's `format`. Not covered: authz (ValidatingAdmissionPolicy only), ip.isCanonical.
//
// Regular expressions are Go's (RE2 syntax and semantics, machinery/re2.ts), as cel-go's.

import { registerAuthorizerLibrary } from './library-authz.js';
import { Environment, EvaluationError, Optional } from '@marcbachmann/cel-js';
import { parseQuantity, Quantity, quantityFromInt } from '../quantity.js';
import { compileGoRegexp, RegexpSyntaxError, type GoRegexp } from '../re2.js';
import {
  isQualifiedName,
  isValidLabelValue,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
} from '../validation.js';
import {
  CelCIDR,
  CelIP,
  containsCIDR,
  containsIP,
  isGlobalUnicast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isUnspecified,
  masked,
  parseCIDR,
  parseIP,
} from './library-net.js';

/** A CEL Quantity value: wraps machinery's exact decimal. */
export class CelQuantity {
  constructor(readonly q: Quantity) {}
  toString(): string {
    return this.q.toString();
  }
}

/** A CEL URL value: the parts Go's url.ParseRequestURI gives. */
export class CelURL {
  constructor(
    readonly source: string,
    readonly scheme: string,
    readonly host: string,
    readonly escapedPath: string,
    readonly rawQuery: string,
  ) {}
}

class SetsNamespace {}
class FormatNamespace {}
class IPNamespace {}

/** A named format of the format library: validate() returns its errors. */
export class NamedFormat {
  constructor(
    readonly name: string,
    readonly validate: (s: string) => string[],
  ) {}
}

const NAMED_FORMATS: Record<string, NamedFormat> = {
  dns1123Label: new NamedFormat('DNS1123Label', (s) => nameIsDNSLabel(s, false)),
  dns1123Subdomain: new NamedFormat('DNS1123Subdomain', (s) => nameIsDNSSubdomain(s, false)),
  dns1035Label: new NamedFormat('DNS1035Label', (s) => nameIsDNS1035Label(s, false)),
  qualifiedName: new NamedFormat('QualifiedName', isQualifiedName),
  dns1123LabelPrefix: new NamedFormat('DNS1123LabelPrefix', (s) => nameIsDNSLabel(s, true)),
  dns1123SubdomainPrefix: new NamedFormat('DNS1123SubdomainPrefix', (s) => nameIsDNSSubdomain(s, true)),
  dns1035LabelPrefix: new NamedFormat('DNS1035LabelPrefix', (s) => nameIsDNS1035Label(s, true)),
  labelValue: new NamedFormat('LabelValue', isValidLabelValue),
  uri: new NamedFormat('URI', (s) => (parseRequestURI(s) ? [] : [`parse ${JSON.stringify(s)}: invalid URI for request`])),
  uuid: new NamedFormat('uuid', (s) =>
    /^(?:urn:uuid:)?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s) ? [] : ['does not match the UUID format']),
  byte: new NamedFormat('byte', (s) => (/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s) ? [] : ['invalid base64'])),
  date: new NamedFormat('date', (s) => (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) ? [] : ['invalid date'])),
  datetime: new NamedFormat('datetime', (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)) ? [] : ['invalid datetime']),
};

/** A format() failure; argIndex names the argument at fault (none: too few arguments). */
export class FormatError extends EvaluationError {
  constructor(
    message: string,
    readonly argIndex: number | undefined,
  ) {
    super(message);
  }
}

/** Go's fmt for the strings extension's `format`: %s %d %f %e %x %X %o %b %%. */
export function formatString(template: string, args: unknown[]): string {
  let argIndex = 0;
  return template.replace(/%(\.(\d+))?([sdfeExXob%])/g, (_m, _p, precision: string | undefined, verb: string) => {
    if (verb === '%') return '%';
    if (argIndex >= args.length) throw new FormatError(`index ${argIndex} out of range`, undefined);
    const at = argIndex;
    const celError = (m: string): FormatError => new FormatError(m, at);
    const v = args[argIndex++];
    switch (verb) {
      case 's':
        return formatForS(v);
      case 'd':
        if (typeof v !== 'bigint') throw celError(`error during formatting: decimal clause can only be used on integers, was given ${typeNameOf(v)}`);
        return v.toString();
      case 'f':
        if (typeof v !== 'number') throw celError(`error during formatting: fixed-point clause can only be used on doubles, was given ${typeNameOf(v)}`);
        return Number(v).toFixed(precision === undefined ? 6 : Number(precision));
      case 'e':
        if (typeof v !== 'number') throw celError(`error during formatting: scientific clause can only be used on doubles, was given ${typeNameOf(v)}`);
        return scientific(v, precision === undefined ? 6 : Number(precision));
      case 'x':
      case 'X': {
        let out: string;
        if (typeof v === 'bigint') out = v.toString(16);
        else if (typeof v === 'string') out = Buffer.from(v).toString('hex');
        else if (v instanceof Uint8Array) out = Buffer.from(v).toString('hex');
        else throw celError(`error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given ${typeNameOf(v)}`);
        return verb === 'X' ? out.toUpperCase() : out;
      }
      case 'o':
        if (typeof v !== 'bigint') throw celError(`error during formatting: octal clause can only be used on integers, was given ${typeNameOf(v)}`);
        return v.toString(8);
      case 'b':
        if (typeof v === 'bigint') return v.toString(2);
        if (typeof v === 'boolean') return v ? '1' : '0';
        throw celError(`error during formatting: only integers and bools can be formatted as binary, was given ${typeNameOf(v)}`);
    }
    return '';
  });
}

/** cel-go's %e: "1.234500 × 10⁰³" (the exponent in superscript digits, at least two). */
function scientific(v: number, precision: number): string {
  const [mantissa, exp] = v.toExponential(precision).split('e') as [string, string];
  const sup = '⁰¹²³⁴⁵⁶⁷⁸⁹';
  const n = Math.abs(Number(exp));
  const digits = (n < 10 ? `0${n}` : String(n)).replace(/\d/g, (d) => sup[Number(d)]!);
  // narrow no-break spaces around the sign, as cel-go writes it
  return `${mantissa}\u202f×\u202f10${Number(exp) < 0 ? '⁻' : ''}${digits}`;
}

/** Go's netip.ParsePrefix error for s. */
function prefixError(s: string): string {
  const q = JSON.stringify(s);
  const slash = s.indexOf('/');
  if (slash < 0) return `netip.ParsePrefix(${q}): no '/'`;
  const addr = s.slice(0, slash);
  if (!parseIP(addr)) return `netip.ParsePrefix(${q}): ParseAddr(${JSON.stringify(addr)}): unable to parse IP`;
  return `netip.ParsePrefix(${q}): bad bits after slash: ${JSON.stringify(s.slice(slash + 1))}`;
}

function typeNameOf(v: unknown): string {
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (v === null) return 'null_type';
  if (Array.isArray(v)) return 'list';
  if (v instanceof Map) return 'map';
  return 'dyn';
}

function formatForS(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(formatForS).join(', ')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${formatForS(k)}:${formatForS(x)}`).join(', ')}}`;
  return String(v);
}
class StringsNamespace {}

const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

function celError(message: string): EvaluationError {
  return new EvaluationError(message);
}

/**
 * Go's regexp.Compile for CEL: the compiled pattern, or a CEL error with Go's message (the
 * Kubernetes regex library's find/findAll prefix it "Illegal regex: ", matches() does not).
 */
export function compileRegex(pattern: string, errorPrefix = ''): GoRegexp {
  try {
    return compileGoRegexp(pattern);
  } catch (e) {
    if (e instanceof RegexpSyntaxError) throw celError(errorPrefix + e.message);
    throw e;
  }
}

/** Go's url.ParseRequestURI, the parts CEL reads; undefined when Go would refuse it. */
export function parseRequestURI(s: string): CelURL | undefined {
  if (s === '' || /[\s\x00-\x1f\x7f]/.test(s)) return undefined;
  const frag = s.indexOf('#');
  if (frag >= 0) return undefined; // ParseRequestURI takes no fragment: '#' is invalid in the path
  let rest = s;
  let rawQuery = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let scheme = '';
  const sm = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (sm) {
    scheme = sm[1]!;
    rest = rest.slice(sm[0].length);
  } else if (!rest.startsWith('/')) {
    return undefined;
  }
  let host = '';
  if (scheme !== '' && rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
    const at = authority.lastIndexOf('@');
    host = at >= 0 ? authority.slice(at + 1) : authority;
    if (host.startsWith('[')) {
      if (!/^\[[0-9a-fA-F:.%]+\](:[0-9]*)?$/.test(host)) return undefined;
    } else if (!/^[^:]*(:[0-9]*)?$/.test(host)) return undefined;
  } else if (scheme !== '' && !rest.startsWith('/')) {
    return undefined; // an opaque URI is not a request URI
  }
  return new CelURL(s, scheme, host, rest, rawQuery);
}

function hostname(u: CelURL): string {
  const h = u.host;
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
  const c = h.indexOf(':');
  return c >= 0 ? h.slice(0, c) : h;
}

function port(u: CelURL): string {
  const h = u.host;
  const start = h.startsWith('[') ? h.indexOf(']') + 1 : 0;
  const c = h.indexOf(':', start);
  return c >= 0 ? h.slice(c + 1) : '';
}

function queryMap(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (raw === '') return out;
  for (const part of raw.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const dec = (x: string): string => {
      try {
        return decodeURIComponent(x.replace(/\+/g, ' '));
      } catch {
        return x;
      }
    };
    const k = dec(eq >= 0 ? part.slice(0, eq) : part);
    const v = dec(eq >= 0 ? part.slice(eq + 1) : '');
    const list = out.get(k);
    if (list) list.push(v);
    else out.set(k, [v]);
  }
  return out;
}

function toQuantity(s: string): CelQuantity {
  try {
    return new CelQuantity(parseQuantity(s));
  } catch (e) {
    throw celError(`quantity parse error: ${(e as Error).message}`);
  }
}

type Comparable = bigint | number | string | boolean | Date;

function compareValues(a: unknown, b: unknown): number {
  if (a instanceof CelQuantity && b instanceof CelQuantity) return a.q.cmp(b.q);
  const x = a as Comparable;
  const y = b as Comparable;
  return x < y ? -1 : x > y ? 1 : 0;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'bigint' || typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean') return a === b;
  return JSON.stringify(a, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ===
    JSON.stringify(b, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
}

function checkedInt(n: bigint): bigint {
  if (n > INT64_MAX || n < INT64_MIN) throw celError('integer overflow');
  return n;
}

function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    switch (ch) {
      case '\\': out += '\\\\'; break;
      case '"': out += '\\"'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\v': out += '\\v'; break;
      case '\x07': out += '\\a'; break;
      default: out += ch;
    }
  }
  return out + '"';
}

// The handlers the library calls take typed arguments we checked by signature.
type Handler = (...args: never[]) => unknown;

function register(env: Environment, signature: string, handler: Handler): void {
  env.registerFunction(signature, handler as (...args: unknown[]) => unknown);
}

function registerLibraries(env: Environment): void {
  registerAuthorizerLibrary(env);
  // strings ext (cel-go ext.Strings, version 2)
  register(env, 'string.charAt(int): string', (s: string, i: bigint) => {
    const chars = [...s];
    if (i < 0n || i > BigInt(chars.length)) throw celError(`index out of range: ${i}`);
    return chars[Number(i)] ?? '';
  });
  register(env, 'string.replace(string, string): string', (s: string, a: string, b: string) => s.split(a).join(b));
  register(env, 'string.replace(string, string, int): string', (s: string, a: string, b: string, n: bigint) => {
    if (n < 0n) return s.split(a).join(b);
    const parts = s.split(a);
    const k = Number(n);
    if (parts.length - 1 <= k) return parts.join(b);
    return parts.slice(0, k + 1).join(b) + a + parts.slice(k + 1).join(a);
  });
  env.registerType('k8s.strings', { ctor: StringsNamespace, fields: {} });
  env.registerConstant('strings', 'k8s.strings', new StringsNamespace());
  register(env, 'k8s.strings.quote(string): string', (_ns: StringsNamespace, s: string) => quote(s));

  // lists (k8s.io/apiserver/pkg/cel/library/lists.go)
  register(env, 'list<A>.isSorted(): bool', (l: unknown[]) => {
    for (let i = 1; i < l.length; i++) if (compareValues(l[i - 1], l[i]) > 0) return false;
    return true;
  });
  register(env, 'list<A>.sum(): A', (l: unknown[]) => {
    if (l.length === 0) return 0n;
    let acc: unknown = l[0];
    for (let i = 1; i < l.length; i++) {
      const v = l[i];
      if (typeof acc === 'bigint' && typeof v === 'bigint') acc = checkedInt(acc + v);
      else if (typeof acc === 'number' && typeof v === 'number') acc = acc + v;
      else if (acc instanceof CelQuantity && v instanceof CelQuantity) acc = new CelQuantity(acc.q.add(v.q));
      else throw celError('no such overload');
    }
    return acc;
  });
  const extreme = (name: string, sign: number) => (l: unknown[]) => {
    if (l.length === 0) throw celError(`${name} called on empty list`);
    let best = l[0];
    for (const v of l) if (compareValues(v, best) * sign > 0) best = v;
    return best;
  };
  register(env, 'list<A>.min(): A', extreme('min', -1));
  register(env, 'list<A>.max(): A', extreme('max', 1));
  register(env, 'list<A>.indexOf(A): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((v) => sameValue(v, x))));
  register(env, 'list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (sameValue(l[i], x)) return BigInt(i);
    return -1n;
  });

  // regex (library/regex.go)
  const ILLEGAL_REGEX = 'Illegal regex: ';
  register(env, 'string.find(string): string', (s: string, p: string) => compileRegex(p, ILLEGAL_REGEX).find(s));
  register(env, 'string.findAll(string): list<string>', (s: string, p: string) => compileRegex(p, ILLEGAL_REGEX).findAll(s, -1));
  register(env, 'string.findAll(string, int): list<string>', (s: string, p: string, n: bigint) =>
    compileRegex(p, ILLEGAL_REGEX).findAll(s, n < 0n ? -1 : n > BigInt(s.length + 1) ? s.length + 1 : Number(n)),
  );

  // urls (library/urls.go)
  env.registerType('kubernetes.URL', { ctor: CelURL, fields: {} });
  register(env, 'url(string): kubernetes.URL', (s: string) => {
    const u = parseRequestURI(s);
    if (!u) throw celError(`URL parse error during conversion from string: parse ${JSON.stringify(s)}: invalid URI for request`);
    return u;
  });
  register(env, 'isURL(string): bool', (s: string) => parseRequestURI(s) !== undefined);
  register(env, 'kubernetes.URL.getScheme(): string', (u: CelURL) => u.scheme);
  register(env, 'kubernetes.URL.getHost(): string', (u: CelURL) => u.host);
  register(env, 'kubernetes.URL.getHostname(): string', (u: CelURL) => hostname(u));
  register(env, 'kubernetes.URL.getPort(): string', (u: CelURL) => port(u));
  register(env, 'kubernetes.URL.getEscapedPath(): string', (u: CelURL) => u.escapedPath);
  register(env, 'kubernetes.URL.getQuery(): map<string, list<string>>', (u: CelURL) => queryMap(u.rawQuery));
  env.registerOperator('kubernetes.URL == kubernetes.URL', (a: CelURL, b: CelURL) => a.source === b.source);

  // quantity (library/quantity.go)
  env.registerType('kubernetes.Quantity', { ctor: CelQuantity, fields: {} });
  register(env, 'quantity(string): kubernetes.Quantity', (s: string) => toQuantity(s));
  register(env, 'isQuantity(string): bool', (s: string) => {
    try {
      parseQuantity(s);
      return true;
    } catch {
      return false;
    }
  });
  const Q = 'kubernetes.Quantity';
  register(env, `${Q}.isInteger(): bool`, (q: CelQuantity) => {
    const v = q.q.value();
    return v <= INT64_MAX && v >= INT64_MIN && q.q.cmp(quantityFromInt(v)) === 0;
  });
  register(env, `${Q}.asInteger(): int`, (q: CelQuantity) => {
    const v = q.q.value();
    if (v > INT64_MAX || v < INT64_MIN || q.q.cmp(quantityFromInt(v)) !== 0) throw celError('cannot convert value to integer');
    return v;
  });
  register(env, `${Q}.asApproximateFloat(): double`, (q: CelQuantity) => Number(q.q.unscaled) * 10 ** q.q.scale);
  register(env, `${Q}.add(${Q}): ${Q}`, (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.q.add(b.q)));
  register(env, `${Q}.add(int): ${Q}`, (a: CelQuantity, b: bigint) => new CelQuantity(a.q.add(quantityFromInt(b))));
  register(env, `${Q}.sub(${Q}): ${Q}`, (a: CelQuantity, b: CelQuantity) => new CelQuantity(a.q.sub(b.q)));
  register(env, `${Q}.sub(int): ${Q}`, (a: CelQuantity, b: bigint) => new CelQuantity(a.q.sub(quantityFromInt(b))));
  register(env, `${Q}.isLessThan(${Q}): bool`, (a: CelQuantity, b: CelQuantity) => a.q.cmp(b.q) < 0);
  register(env, `${Q}.isGreaterThan(${Q}): bool`, (a: CelQuantity, b: CelQuantity) => a.q.cmp(b.q) > 0);
  register(env, `${Q}.compareTo(${Q}): int`, (a: CelQuantity, b: CelQuantity) => BigInt(a.q.cmp(b.q)));
  env.registerOperator(`${Q} == ${Q}`, (a: CelQuantity, b: CelQuantity) => a.q.cmp(b.q) === 0);

  // strings ext: format
  register(env, 'string.format(list<dyn>): string', (t: string, args: unknown[]) => formatString(t, args));

  // format (library/format.go)
  env.registerType('kubernetes.NamedFormat', { ctor: NamedFormat, fields: {} });
  env.registerType('k8s.format', { ctor: FormatNamespace, fields: {} });
  env.registerConstant('format', 'k8s.format', new FormatNamespace());
  register(env, 'k8s.format.named(string): optional<kubernetes.NamedFormat>', (_n: FormatNamespace, name: string) =>
    Object.prototype.hasOwnProperty.call(NAMED_FORMATS, name) ? Optional.of(NAMED_FORMATS[name]) : Optional.none());
  for (const [name, f] of Object.entries(NAMED_FORMATS)) register(env, `k8s.format.${name}(): kubernetes.NamedFormat`, () => f);
  register(env, 'kubernetes.NamedFormat.validate(string): optional<list<string>>', (f: NamedFormat, s: string) => {
    const errs = f.validate(s);
    return errs.length === 0 ? Optional.none() : Optional.of(errs);
  });

  // ip and cidr (library/ip.go, cidr.go)
  env.registerType('net.IP', { ctor: CelIP, fields: {} });
  env.registerType('net.CIDR', { ctor: CelCIDR, fields: {} });
  env.registerType('k8s.ip', { ctor: IPNamespace, fields: {} });
  register(env, 'isIP(string): bool', (s: string) => parseIP(s) !== undefined);
  register(env, 'ip(string): net.IP', (s: string) => {
    const ip = parseIP(s);
    if (!ip) throw celError(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): unable to parse IP`);
    return ip;
  });
  register(env, 'string(net.IP): string', (ip: CelIP) => ip.toString());
  register(env, 'net.IP.family(): int', (ip: CelIP) => BigInt(ip.family));
  register(env, 'net.IP.isUnspecified(): bool', isUnspecified);
  register(env, 'net.IP.isLoopback(): bool', isLoopback);
  register(env, 'net.IP.isLinkLocalMulticast(): bool', isLinkLocalMulticast);
  register(env, 'net.IP.isLinkLocalUnicast(): bool', isLinkLocalUnicast);
  register(env, 'net.IP.isGlobalUnicast(): bool', isGlobalUnicast);
  env.registerOperator('net.IP == net.IP', (a: CelIP, b: CelIP) => a.toString() === b.toString());
  register(env, 'isCIDR(string): bool', (s: string) => parseCIDR(s) !== undefined);
  register(env, 'cidr(string): net.CIDR', (s: string) => {
    const c = parseCIDR(s);
    if (!c) throw celError(`network address parse error during conversion from string: network address parse error during conversion from string: ${prefixError(s)}`);
    return c;
  });
  register(env, 'string(net.CIDR): string', (c: CelCIDR) => c.toString());
  register(env, 'net.CIDR.containsIP(net.IP): bool', (c: CelCIDR, ip: CelIP) => containsIP(c, ip));
  register(env, 'net.CIDR.containsIP(string): bool', (c: CelCIDR, s: string) => {
    const ip = parseIP(s);
    if (!ip) throw celError(`IP Address ${JSON.stringify(s)} parse error during conversion from string: ParseAddr(${JSON.stringify(s)}): unable to parse IP`);
    return containsIP(c, ip);
  });
  register(env, 'net.CIDR.containsCIDR(net.CIDR): bool', (c: CelCIDR, o: CelCIDR) => containsCIDR(c, o));
  register(env, 'net.CIDR.containsCIDR(string): bool', (c: CelCIDR, s: string) => {
    const o = parseCIDR(s);
    if (!o) throw celError(`network address parse error during conversion from string: network address parse error during conversion from string: ${prefixError(s)}`);
    return containsCIDR(c, o);
  });
  register(env, 'net.CIDR.ip(): net.IP', (c: CelCIDR) => c.ip);
  register(env, 'net.CIDR.masked(): net.CIDR', (c: CelCIDR) => masked(c));
  register(env, 'net.CIDR.prefixLength(): int', (c: CelCIDR) => BigInt(c.prefixLength));
  env.registerOperator('net.CIDR == net.CIDR', (a: CelCIDR, b: CelCIDR) => a.toString() === b.toString());

  // sets (cel-go ext.Sets)
  env.registerType('k8s.sets', { ctor: SetsNamespace, fields: {} });
  env.registerConstant('sets', 'k8s.sets', new SetsNamespace());
  const has = (l: unknown[], x: unknown): boolean => l.some((v) => sameValue(v, x));
  register(env, 'k8s.sets.contains(list<A>, list<A>): bool', (_n: SetsNamespace, a: unknown[], b: unknown[]) => b.every((x) => has(a, x)));
  register(env, 'k8s.sets.equivalent(list<A>, list<A>): bool', (_n: SetsNamespace, a: unknown[], b: unknown[]) =>
    b.every((x) => has(a, x)) && a.every((x) => has(b, x)));
  register(env, 'k8s.sets.intersects(list<A>, list<A>): bool', (_n: SetsNamespace, a: unknown[], b: unknown[]) => b.some((x) => has(a, x)));

}

let base: Environment | undefined;

/**
 * The environment with every Kubernetes extension; clone it (`base.clone()`) to declare variables
 * and types. Options follow upstream's base environment: optional types (`.?field`, `optional.of`)
 * on; homogeneous aggregate literals are checked by compileExpression.
 */
export function kubernetesBaseEnvironment(): Environment {
  if (!base) {
    // Homogeneous list and map literals are enforced by expression.ts (cel-go exempts format's
    // argument list, which the library's own check cannot).
    base = new Environment({ homogeneousAggregateLiterals: false, enableOptionalTypes: true });
    registerLibraries(base);
  }
  return base;
}
