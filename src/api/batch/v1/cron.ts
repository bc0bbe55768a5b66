// The standard cron grammar CronJob schedules are checked against (upstream
// uses robfig/cron's ParseStandard): five fields (minute hour day-of-month
// month day-of-week) of "*", "?", numbers, names, ranges "a-b" and steps
// "/n", or one of the @-descriptors. Returns the parser's error text, or
// undefined for a valid schedule.

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];
const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

function parseNumber(text: string, bounds: Bounds): number | string {
  const named = bounds.names?.[text.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^[+-]?\d+$/.test(text)) return `failed to parse int from ${text}: strconv.Atoi: parsing ${JSON.stringify(text)}: invalid syntax`;
  const n = Number(text);
  if (n < 0) return `negative number (${n}) not allowed: ${text}`;
  return n;
}

function checkRange(expr: string, bounds: Bounds): string | undefined {
  const [rangePart, stepPart, ...extra] = expr.split('/');
  if (extra.length > 0) return `too many slashes: ${expr}`;
  let start: number;
  let end: number;
  if (rangePart === '*' || rangePart === '?') {
    start = bounds.min;
    end = bounds.max;
  } else {
    const bounds2 = rangePart!.split('-');
    if (bounds2.length > 2) return `too many hyphens: ${expr}`;
    const s = parseNumber(bounds2[0]!, bounds);
    if (typeof s === 'string') return s;
    start = s;
    if (bounds2.length === 2) {
      const e = parseNumber(bounds2[1]!, bounds);
      if (typeof e === 'string') return e;
      end = e;
    } else end = start;
  }
  if (stepPart !== undefined) {
    const step = parseNumber(stepPart, bounds);
    if (typeof step === 'string') return step;
    if (step === 0) return `step of range should be a positive number: ${expr}`;
  }
  if (start < bounds.min) return `beginning of range (${start}) below minimum (${bounds.min}): ${expr}`;
  if (end > bounds.max) return `end of range (${end}) above maximum (${bounds.max}): ${expr}`;
  if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${expr}`;
  return undefined;
}

export function cronScheduleError(schedule: string): string | undefined {
  if (schedule.startsWith('@')) {
    if (DESCRIPTORS.includes(schedule)) return undefined;
    if (schedule.startsWith('@every ')) return undefined;
    return `unrecognized descriptor: ${schedule}`;
  }
  const fields = schedule.split(/\s+/).filter((f) => f !== '');
  if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
  for (let i = 0; i < 5; i++) {
    for (const part of fields[i]!.split(',')) {
      const err = checkRange(part, FIELDS[i]!);
      if (err !== undefined) return err;
    }
  }
  return undefined;
}
