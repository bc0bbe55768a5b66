// HPACK (RFC 7541), as much as a gRPC client needs: decoding the header
// blocks etcd sends (indexed fields, literals, the dynamic table, Huffman
// coded strings) and encoding request headers as literals that never touch
// the peer's dynamic table. Used by ./h2.ts.

/** RFC 7541 Appendix A: the static table (index 1..61). */
const STATIC: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** Static table indexes the request encoder uses. */
export const STATIC_AUTHORITY = 1;
export const STATIC_METHOD_POST = 3;
export const STATIC_PATH = 4;
export const STATIC_SCHEME_HTTP = 6;
export const STATIC_SCHEME_HTTPS = 7;
export const STATIC_CONTENT_TYPE = 31;

/** RFC 7541 Appendix B: each byte's Huffman code and its length in bits. */
// prettier-ignore
const HUFFMAN: readonly number[] = [
  0x1ff8, 13, 0x7fffd8, 23, 0xfffffe2, 28, 0xfffffe3, 28, 0xfffffe4, 28, 0xfffffe5, 28, 0xfffffe6, 28, 0xfffffe7, 28,
  0xfffffe8, 28, 0xffffea, 24, 0x3ffffffc, 30, 0xfffffe9, 28, 0xfffffea, 28, 0x3ffffffd, 30, 0xfffffeb, 28, 0xfffffec, 28,
  0xfffffed, 28, 0xfffffee, 28, 0xfffffef, 28, 0xffffff0, 28, 0xffffff1, 28, 0xffffff2, 28, 0x3ffffffe, 30, 0xffffff3, 28,
  0xffffff4, 28, 0xffffff5, 28, 0xffffff6, 28, 0xffffff7, 28, 0xffffff8, 28, 0xffffff9, 28, 0xffffffa, 28, 0xffffffb, 28,
  0x14, 6, 0x3f8, 10, 0x3f9, 10, 0xffa, 12, 0x1ff9, 13, 0x15, 6, 0xf8, 8, 0x7fa, 11,
  0x3fa, 10, 0x3fb, 10, 0xf9, 8, 0x7fb, 11, 0xfa, 8, 0x16, 6, 0x17, 6, 0x18, 6,
  0x0, 5, 0x1, 5, 0x2, 5, 0x19, 6, 0x1a, 6, 0x1b, 6, 0x1c, 6, 0x1d, 6,
  0x1e, 6, 0x1f, 6, 0x5c, 7, 0xfb, 8, 0x7ffc, 15, 0x20, 6, 0xffb, 12, 0x3fc, 10,
  0x1ffa, 13, 0x21, 6, 0x5d, 7, 0x5e, 7, 0x5f, 7, 0x60, 7, 0x61, 7, 0x62, 7,
  0x63, 7, 0x64, 7, 0x65, 7, 0x66, 7, 0x67, 7, 0x68, 7, 0x69, 7, 0x6a, 7,
  0x6b, 7, 0x6c, 7, 0x6d, 7, 0x6e, 7, 0x6f, 7, 0x70, 7, 0x71, 7, 0x72, 7,
  0xfc, 8, 0x73, 7, 0xfd, 8, 0x1ffb, 13, 0x7fff0, 19, 0x1ffc, 13, 0x3ffc, 14, 0x22, 6,
  0x7ffd, 15, 0x3, 5, 0x23, 6, 0x4, 5, 0x24, 6, 0x5, 5, 0x25, 6, 0x26, 6,
  0x27, 6, 0x6, 5, 0x74, 7, 0x75, 7, 0x28, 6, 0x29, 6, 0x2a, 6, 0x7, 5,
  0x2b, 6, 0x76, 7, 0x2c, 6, 0x8, 5, 0x9, 5, 0x2d, 6, 0x77, 7, 0x78, 7,
  0x79, 7, 0x7a, 7, 0x7b, 7, 0x7ffe, 15, 0x7fc, 11, 0x3ffd, 14, 0x1ffd, 13, 0xffffffc, 28,
  0xfffe6, 20, 0x3fffd2, 22, 0xfffe7, 20, 0xfffe8, 20, 0x3fffd3, 22, 0x3fffd4, 22, 0x3fffd5, 22, 0x7fffd9, 23,
  0x3fffd6, 22, 0x7fffda, 23, 0x7fffdb, 23, 0x7fffdc, 23, 0x7fffdd, 23, 0x7fffde, 23, 0xffffeb, 24, 0x7fffdf, 23,
  0xffffec, 24, 0xffffed, 24, 0x3fffd7, 22, 0x7fffe0, 23, 0xffffee, 24, 0x7fffe1, 23, 0x7fffe2, 23, 0x7fffe3, 23,
  0x7fffe4, 23, 0x1fffdc, 21, 0x3fffd8, 22, 0x7fffe5, 23, 0x3fffd9, 22, 0x7fffe6, 23, 0x7fffe7, 23, 0xffffef, 24,
  0x3fffda, 22, 0x1fffdd, 21, 0xfffe9, 20, 0x3fffdb, 22, 0x3fffdc, 22, 0x7fffe8, 23, 0x7fffe9, 23, 0x1fffde, 21,
  0x7fffea, 23, 0x3fffdd, 22, 0x3fffde, 22, 0xfffff0, 24, 0x1fffdf, 21, 0x3fffdf, 22, 0x7fffeb, 23, 0x7fffec, 23,
  0x1fffe0, 21, 0x1fffe1, 21, 0x3fffe0, 22, 0x1fffe2, 21, 0x7fffed, 23, 0x3fffe1, 22, 0x7fffee, 23, 0x7fffef, 23,
  0xfffea, 20, 0x3fffe2, 22, 0x3fffe3, 22, 0x3fffe4, 22, 0x7ffff0, 23, 0x3fffe5, 22, 0x3fffe6, 22, 0x7ffff1, 23,
  0x3ffffe0, 26, 0x3ffffe1, 26, 0xfffeb, 20, 0x7fff1, 19, 0x3fffe7, 22, 0x7ffff2, 23, 0x3fffe8, 22, 0x1ffffec, 25,
  0x3ffffe2, 26, 0x3ffffe3, 26, 0x3ffffe4, 26, 0x7ffffde, 27, 0x7ffffdf, 27, 0x3ffffe5, 26, 0xfffff1, 24, 0x1ffffed, 25,
  0x7fff2, 19, 0x1fffe3, 21, 0x3ffffe6, 26, 0x7ffffe0, 27, 0x7ffffe1, 27, 0x3ffffe7, 26, 0x7ffffe2, 27, 0xfffff2, 24,
  0x1fffe4, 21, 0x1fffe5, 21, 0x3ffffe8, 26, 0x3ffffe9, 26, 0xffffffd, 28, 0x7ffffe3, 27, 0x7ffffe4, 27, 0x7ffffe5, 27,
  0xfffec, 20, 0xfffff3, 24, 0xfffed, 20, 0x1fffe6, 21, 0x3fffe9, 22, 0x1fffe7, 21, 0x1fffe8, 21, 0x7ffff3, 23,
  0x3fffea, 22, 0x3fffeb, 22, 0x1ffffee, 25, 0x1ffffef, 25, 0xfffff4, 24, 0xfffff5, 24, 0x3ffffea, 26, 0x7ffff4, 23,
  0x3ffffeb, 26, 0x7ffffe6, 27, 0x3ffffec, 26, 0x3ffffed, 26, 0x7ffffe7, 27, 0x7ffffe8, 27, 0x7ffffe9, 27, 0x7ffffea, 27,
  0x7ffffeb, 27, 0xffffffe, 28, 0x7ffffec, 27, 0x7ffffed, 27, 0x7ffffee, 27, 0x7ffffef, 27, 0x7fffff0, 27, 0x3ffffee, 26,
];

