// Label selectors, parsed and matched as upstream's k8s.io/apimachinery/pkg/labels.
//
// Grammar (comma = AND; spaces, tabs, CR and LF separate tokens):
//   requirement := [!] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
// A bare KEY means "exists", !KEY "does not exist". Values of in/notin form a
// set (sorted, duplicates dropped, "" allowed); requirements are sorted by key.
//
// Contract:
// - parseLabelSelector(text) throws a 400 BadRequest whose message is the
//   text upstream's labels.Parse error carries (the apiserver passes it through
//   unchanged), e.g. "unable to parse requirement: <nil>: Invalid value: ...".
// - labelSelectorFromMeta(sel) turns a metav1.LabelSelector (matchLabels +
//   matchExpressions) into a selector, as metav1.LabelSelectorAsSelector does;
//   a bad operator or key throws the same way.
// - A selector never mutates the label maps it is given.

import { badRequest } from './errors.js';
import { type FieldError, fieldErrors, aggregateFieldErrors } from './field-errors.js';
import { isQualifiedName, isValidLabelValue } from './validation.js';
import { goStringSlice } from './go-syntax.js';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Parsed in/notin values are sorted and de-duplicated; one value for =, ==, !=, gt, lt; none for exists and !. */
  values: string[];
}

export interface LabelSelector {
  matches(labels: Record<string, string> | undefined): boolean;
  /** True when the selector places no restriction (matches everything). */
  empty(): boolean;
  toString(): string;
  requirements: LabelRequirement[];
}

const BINARY_OPERATORS = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

class Requirement implements LabelRequirement {
  constructor(
    readonly key: string,
    readonly operator: LabelOperator,
    readonly values: string[],
  ) {}

  matches(labels: Record<string, string> | undefined): boolean {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, this.key);
    const value = has ? labels![this.key]! : '';
    switch (this.operator) {
      case 'in':
      case '=':
      case '==':
        return has && this.values.includes(value);
      case 'notin':
      case '!=':
        return !has || !this.values.includes(value);
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'gt':
      case 'lt': {
        if (!has || !isInt64(value) || this.values.length !== 1 || !isInt64(this.values[0]!)) return false;
        const l = BigInt(value);
        const r = BigInt(this.values[0]!);
        return this.operator === 'gt' ? l > r : l < r;
      }
    }
  }

  toString(): string {
    let s = this.operator === '!' ? '!' : '';
    s += this.key;
    switch (this.operator) {
      case 'exists':
      case '!':
        return s;
      case 'in':
        return `${s} in (${sortedCopy(this.values).join(',')})`;
      case 'notin':
        return `${s} notin (${sortedCopy(this.values).join(',')})`;
      case 'gt':
        return `${s}>${this.values.join(',')}`;
      case 'lt':
        return `${s}<${this.values.join(',')}`;
      default:
        return `${s}${this.operator}${sortedCopy(this.values).join(',')}`;
    }
  }
}

function sortedCopy(values: string[]): string[] {
  return [...values].sort(compareBytes);
}

/** Go compares strings bytewise; for the ASCII that valid keys and values are made of, code-unit order is the same. */
function compareBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function isInt64(s: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(s)) return false;
  const n = BigInt(s);
  return n >= INT64_MIN && n <= INT64_MAX;
}

class InternalSelector implements LabelSelector {
  constructor(readonly requirements: Requirement[]) {}

