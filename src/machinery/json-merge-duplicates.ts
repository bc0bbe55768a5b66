// A JSON document whose objects repeat a key, read as Go's encoding/json
// reads it into a typed struct: a repeated key decodes again into the same
// field, so two objects under one key are merged (the later one's keys win),
// and anything else is replaced by the later value. JSON.parse keeps only the
// later value: `{"data":{"a":"1"},"data":{"b":"2"}}` would lose "a", where
// kube-apiserver stores both.
//
// Only for documents known to repeat a key (the caller checks; this is a
// second parse). Recursive: callers bound the nesting first (json-depth.ts).

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** JSON.parse of `text`, objects under a repeated key merged as Go merges them. */
export function parseMergingDuplicates(text: string): unknown {
  return readValue({ text, at: 0 });
}

interface Reader {
  text: string;
  at: number;
}

function skipSpace(r: Reader): void {
  while (r.at < r.text.length) {
    const c = r.text.charCodeAt(r.at);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
    r.at++;
  }
}

function isObject(v: Json | undefined): v is { [key: string]: Json } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An own property, even for "__proto__" (as JSON.parse makes it). */
function setOwn(o: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

function merge(into: { [key: string]: Json }, from: { [key: string]: Json }): void {
  for (const key of Object.keys(from)) {
    const old = Object.prototype.hasOwnProperty.call(into, key) ? into[key] : undefined;
    const next = from[key]!;
    if (isObject(old) && isObject(next)) merge(old, next);
    else setOwn(into, key, next);
  }
}

function readValue(r: Reader): Json {
  skipSpace(r);
  const c = r.text[r.at];
  if (c === '{') {
    r.at++;
    const out: { [key: string]: Json } = {};
    skipSpace(r);
    if (r.text[r.at] === '}') {
      r.at++;
      return out;
    }
    for (;;) {
      skipSpace(r);
      const key = readString(r);
      skipSpace(r);
      r.at++; // ':'
      const value = readValue(r);
      const old = Object.prototype.hasOwnProperty.call(out, key) ? out[key] : undefined;
      if (isObject(old) && isObject(value)) merge(old, value);
      else setOwn(out, key, value);
      skipSpace(r);
      if (r.text[r.at++] === '}') return out;
    }
  }
  if (c === '[') {
    r.at++;
    const out: Json[] = [];
    skipSpace(r);
    if (r.text[r.at] === ']') {
      r.at++;
      return out;
    }
    for (;;) {
      out.push(readValue(r));
      skipSpace(r);
      if (r.text[r.at++] === ']') return out;
    }
  }
  if (c === '"') return readString(r);
  // A literal or a number: up to the next delimiter, as JSON.parse reads it.
  const start = r.at;
  while (r.at < r.text.length && !',}] \n\r\t'.includes(r.text[r.at]!)) r.at++;
  return JSON.parse(r.text.slice(start, r.at)) as Json;
}

function readString(r: Reader): string {
  const start = r.at;
  let i = r.at + 1;
  for (;;) {
    const c = r.text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) break;
    else i++;
  }
  r.at = i + 1;
  return JSON.parse(r.text.slice(start, r.at)) as string;
}