/**
 * The Huffman code as a binary tree in one array: node n's children are at
 * tree[2n] (bit 0) and tree[2n + 1] (bit 1); a value >= 0 is a further node,
 * -1 - symbol a leaf, and -1000 a bit pattern no code starts with.
 */
const tree = buildTree();

function buildTree(): Int32Array {
  const NONE = -1000;
  const out: number[] = [NONE, NONE];
  let nodes = 1;
  for (let symbol = 0; symbol < 256; symbol++) {
    const code = HUFFMAN[2 * symbol]!;
    const length = HUFFMAN[2 * symbol + 1]!;
    let node = 0;
    for (let bit = length - 1; bit >= 0; bit--) {
      const slot = 2 * node + ((code >>> bit) & 1);
      if (bit === 0) {
        out[slot] = -1 - symbol;
      } else {
        if (out[slot] === NONE) {
          out[slot] = nodes++;
          out.push(NONE, NONE);
        }
        node = out[slot]!;
      }
    }
  }
  return Int32Array.from(out);
}

export class HpackError extends Error {}

const EMPTY = Buffer.alloc(0);

function huffmanDecode(data: Buffer, start: number, end: number): string {
  const bytes = Buffer.allocUnsafe(Math.ceil(((end - start) * 8) / 5));
  let n = 0;
  let node = 0;
  /** Bits read since the last complete symbol, and whether all were 1 (the padding rule). */
  let pending = 0;
  let allOnes = true;
  for (let i = start; i < end; i++) {
    const byte = data[i]!;
    for (let bit = 7; bit >= 0; bit--) {
      const b = (byte >>> bit) & 1;
      const next = tree[2 * node + b]!;
      pending++;
      allOnes &&= b === 1;
      if (next === -1000) throw new HpackError('invalid Huffman code');
      if (next < 0) {
        bytes[n++] = -1 - next;
        node = 0;
        pending = 0;
        allOnes = true;
      } else {
        node = next;
      }
    }
  }
  // Padding: fewer than 8 bits, all ones (a prefix of EOS).
  if (pending > 7 || !allOnes) throw new HpackError('invalid Huffman padding');
  return bytes.toString('latin1', 0, n);
}

