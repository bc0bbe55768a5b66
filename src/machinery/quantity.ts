// resource.Quantity (k8s.io/apimachinery/pkg/api/resource): parsing, exact
// arithmetic and the canonical string form that the API server writes back.
//
// A quantity is an exact decimal: unscaled × 10^scale, kept in BigInt. Parsing
// follows upstream step by step, including its quirks, because the string a
// client reads back must be the one a real cluster returns:
// - "1Gi", "100m", "1.5", "2e3", "+1" … ; suffixes n u m "" k M G T P E (decimal
//   SI), Ki Mi Gi Ti Pi Ei (binary SI), e<int>/E<int> (decimal exponent).
// - A string already in canonical form is remembered and printed unchanged
//   (so "+1" and "01" read back as sent, as upstream does).
// - Values that need the slow path are rounded up (away from zero) to
//   nano precision and capped at 2^63-1.
// - toString(): canonical form — "0", or an integer mantissa with the largest
//   suffix that keeps it exact (1500m, 1536Mi, 1e3 stays in exponent form).
//
// Contract: parseQuantity throws QuantityParseError with upstream's message;
// a Quantity is immutable (add/sub return new ones).

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

const SPLIT_RE = '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$';
export const QUANTITY_FORMAT_ERROR = `quantities must match the regular expression '${SPLIT_RE}'`;
export const QUANTITY_NUMERIC_ERROR = 'unable to parse numeric part of quantity';
export const QUANTITY_SUFFIX_ERROR = "unable to parse quantity's suffix";

export class QuantityParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuantityParseError';
  }
}

const INT64_MAX = 2n ** 63n - 1n;
const NANO = -9;

const DEC_SUFFIXES: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DEC_BY_EXP = new Map(Object.entries(DEC_SUFFIXES).map(([s, e]) => [e, s]));
const BIN_BY_EXP = new Map(Object.entries(BIN_SUFFIXES).map(([s, e]) => [e, s]));

function own(table: Record<string, number>, key: string): number | undefined {
  return Object.prototype.hasOwnProperty.call(table, key) ? table[key] : undefined;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);
const abs = (n: bigint): bigint => (n < 0n ? -n : n);
const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

export class Quantity {
  /** Set only when the parsed text was already canonical. */
  private readonly cached: string;

  constructor(
    /** value = unscaled × 10^scale */
    readonly unscaled: bigint,
    readonly scale: number,
    readonly format: QuantityFormat,
    cached = '',
  ) {
    this.cached = cached;
  }

  isZero(): boolean {
    return this.unscaled === 0n;
  }

  sign(): -1 | 0 | 1 {
    return this.unscaled < 0n ? -1 : this.unscaled > 0n ? 1 : 0;
  }

  /** ceil(|q| × 10^-scale) with q's sign: upstream's ScaledValue (rounds away from zero). */
  scaledValue(scale: number): bigint {
    const shift = this.scale - scale;
    if (shift >= 0) return this.unscaled * pow10(shift);
    const div = pow10(-shift);
    const q = abs(this.unscaled) / div;
    const rounded = abs(this.unscaled) % div === 0n ? q : q + 1n;
    return this.unscaled < 0n ? -rounded : rounded;
  }

  /** The value in whole units, rounded away from zero (upstream's Value()). */
  value(): bigint {
    return this.scaledValue(0);
  }

  /** The value in thousandths, rounded away from zero (upstream's MilliValue()). */
  milliValue(): bigint {
    return this.scaledValue(-3);
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    const s = Math.min(this.scale, other.scale);
    const a = this.unscaled * pow10(this.scale - s);
    const b = other.unscaled * pow10(other.scale - s);
    return a < b ? -1 : a > b ? 1 : 0;
  }

  /** Exact sum; keeps this format unless this is zero (upstream's Add). */
  add(other: Quantity): Quantity {
    const s = Math.min(this.scale, other.scale);
    const sum = this.unscaled * pow10(this.scale - s) + other.unscaled * pow10(other.scale - s);
    return new Quantity(sum, s, this.isZero() ? other.format : this.format);
  }

  sub(other: Quantity): Quantity {
    return this.add(new Quantity(-other.unscaled, other.scale, other.format));
  }

  neg(): Quantity {
    return new Quantity(-this.unscaled, this.scale, this.format);
  }

  toString(): string {
    if (this.cached !== '') return this.cached;
    return canonical(this);
  }

  /** Quantities marshal as their string. */
  toJSON(): string {
    return this.toString();
  }
}

/** A quantity of whole units, e.g. quantityFromInt(3n, 'DecimalSI') → "3". */
export function quantityFromInt(n: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return new Quantity(n, 0, format);
}

/** A quantity of thousandths, e.g. quantityFromMilli(1500n) → "1500m". */
export function quantityFromMilli(n: bigint, format: QuantityFormat = 'DecimalSI'): Quantity {
  return new Quantity(n, -3, format);
}