  matches(labels: Record<string, string> | undefined): boolean {
    for (const r of this.requirements) if (!r.matches(labels)) return false;
    return true;
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  toString(): string {
    return this.requirements.map((r) => r.toString()).join(',');
  }
}

/** The selector that matches everything (an empty selector string). */
export function everything(): LabelSelector {
  return new InternalSelector([]);
}

/**
 * Upstream's NewRequirement checks. `path` is the field path prefix; the
 * parser has none, which upstream prints as "<nil>" for key errors only
 * (value errors get "values[i][key]").
 */
function newRequirement(key: string, op: LabelOperator, values: string[], path: string | null): Requirement {
  const errs: FieldError[] = [];
  const child = (name: string): string => (path === null ? name : `${path}.${name}`);
  const keyErr = validateLabelKey(key, child('key'));
  if (keyErr) errs.push(keyErr);
  const valuesPath = child('values');
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(fieldErrors.invalid(valuesPath, goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(fieldErrors.invalid(valuesPath, goStringSlice(values), 'exact-match compatibility requires one single value'));
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(fieldErrors.invalid(valuesPath, goStringSlice(values), 'values set must be empty for exists and does not exist'));
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(fieldErrors.invalid(valuesPath, goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      values.forEach((v, i) => {
        if (!isInt64(v)) {
          errs.push(fieldErrors.invalid(`${valuesPath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      });
      break;
    default:
      errs.push(fieldErrors.notSupported(child('operator'), op, BINARY_OPERATORS.concat(['exists', '!'])));
  }
  values.forEach((v, i) => {
    const msgs = isValidLabelValue(v);
    if (msgs.length > 0) errs.push(fieldErrors.invalid(`${valuesPath}[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length > 0) throw new ParseError(aggregateFieldErrors(errs));
  return new Requirement(key, op, values);
}

function validateLabelKey(key: string, path: string): FieldError | null {
  const msgs = isQualifiedName(key);
  return msgs.length === 0 ? null : fieldErrors.invalid(path, key, msgs.join('; '));
}

/** A parse failure; its message is upstream's error text. */
class ParseError extends Error {}

// ---- lexer ----------------------------------------------------------------

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const LITERALS: Record<string, Tok> = {
  ')': Tok.ClosedPar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};

function literalToken(s: string): Tok | undefined {
  return Object.prototype.hasOwnProperty.call(LITERALS, s) ? LITERALS[s] : undefined;
}

interface Item {
  tok: Tok;
  lit: string;
}

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch) && ch !== '';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      items.push({ tok: Tok.EndOfString, lit: '' });
      return items;
    }
    if (isSpecial(s[pos]!)) {
      // Longest run of symbols that still forms an operator ("!=" over "!").
      let buffer = '';
      let last: Item | null = null;
      while (pos < s.length && isSpecial(s[pos]!)) {
        buffer += s[pos];
        const t = literalToken(buffer);
        if (t !== undefined) {
          last = { tok: t, lit: buffer };
          pos++;
        } else if (last !== null) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      while (pos < s.length && !isSpecial(s[pos]!) && !isWhitespace(s[pos]!)) buffer += s[pos++];
      const t = literalToken(buffer);
      items.push({ tok: t ?? Tok.Identifier, lit: buffer });
    }
  }
}

// ---- parser ---------------------------------------------------------------

/** "in" and "notin" are plain identifiers where a value is expected. */
const enum Ctx {
  KeyAndOperator,
  Values,
}

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  private lookahead(ctx: Ctx): Item {
    return this.adjust(this.items[this.position]!, ctx);
  }

  private consume(ctx: Ctx): Item {
    return this.adjust(this.items[this.position++]!, ctx);
  }

  private adjust(item: Item, ctx: Ctx): Item {
    if (ctx === Ctx.Values && (item.tok === Tok.In || item.tok === Tok.NotIn)) return { tok: Tok.Identifier, lit: item.lit };
    return item;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(Ctx.Values);
      switch (tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          let r: Requirement;
          try {
            r = this.parseRequirement();
          } catch (err) {
            if (err instanceof ParseError) throw new ParseError(`unable to parse requirement: ${err.message}`);
            throw err;
          }
          reqs.push(r);
          const next = this.consume(Ctx.Values);
          if (next.tok === Tok.EndOfString) return reqs;
          if (next.tok === Tok.Comma) {
            const after = this.lookahead(Ctx.Values);
            if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
              throw new ParseError(`found '${after.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new ParseError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case Tok.EndOfString:
          return reqs;
        default:
          throw new ParseError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): Requirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred === 'exists' || inferred === '!') return newRequirement(key, inferred, [], null);
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, op, [...values].sort(compareBytes), null);
  }

  private parseKeyAndInferOperator(): [string, LabelOperator | ''] {
    let op: LabelOperator | '' = '';
    let item = this.consume(Ctx.Values);
    if (item.tok === Tok.DoesNotExist) {
      op = '!';
      item = this.consume(Ctx.Values);
    }
    if (item.tok !== Tok.Identifier) throw new ParseError(`found '${item.lit}', expected: identifier`);
    // Upstream validates the key here with a nil field path, hence "<nil>".
    const keyErr = validateLabelKey(item.lit, '<nil>');
    if (keyErr) throw new ParseError(keyErr.toString());
    const next = this.lookahead(Ctx.Values).tok;
    if ((next === Tok.EndOfString || next === Tok.Comma) && op !== '!') op = 'exists';
    return [item.lit, op];
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(Ctx.KeyAndOperator);
    switch (tok) {
      case Tok.In:
        return 'in';
      case Tok.Equals:
        return '=';
      case Tok.DoubleEquals:
        return '==';
      case Tok.GreaterThan:
        return 'gt';
      case Tok.LessThan:
        return 'lt';
      case Tok.NotIn:
        return 'notin';
      case Tok.NotEquals:
        return '!=';
      default:
        throw new ParseError(`found '${lit}', expected: ${BINARY_OPERATORS.join(', ')}`);
    }
  }

  private parseValues(): Set<string> {
    const open = this.consume(Ctx.Values);
    if (open.tok !== Tok.OpenPar) throw new ParseError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(Ctx.Values);
    switch (tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        const set = this.parseIdentifiersList();
        if (this.consume(Ctx.Values).tok !== Tok.ClosedPar) throw new ParseError(`found '${lit}', expected: ')'`);
        return set;
      }
      case Tok.ClosedPar:
        this.consume(Ctx.Values);
        return new Set(['']);
      default:
        throw new ParseError(`found '${lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): Set<string> {
    const set = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(Ctx.Values);
      if (tok === Tok.Identifier) {
        set.add(lit);
        const next = this.lookahead(Ctx.Values);
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosedPar) return set;
        throw new ParseError(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === Tok.Comma) {
        // "(,a", "a,,b" and "a,)" all carry an empty value.
        if (set.size === 0) set.add('');
        const next = this.lookahead(Ctx.Values).tok;
        if (next === Tok.ClosedPar) {
          set.add('');
          return set;
        }
        if (next === Tok.Comma) set.add('');
      } else {
        throw new ParseError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(Ctx.Values).tok;
    if (next === Tok.EndOfString || next === Tok.Comma) return new Set(['']);
    const { tok, lit } = this.consume(Ctx.Values);
    if (tok === Tok.Identifier) return new Set([lit]);
    throw new ParseError(`found '${lit}', expected: identifier`);
  }
}

function sortByKey(reqs: Requirement[]): Requirement[] {
  return [...reqs].sort((a, b) => compareBytes(a.key, b.key));
}

export function parseLabelSelector(text: string): LabelSelector {
  try {
    return new InternalSelector(sortByKey(new Parser(lex(text)).parse()));
  } catch (err) {
    if (err instanceof ParseError) throw badRequest(err.message);
    throw err;
  }
}

const META_OPERATORS: Record<string, LabelOperator> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/** A metav1.LabelSelector as a selector. An empty one (no labels, no expressions) matches everything. */
export function labelSelectorFromMeta(sel: {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}): LabelSelector {
  const reqs: Requirement[] = [];
  try {
    for (const [k, v] of Object.entries(sel.matchLabels ?? {})) reqs.push(newRequirement(k, '=', [v], null));
    for (const expr of sel.matchExpressions ?? []) {
      const op = Object.prototype.hasOwnProperty.call(META_OPERATORS, expr.operator) ? META_OPERATORS[expr.operator] : undefined;
      if (op === undefined) throw new ParseError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
      reqs.push(newRequirement(expr.key, op, [...(expr.values ?? [])], null));
    }
  } catch (err) {
    if (err instanceof ParseError) throw badRequest(err.message);
    throw err;
  }
  return new InternalSelector(sortByKey(reqs));
}
