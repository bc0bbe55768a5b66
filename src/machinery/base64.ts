// Base64 as Go's encoding/base64 StdEncoding decodes it: kube-apiserver
// decodes every `[]byte` field of a JSON body this way, so what it accepts,
// what it rejects and the byte offset it names in the error are this module's
// contract. Node's Buffer.from(s, 'base64') is lenient (it skips bad
// characters and accepts missing padding), so it cannot answer either.
//
// Contract: decodeStdBase64(text) returns the bytes, or throws
// Base64CorruptInputError whose message is Go's CorruptInputError text,
// `illegal base64 data at input byte N`. Go's decoder is not strict: '\r' and
// '\n' anywhere are skipped and non-zero trailing bits are dropped, so a
// value decodes to bytes whose canonical encoding (Buffer's 'base64') may differ
// from the text sent, as the object upstream stores does.

const PAD = 0x3d; // '='

const DECODE_MAP = (() => {
  const map = new Int16Array(256).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) map[alphabet.charCodeAt(i)] = i;
  return map;
})();

export class Base64CorruptInputError extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
    this.name = 'Base64CorruptInputError';
  }
}

const isNewline = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;

/** Decodes `text` (its UTF-8 bytes, as Go sees a JSON string) the way base64.StdEncoding.DecodeString does. */
export function decodeStdBase64(text: string): Buffer {
  const src = Buffer.from(text, 'utf8');
  const out: number[] = [];
  let si = 0;
  // One quantum (four characters, newlines skipped) per turn, as Go's decodeQuantum.
  while (si < src.length) {
    const quantum = [0, 0, 0, 0];
    let length = 4;
    let trailingGarbage = -1;
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out);
        // StdEncoding pads, so an unfinished quantum is always corrupt.
        throw new Base64CorruptInputError(si - j);
      }
      const c = src[si]!;
      si++;
      const value = DECODE_MAP[c]!;
      if (value >= 0) {
        quantum[j] = value;
        continue;
      }
      if (isNewline(c)) {
        j--;
        continue;
      }
      if (c !== PAD) throw new Base64CorruptInputError(si - 1);
      // Padding: only after two or three characters.
      if (j < 2) throw new Base64CorruptInputError(si - 1);
      if (j === 2) {
        // "==" expected; the first is consumed.
        while (si < src.length && isNewline(src[si])) si++;
        if (si === src.length) throw new Base64CorruptInputError(src.length);
        if (src[si] !== PAD) throw new Base64CorruptInputError(si - 1);
        si++;
      }
      while (si < src.length && isNewline(src[si])) si++;
      if (si < src.length) trailingGarbage = si;
      length = j;
      break;
    }
    const bits = (quantum[0]! << 18) | (quantum[1]! << 12) | (quantum[2]! << 6) | quantum[3]!;
    const bytes = [(bits >> 16) & 0xff, (bits >> 8) & 0xff, bits & 0xff];
    out.push(...bytes.slice(0, length - 1));
    if (trailingGarbage >= 0) throw new Base64CorruptInputError(trailingGarbage);
  }
  return Buffer.from(out);
}
