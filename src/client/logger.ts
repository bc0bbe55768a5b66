// The client's logger: the subset of pino's interface it uses, so callers
// can pass their pino logger (or a child with context). The default writes
// warnings and errors as JSON lines to stderr; set APIARY_CLIENT_LOG_LEVEL
// to change the level ("silent" turns it off).

import { pino } from 'pino';

export interface ClientLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

let fallback: ClientLogger | undefined;

/** The shared default logger, created on first use. */
export function defaultLogger(): ClientLogger {
  fallback ??= pino({ name: 'apiary-client', level: process.env.APIARY_CLIENT_LOG_LEVEL ?? 'warn' }, pino.destination(2));
  return fallback;
}

export const silentLogger: ClientLogger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/** An error as a log field. */
export function errorField(err: unknown): { err: string } {
  return { err: err instanceof Error ? err.message : String(err) };
}