function canonical(q: Quantity): string {
  if (q.isZero()) return '0';
  let format = q.format;
  if (format === 'BinarySI') {
    const inSmallRange = q.cmp(quantityFromInt(-1024n)) > 0 && q.cmp(quantityFromInt(1024n)) < 0;
    const exact = q.scale >= 0 || q.unscaled % pow10(-q.scale) === 0n;
    if (inSmallRange || !exact) format = 'DecimalSI';
    else {
      let n = abs(q.scaledValue(0));
      let e = 0;
      while (n >= 1024n && n % 1024n === 0n) {
        n /= 1024n;
        e++;
      }
      return `${q.unscaled < 0n ? '-' : ''}${n}${BIN_BY_EXP.get(e * 10) ?? ''}`;
    }
  }
  let n = abs(q.unscaled);
  let e = q.scale;
  while (n >= 10n && n % 10n === 0n) {
    n /= 10n;
    e++;
  }
  // Go's % keeps the dividend's sign, as JS's does.
  while (e % 3 !== 0) {
    n *= 10n;
    e--;
  }
  const number = `${q.unscaled < 0n ? '-' : ''}${n}`;
  if (format === 'DecimalExponent') return e === 0 ? number : `${number}e${e}`;
  const suffix = DEC_BY_EXP.get(e);
  // Beyond 'E' upstream prints no suffix (a wrong value); exponent form keeps it right.
  return suffix !== undefined ? number + suffix : `${number}e${e}`;
}

interface Parts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

/** Upstream's parseQuantityString, scanner for scanner. */
function splitQuantity(str: string): Parts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === '-') {
      positive = false;
      pos++;
    } else if (str[0] === '+') pos++;
  }
  // leading zeros
  for (;;) {
    if (pos >= end) return { positive, value: '0', num: '0', denom: '', suffix: '' };
    if (str[pos] !== '0') break;
    pos++;
  }
  let i = pos;
  while (i < end && isDigit(str[i])) i++;
  if (i >= end) return { positive, value: str, num: str.slice(pos), denom: '', suffix: '' };
  let num = str.slice(pos, i);
  pos = i;
  if (num === '') num = '0';
  let denom = '';
  if (str[pos] === '.') {
    pos++;
    i = pos;
    while (i < end && isDigit(str[i])) i++;
    denom = str.slice(pos, i);
    if (i >= end) return { positive, value: str, num, denom, suffix: '' };
    pos = i;
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  while (pos < end && 'eEinumkKMGTP'.includes(str[pos]!)) pos++;
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  if (str[pos] === '-' || str[pos] === '+') pos++;
  while (pos < end && isDigit(str[pos])) pos++;
  if (pos >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
  throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
}

function interpretSuffix(suffix: string): { base: 10 | 2; exponent: number; format: QuantityFormat } | null {
  const dec = own(DEC_SUFFIXES, suffix);
  if (dec !== undefined) return { base: 10, exponent: dec, format: 'DecimalSI' };
  const bin = own(BIN_SUFFIXES, suffix);
  if (bin !== undefined) return { base: 2, exponent: bin, format: 'BinarySI' };
  if (suffix.length > 1 && (suffix[0] === 'e' || suffix[0] === 'E')) {
    const rest = suffix.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return null;
    const n = BigInt(rest);
    if (n > INT64_MAX || n < -INT64_MAX - 1n) return null;
    // Go truncates the int64 to int32; exponents that large saturate the value anyway.
    return { base: 10, exponent: Number(BigInt.asIntN(32, n)), format: 'DecimalExponent' };
  }
  return null;
}

export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);
  if (str === '0') return new Quantity(0n, 0, 'DecimalSI', '0');
  // The scanner accepts only these characters; anything else fails its loops the same way.
  if (!/^[+\-0-9.eEinumkKMGTP]*$/.test(str)) throw new QuantityParseError(QUANTITY_FORMAT_ERROR);

  const { positive, value, num, denom, suffix } = splitQuantity(str);
  const sfx = interpretSuffix(suffix);
  if (sfx === null) throw new QuantityParseError(QUANTITY_SUFFIX_ERROR);
  const { base, exponent, format } = sfx;

  // Fast path: the value fits an int64 at nano precision or coarser.
  let precision = 0;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround((exponent * 3) / 10)) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= NANO) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      const result = v * mantissa;
      if (result <= INT64_MAX) {
        const signed = positive ? result : -result;
        const canonicalText =
          format === 'BinarySI'
            ? exponent % 10 === 0 && (v & 7n) !== 0n
            : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return new Quantity(signed, scale, format, canonicalText ? str : '');
      }
    }
  }

  // Slow path: exact decimal, rounded up to nano precision, capped at 2^63-1.
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) throw new QuantityParseError(QUANTITY_NUMERIC_ERROR);
  const fraction = m[3] ?? '';
  let unscaled = BigInt((m[2] ?? '') + fraction || '0');
  let s = -fraction.length;
  if (base === 10) s += exponent;
  else unscaled *= 1n << BigInt(exponent);

  let resultFormat = format;
  if (unscaled !== 0n) {
    if (s > 40) {
      // Far above the cap whatever the digits.
      unscaled = INT64_MAX;
      s = 0;
    } else {
      if (s < NANO) {
        if (s < NANO - 400) {
          // Any mantissa a request can carry is below one nano here: it rounds up to one.
          unscaled = 1n;
        } else {
          const div = pow10(NANO - s);
          const q = unscaled / div;
          unscaled = unscaled % div !== 0n ? q + 1n : q;
        }
        s = NANO;
      }
      const magnitude = s >= 0 ? unscaled * pow10(s) : unscaled;
      const cap = s >= 0 ? INT64_MAX : INT64_MAX * pow10(-s);
      if (magnitude > cap) {
        unscaled = INT64_MAX;
        s = 0;
      }
    }
    if (resultFormat === 'BinarySI' && s < 0 && unscaled < pow10(-s)) resultFormat = 'DecimalSI';
  }
  if (m[1] === '-' && unscaled !== 0n) unscaled = -unscaled;
  return new Quantity(unscaled, s, resultFormat);
}