/** One header block's fields, in order, as name/value pairs. */
export type HeaderList = Array<readonly [string, string]>;

/** A decoder's state: its dynamic table, kept across the header blocks of one connection. */
export class HpackDecoder {
  /** Newest first. */
  private readonly table: Array<readonly [string, string]> = [];
  private size = 0;
  private maxSize: number;

  /** maxSize: the SETTINGS_HEADER_TABLE_SIZE this side announced (4096 unless set). */
  constructor(private readonly limit = 4096) {
    this.maxSize = limit;
  }

  /** The block being decoded and the position in it (fields, not closures: this runs for every answer). */
  private block: Buffer = Buffer.alloc(0);
  private pos = 0;

  decode(block: Buffer): HeaderList {
    const out: HeaderList = [];
    this.block = block;
    this.pos = 0;
    while (this.pos < block.length) {
      const b = block[this.pos]!;
      if (b & 0x80) {
        out.push(this.entry(this.int(7)));
      } else if (b & 0x40) {
        const index = this.int(6);
        const name = index === 0 ? this.str() : this.entry(index)[0];
        const field = [name, this.str()] as const;
        this.add(field);
        out.push(field);
      } else if (b & 0x20) {
        const size = this.int(5);
        if (size > this.limit) throw new HpackError('dynamic table size update above the limit');
        this.maxSize = size;
        this.evict(0);
      } else {
        // Literal without indexing (0000) or never indexed (0001): a 4-bit prefix.
        const index = this.int(4);
        const name = index === 0 ? this.str() : this.entry(index)[0];
        out.push([name, this.str()]);
      }
    }
    this.block = EMPTY;
    return out;
  }

  private int(prefixBits: number): number {
    const block = this.block;
    const mask = (1 << prefixBits) - 1;
    let value = block[this.pos++]! & mask;
    if (value < mask) return value;
    let shift = 0;
    for (;;) {
      if (this.pos >= block.length) throw new HpackError('truncated integer');
      const b = block[this.pos++]!;
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if ((b & 0x80) === 0) return value;
      if (shift > 28) throw new HpackError('integer too large');
    }
  }

  private str(): string {
    const block = this.block;
    if (this.pos >= block.length) throw new HpackError('truncated string');
    const huffman = (block[this.pos]! & 0x80) !== 0;
    const length = this.int(7);
    const end = this.pos + length;
    if (end > block.length) throw new HpackError('truncated string');
    const value = huffman ? huffmanDecode(block, this.pos, end) : block.toString('latin1', this.pos, end);
    this.pos = end;
    return value;
  }

  private entry(index: number): readonly [string, string] {
    if (index >= 1 && index <= STATIC.length) return STATIC[index - 1]!;
    const field = this.table[index - STATIC.length - 1];
    if (field === undefined) throw new HpackError(`header index ${index} out of range`);
    return field;
  }

  private add(field: readonly [string, string]): void {
    const size = field[0].length + field[1].length + 32;
    this.evict(size);
    if (size <= this.maxSize) {
      this.table.unshift(field);
      this.size += size;
    }
  }

  /** Evicts the oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.table.length > 0 && this.size + room > this.maxSize) {
      const field = this.table.pop()!;
      this.size -= field[0].length + field[1].length + 32;
    }
  }
}

// -- encoding ----------------------------------------------------------------

function encodeInt(out: number[], first: number, prefixBits: number, value: number): void {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(first | value);
    return;
  }
  out.push(first | max);
  value -= max;
  while (value >= 128) {
    out.push((value % 128) | 0x80);
    value = Math.floor(value / 128);
  }
  out.push(value);
}

function encodeString(out: number[], value: string): void {
  const bytes = Buffer.from(value, 'latin1');
  encodeInt(out, 0, 7, bytes.length);
  for (const b of bytes) out.push(b);
}

/** A field whose name is static table entry `index`: indexed if the value matches too, else a literal without indexing. */
export function encodeIndexedName(out: number[], index: number, value: string): void {
  encodeInt(out, 0x00, 4, index);
  encodeString(out, value);
}

export function encodeIndexed(out: number[], index: number): void {
  encodeInt(out, 0x80, 7, index);
}

/** A literal field without indexing, with a literal name. */
export function encodeLiteral(out: number[], name: string, value: string): void {
  out.push(0x00);
  encodeString(out, name);
  encodeString(out, value);
}
