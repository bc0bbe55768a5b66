// Human-readable ages, as upstream's duration.HumanDuration prints them
// ("45s", "3m2s", "5h4m", "2d22h", "400d", "3y12d"), and the "time since a
// timestamp" helper every printer's AGE cell uses ("<unknown>" for an unset
// timestamp).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Formats a duration in milliseconds with about two significant units. */
export function humanDuration(ms: number): string {
  // Go converts with truncation toward zero; a clock skew under 2s reads as "0s".
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * Milliseconds since the epoch for a metav1.Time / MicroTime string, or
 * undefined for an unset one (absent, empty, unparsable, or Go's zero time).
 */
export function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  // Go's zero time (year 1) serializes as 0001-01-01T00:00:00Z and counts as unset.
  if (new Date(ms).getUTCFullYear() <= 1) return undefined;
  return ms;
}

/** The AGE cell: time elapsed from `timestamp` to `now`, "<unknown>" when unset. */
export function timeSince(timestamp: unknown, now: Date): string {
  const ms = parseTimestamp(timestamp);
  if (ms === undefined) return '<unknown>';
  return humanDuration(now.getTime() - ms);
}
