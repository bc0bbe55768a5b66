// The decoded JSON of a built-in object, read field by field by validation
// and defaulting code of the kinds that keep no hand-written TypeScript type:
// the schema registry already checked every field's JSON type on decode, so
// the code reads the shapes upstream's Go types give them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = { [field: string]: any };
