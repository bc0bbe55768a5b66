// Field selectors, parsed and matched as upstream's k8s.io/apimachinery/pkg/fields.
//
// Grammar: terms separated by unescaped commas (AND); each term is
// FIELD ("!=" | "==" | "=") VALUE, split at the first operator. In values,
// "\\", "\," and "\=" are escapes; an unescaped ',' or '=' or any other escape
// is an error. Empty terms are skipped; terms are sorted as upstream does.
//
// Contract:
// - parseFieldSelector(text) throws a 400 BadRequest with upstream's text.
// - matches(fields): a missing field reads as "" (so "f!=x" matches it).
// - unsupportedFieldError(field) / unknownFieldSelectorError(field): the 400
//   the apiserver returns for a field label the resource does not support:
//   "field label not supported: X" for kinds that register their own field
//   label conversion (pods, secrets, …), `"X" is not a known field selector:
//   only "metadata.name", "metadata.namespace"` for the others. The longer
//   "Unable to find ... that match label selector ..." text users see is
//   added by kubectl, not the server.

import { badRequest, type StatusError } from './errors.js';

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  matches(fields: Record<string, string>): boolean;
  empty(): boolean;
  requirements: FieldRequirement[];
  toString(): string;
}

/** Escapes a literal value for use in a field selector (upstream's EscapeValue). */
export function escapeFieldValue(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/=/g, '\\=');
}

/** Upstream's UnescapeValue; throws upstream's error text. */
export function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    // Go prints the rune with %v, i.e. as its code point number.
    else if (c === ',' || c === '=') throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

function splitTerm(term: string): [string, (typeof TERM_OPERATORS)[number], string] | null {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return null;
}

/** Go's sort.Strings order: bytewise. UTF-16 order differs only above U+FFFF, which field selectors do not carry. */
function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class Selector implements FieldSelector {
  constructor(readonly requirements: FieldRequirement[]) {}

  matches(fields: Record<string, string>): boolean {
    for (const r of this.requirements) {
      const v = Object.prototype.hasOwnProperty.call(fields, r.field) ? fields[r.field] : '';
      if (r.operator === '=' ? v !== r.value : v === r.value) return false;
    }
    return true;
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

export function parseFieldSelector(text: string): FieldSelector {
  const parts = splitTerms(text).sort(byBytes);
  const reqs: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (split === null) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const [field, op, rhs] = split;
    reqs.push({ field, operator: op === '!=' ? '!=' : '=', value: unescapeFieldValue(rhs) });
  }
  return new Selector(reqs);
}

/** A selector requiring exactly these field values (upstream's SelectorFromSet). */
export function fieldSelectorFromSet(set: Record<string, string>): FieldSelector {
  return new Selector(Object.entries(set).map(([field, value]) => ({ field, operator: '=' as const, value })));
}

/** The 400 for a label a kind with its own field label conversion does not take. */
export function unsupportedFieldError(field: string): StatusError {
  return badRequest(`field label not supported: ${field}`);
}

/** The field labels every kind takes (upstream's DefaultMetaV1FieldSelectorConversion). */
export const DEFAULT_FIELD_LABELS: readonly string[] = ['metadata.name', 'metadata.namespace'];

/** The 400 for a label outside DEFAULT_FIELD_LABELS, for kinds with no conversion of their own. */
export function unknownFieldSelectorError(field: string): StatusError {
  return badRequest(`${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`);
}
