// Generated names, uids and the two timestamp wire formats of meta/v1.
//
// Contract:
// - generateNameSuffix(): 5 characters from upstream's alphabet (no vowels, no
//   look-alike digits), as utilrand.String(5). `random` returns [0, 1) and
//   defaults to a crypto-backed source; tests pass their own.
// - generateName(base): upstream's SimpleNameGenerator — base cut to 58 bytes
//   so the result fits in 63, then the suffix.
// - formatTimestamp: metav1.Time, RFC 3339 UTC, whole seconds (truncated).
// - formatMicroTime: metav1.MicroTime, six fractional digits always.
// - Time and randomness come in as parameters (Clock, random) so tests control them.

import { randomInt, randomUUID } from 'node:crypto';

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const SUFFIX_LENGTH = 5;
const MAX_NAME_LENGTH = 63;
const MAX_GENERATED_BASE_LENGTH = MAX_NAME_LENGTH - SUFFIX_LENGTH;

const cryptoRandom = (): number => randomInt(0, 2 ** 32) / 2 ** 32;

export function generateNameSuffix(random: () => number = cryptoRandom): string {
  let s = '';
  for (let i = 0; i < SUFFIX_LENGTH; i++) {
    const idx = Math.min(ALPHABET.length - 1, Math.floor(random() * ALPHABET.length));
    s += ALPHABET[idx];
  }
  return s;
}

/** metadata.generateName → metadata.name, as upstream's names.SimpleNameGenerator. */
export function generateName(base: string, random?: () => number): string {
  // Names are ASCII once validated; slicing by code units matches Go's byte slice for them.
  const cut = base.length > MAX_GENERATED_BASE_LENGTH ? base.slice(0, MAX_GENERATED_BASE_LENGTH) : base;
  return cut + generateNameSuffix(random);
}

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

function dateAndTime(d: Date): string {
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`
  );
}

/** metav1.Time on the wire: 2026-11-21T10:00:00Z. */
export function formatTimestamp(d: Date): string {
  return `${dateAndTime(d)}Z`;
}

/** metav1.MicroTime on the wire: 2026-11-21T10:00:00.123456Z (JS dates carry milliseconds, so the last three digits are 0). */
export function formatMicroTime(d: Date): string {
  return `${dateAndTime(d)}.${pad(d.getUTCMilliseconds(), 3)}000Z`;
}

/** A fresh object uid (UUID v4). */
export function newUid(): string {
  return randomUUID();
}
