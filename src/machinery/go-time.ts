// Go's time.Parse(time.RFC3339, s), as metav1.Time's UnmarshalJSON runs it
// on every timestamp a request carries (creationTimestamp, a condition's
// lastTransitionTime): only whether it fails and Go's message when it does.
//
// time.Parse walks the layout "2006-01-02T15:04:05Z07:00" element by element;
// the first element the value does not match gives
//   parsing time "<value>" as "<layout>": cannot parse "<rest>" as "<element>"
// a field out of its range `parsing time "<value>": month out of range`, and
// text after the zone `parsing time "<value>": extra text: "<rest>"`.

const LAYOUT = '2006-01-02T15:04:05Z07:00';

type Step =
  | { kind: 'literal'; text: string }
  | { kind: 'number'; element: string; min: number; max: number; digits: 'two' | 'oneOrTwo' | 'four'; range?: string }
  | { kind: 'zone' };

const STEPS: Step[] = [
  { kind: 'number', element: '2006', min: 0, max: 9999, digits: 'four' },
  { kind: 'literal', text: '-' },
  { kind: 'number', element: '01', min: 1, max: 12, digits: 'two', range: 'month' },
  { kind: 'literal', text: '-' },
  { kind: 'number', element: '02', min: 1, max: 31, digits: 'two', range: 'day' },
  { kind: 'literal', text: 'T' },
  { kind: 'number', element: '15', min: 0, max: 23, digits: 'oneOrTwo', range: 'hour' },
  { kind: 'literal', text: ':' },
  { kind: 'number', element: '04', min: 0, max: 59, digits: 'two', range: 'minute' },
  { kind: 'literal', text: ':' },
  { kind: 'number', element: '05', min: 0, max: 59, digits: 'two', range: 'second' },
  { kind: 'zone' },
];

const DIGIT = /[0-9]/;

/** Go's error for time.Parse(RFC3339, value), or undefined when Go parses it. */
export function rfc3339Error(value: string): string | undefined {
  const quoted = goQuote(value);
  const cannot = (rest: string, element: string): string => `parsing time ${quoted} as "${LAYOUT}": cannot parse ${goQuote(rest)} as "${element}"`;
  const outOfRange = (what: string): string => `parsing time ${quoted}: ${what} out of range`;
  let at = 0;
  const fields: number[] = [];
  for (const step of STEPS) {
    const rest = value.slice(at);
    if (step.kind === 'literal') {
      if (!rest.startsWith(step.text)) return cannot(rest, step.text);
      at += step.text.length;
      continue;
    }
    if (step.kind === 'number') {
      let len: number;
      if (step.digits === 'four') len = rest.length >= 4 && /^[0-9]{4}/.test(rest) ? 4 : 0;
      else if (step.digits === 'two') len = /^[0-9]{2}/.test(rest) ? 2 : 0;
      else len = DIGIT.test(rest[0] ?? '') ? (DIGIT.test(rest[1] ?? '') ? 2 : 1) : 0;
      if (len === 0) return cannot(rest, step.element);
      const n = Number(rest.slice(0, len));
      if (step.range !== undefined && (n < step.min || n > step.max)) return outOfRange(step.range);
      fields.push(n);
      at += len;
      // Fractional seconds may follow the seconds though the layout has none.
      if (step.element === '05' && (value[at] === '.' || value[at] === ',') && DIGIT.test(value[at + 1] ?? '')) {
        at++;
        while (DIGIT.test(value[at] ?? '')) at++;
      }
      continue;
    }
    // Z07:00: "Z", or a sign, two hour digits, ":", two minute digits.
    if (rest.startsWith('Z')) {
      at += 1;
    } else if (/^[+-][0-9]{2}:[0-9]{2}/.test(rest)) {
      const hours = Number(rest.slice(1, 3));
      const minutes = Number(rest.slice(4, 6));
      if (hours > 24) return outOfRange('time zone offset hour');
      if (minutes > 60) return outOfRange('time zone offset minute');
      at += 6;
    } else {
      return cannot(rest, 'Z07:00');
    }
  }
  if (at < value.length) return `parsing time ${quoted}: extra text: ${goQuote(value.slice(at))}`;
  const [year, month, day] = fields as [number, number, number];
  if (day > daysIn(month, year)) return outOfRange('day');
  return undefined;
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Go's %q for the printable strings a timestamp holds (JSON's escaping agrees with it there). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}
