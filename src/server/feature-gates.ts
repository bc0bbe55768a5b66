// --feature-gates: the kube-apiserver feature gates apiary honours, with
// upstream 1.32's defaults. Parsing follows upstream's flag: `A=true,B=false`;
// an unknown gate or a value that is not a boolean is an error.

export const FEATURE_GATES: Readonly<Record<string, boolean>> = {
  /** KEP-3926: the delete option ignoreStoreReadErrorWithClusterBreakingPotential (alpha in 1.32, off). */
  AllowUnsafeMalformedObjectDeletion: false,
  /** gzip for answers over 128 KiB to clients that accept it (beta since 1.16, on): response-compression.ts. */
  APIResponseCompression: true,
};

export function featureEnabled(gates: Record<string, boolean> | undefined, name: string): boolean {
  return gates?.[name] ?? FEATURE_GATES[name] ?? false;
}

/** Parses a --feature-gates value; throws with upstream's wording on what it cannot accept. */
export function parseFeatureGates(text: string): Record<string, boolean> {
  const gates: Record<string, boolean> = {};
  for (const part of text.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq < 0) throw new Error(`missing bool value for ${item}`);
    const name = item.slice(0, eq).trim();
    const raw = item.slice(eq + 1).trim();
    if (!(name in FEATURE_GATES)) throw new Error(`unrecognized feature gate: ${name}`);
    if (!/^(true|false|1|0|t|f|TRUE|FALSE|True|False|T|F)$/.test(raw)) throw new Error(`invalid value of ${name}=${raw}, err: strconv.ParseBool: parsing "${raw}": invalid syntax`);
    gates[name] = /^(true|1|t|TRUE|True|T)$/.test(raw);
  }
  return gates;
}
