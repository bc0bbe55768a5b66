// Field-level validation errors (upstream's k8s.io/apimachinery/pkg/util/validation/field).
// A FieldError renders as "<path>: <Type>: <value>: <detail>", the text kubectl
// prints after "is invalid:", and becomes one StatusCause of a 422 Invalid.

export type FieldErrorType =
  | 'NotFound'
  | 'Required'
  | 'Duplicate'
  | 'Invalid'
  | 'NotSupported'
  | 'Forbidden'
  | 'TooLong'
  | 'TooMany'
  | 'Internal'
  | 'TypeInvalid';

const typeText: Record<FieldErrorType, string> = {
  NotFound: 'Not found',
  Required: 'Required value',
  Duplicate: 'Duplicate value',
  Invalid: 'Invalid value',
  NotSupported: 'Unsupported value',
  Forbidden: 'Forbidden',
  TooLong: 'Too long',
  TooMany: 'Too many',
  Internal: 'Internal error',
  TypeInvalid: 'Invalid value',
};

/** A bad value that prints as given: a Go value's %#v form (e.g. a struct upstream shows verbatim). */
export class GoValue {
  constructor(readonly text: string) {}
}

/** Marks an error that shows no value (upstream's omitValue). */
export const OMIT_VALUE = Symbol('omitValue');

export class FieldError {
  constructor(
    readonly type: FieldErrorType,
    readonly field: string,
    readonly value: unknown,
    readonly detail: string,
  ) {}

  /** The StatusCause reason: "FieldValueInvalid", "FieldValueRequired", … */
  causeType(): string {
    return this.type === 'Internal' ? 'InternalError' : `FieldValue${this.type}`;
  }

  /** The message without the field path, as upstream's ErrorBody(). */
  body(): string {
    let s = typeText[this.type];
    const showsValue = !['Required', 'Forbidden', 'TooLong', 'Internal'].includes(this.type) && this.value !== OMIT_VALUE;
    if (showsValue) s += `: ${formatValue(this.value)}`;
    if (this.detail !== '') s += `: ${this.detail}`;
    return s;
  }

  toString(): string {
    return `${this.field}: ${this.body()}`;
  }
}

/**
 * Renders a bad value as Go's fmt would: strings quoted, numbers and booleans
 * bare, a GoValue (its %#v text, see go-syntax.ts for slices, maps, selectors) as its text,
 * anything else as JSON.
 */
function formatValue(value: unknown): string {
  if (value instanceof GoValue) return value.text;
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'null';
  return JSON.stringify(value);
}

export const fieldErrors = {
  required: (field: string, detail = '') => new FieldError('Required', field, '', detail),
  invalid: (field: string, value: unknown, detail: string) => new FieldError('Invalid', field, value, detail),
  forbidden: (field: string, detail: string) => new FieldError('Forbidden', field, '', detail),
  duplicate: (field: string, value: unknown) => new FieldError('Duplicate', field, value, ''),
  notFound: (field: string, value: unknown) => new FieldError('NotFound', field, value, ''),
  tooLong: (field: string, maxLength: number) =>
    new FieldError('TooLong', field, '', `may not be more than ${maxLength} bytes`),
  tooMany: (field: string, actual: number, max: number) =>
    new FieldError('TooMany', field, actual, `must have at most ${max} items`),
  notSupported: (field: string, value: unknown, supported: string[]) =>
    new FieldError(
      'NotSupported',
      field,
      value,
      supported.length === 0 ? '' : `supported values: ${supported.map((v) => JSON.stringify(v)).join(', ')}`,
    ),
  typeInvalid: (field: string, value: unknown, detail: string) => new FieldError('TypeInvalid', field, value, detail),
  internal: (field: string, detail: string) => new FieldError('Internal', field, '', detail),
};

/** One error's text alone, several as "[a, b]", duplicates dropped: upstream's utilerrors aggregate. */
export function aggregateFieldErrors(errors: FieldError[]): string {
  const seen = new Set<string>();
  const texts: string[] = [];
  for (const e of errors) {
    const t = e.toString();
    if (!seen.has(t)) {
      seen.add(t);
      texts.push(t);
    }
  }
  if (texts.length === 0) return '';
  if (texts.length === 1) return texts[0]!;
  return `[${texts.join(', ')}]`;
}
