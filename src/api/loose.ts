// The decoded JSON of a built-in object, read field by field by validation
// and defaulting code of the kinds that keep no hand-written TypeScript type:
// the schema registry already checked every field's JSON type on decode, so
// the code reads the shapes upstream's Go types give them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = { [field: string]: any };

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** The array at a field, or none. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** The string at a field, or "" (Go's zero value). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');
