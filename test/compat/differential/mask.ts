// Masking: what two servers generate differently by design (uids,
// resourceVersions, timestamps, names made from generateName, continue tokens,
// allocated cluster IPs and node ports, the random suffix of the ServiceAccount
// admission's kube-api-access-xxxxx token volume) is replaced by a placeholder before
// the answers are compared. Nothing else is loosened: every other value is
// compared exactly.
//
// A placeholder keeps the shape: a time keeps its precision
// (`<time>` vs `<time.000000>` for MicroTime), so a format difference still
// shows. The same generated value met again later in the case (a uid in a
// message, a generated name in a Status) gets the same placeholder wherever
// it appears in a string.

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The generated values seen so far on one side in one case, with their placeholders. */
export class Masker {
  private readonly values = new Map<string, string>();
  /** Extra patterns (from the case step), applied to every string. */
  private patterns: RegExp[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  withPatterns(patterns: string[] | undefined): this {
    this.patterns = (patterns ?? []).map((p) => new RegExp(p, 'g'));
    return this;
  }

  private remember(value: string, placeholder: string): string {
    if (value === '') return value;
    if (!this.values.has(value)) this.values.set(value, placeholder);
    return this.values.get(value)!;
  }

  /** A masked copy of a decoded JSON body. */
  mask(value: unknown): Json {
    // Two passes: first learn the generated values (so a name generated in
    // items[1] is masked in a message of items[0] too), then rewrite.
    this.learn(value as Json, []);
    return this.rewrite(value as Json, []);
  }

  /** A masked copy of a text body. */
  maskText(text: string): string {
    return this.maskString(text);
  }

  private learn(value: Json, path: string[]): void {
    if (Array.isArray(value)) {
      value.forEach((v, i) => this.learn(v, [...path, String(i)]));
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const meta = value['metadata'];
    if (meta !== null && typeof meta === 'object' && !Array.isArray(meta)) {
      const { generateName, name, uid } = meta;
      if (typeof generateName === 'string' && typeof name === 'string' && name.startsWith(generateName) && name !== generateName) {
        this.remember(name, `${generateName}<random>`);
      }
      if (typeof uid === 'string') this.remember(uid, '<uid>');
    }
    if (value['kind'] === 'Service') this.learnService(value);
    for (const [k, v] of Object.entries(value)) this.learn(v, [...path, k]);
  }

  /** Cluster IPs and node ports are allocated at random on both sides. */
  private learnService(service: { [key: string]: Json }): void {
    const spec = service['spec'];
    if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return;
    const ips = [spec['clusterIP'], ...(Array.isArray(spec['clusterIPs']) ? spec['clusterIPs'] : [])];
    for (const ip of ips) if (typeof ip === 'string' && ip !== 'None' && ip !== '') this.remember(ip, '<clusterIP>');
  }

  private rewrite(value: Json, path: string[]): Json {
    if (Array.isArray(value)) return value.map((v, i) => this.rewrite(v, [...path, String(i)]));
    if (typeof value === 'string') return this.maskString(value);
    if (value === null || typeof value !== 'object') return value;
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) out[k] = this.rewriteField(k, v, path);
    return out;
  }

  private rewriteField(key: string, value: Json, path: string[]): Json {
    const parentKey = path[path.length - 1];
    if (typeof value === 'string' && value !== '') {
      // metadata of an object or a list (also a watch bookmark's), and the continue token that encodes one.
      if (parentKey === 'metadata' && (key === 'resourceVersion' || key === 'continue')) return `<${key}>`;
      if (key === 'uid') return '<uid>';
    }
    // Only Services have these (spec.ports[i].nodePort, spec.healthCheckNodePort).
    if ((key === 'nodePort' || key === 'healthCheckNodePort') && typeof value === 'number') return '<nodePort>';
    if (key === 'managedFields' && parentKey === 'metadata' && Array.isArray(value)) {
      // Entries are ordered by their times (whole seconds), which are masked: two writes that fall in one
      // second on one side and in two on the other come out in other orders. Compared in one order.
      const entries = value.map((e) => this.rewrite(e, [...path, key]));
      return entries.sort((a, b) => entryOrder(a).localeCompare(entryOrder(b)));
    }
    return this.rewrite(value, [...path, key]);
  }

  private maskString(text: string): string {
    let out = text;
    // Longest values first: a remembered "10.0.0.11" must not eat the start of "10.0.0.116".
    const known = [...this.values].sort((a, b) => b[0].length - a[0].length);
    for (const [value, placeholder] of known) {
      if (out.includes(value)) out = out.split(value).join(placeholder);
    }
    out = out.replace(TOKEN_VOLUME, 'kube-api-access-<random>');
    out = out.replace(TIME, (match, fraction: string | undefined) => (this.isNow(match) ? `<time${fraction === undefined ? '' : '.' + '0'.repeat(fraction.length - 1)}>` : match));
    for (const pattern of this.patterns) out = out.replace(pattern, '<masked>');
    return out;
  }

  /** Timestamps within a day of now are the server's; a case's own fixed times stay as they are. */
  private isNow(text: string): boolean {
    const at = Date.parse(text);
    return Number.isFinite(at) && Math.abs(at - this.now()) < 24 * 3600 * 1000;
  }
}

/** ServiceAccount admission names the projected token volume kube-api-access-<5 random characters>. */
const TOKEN_VOLUME = /\bkube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}\b/g;
const TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(?:Z|[+-]\d{2}:\d{2})/g;

/** A managedFields entry's identity (manager, operation, subresource, apiVersion), for a time-independent order. */
function entryOrder(entry: Json): string {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return '';
  return JSON.stringify([entry['manager'] ?? '', entry['operation'] ?? '', entry['subresource'] ?? '', entry['apiVersion'] ?? '']);
}
