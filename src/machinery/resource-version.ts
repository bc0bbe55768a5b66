// resourceVersion query parameters and fields, parsed as upstream's storage
// layer does (apiserver pkg/storage APIObjectVersioner.ParseResourceVersion,
// reported by the etcd3 store as a 400 "invalid resource version: ...").
//
// Contract: '' / undefined / '0' → 0; a decimal unsigned 64-bit integer → its
// value; anything else → StatusError 400 BadRequest. Values above 2^53 lose
// precision as JS numbers but still compare as "too large" correctly enough.

import { badRequest } from './errors.js';

const UINT64_MAX = 18446744073709551615n;

/** Go's strconv.ParseUint(s, 10, 64) error text, or '' when s parses. */
function parseUintError(s: string): string {
  if (!/^[0-9]+$/.test(s)) return `strconv.ParseUint: parsing ${JSON.stringify(s)}: invalid syntax`;
  if (BigInt(s) > UINT64_MAX) return `strconv.ParseUint: parsing ${JSON.stringify(s)}: value out of range`;
  return '';
}

export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  const err = parseUintError(rv);
  if (err !== '') {
    // Upstream wraps a field error: resourceVersion: Invalid value: "x": <strconv error>.
    throw badRequest(`invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(rv)}: ${err}`);
  }
  return Number(rv);
}

/** The wire form of a revision: decimal, and '' for 0 (upstream's UpdateObject). */
export function formatResourceVersion(revision: number): string {
  return revision === 0 ? '' : String(revision);
}
