// Raw HTTP against one side of the differential test (apiary over plain HTTP,
// kube-apiserver over HTTPS with its self-signed certificate and a bearer
// token). node:http rather than fetch: the comparison needs every Warning
// header separately (fetch joins them with ", ", and warnings contain commas)
// and bodies sent byte for byte.

import http from 'node:http';
import https from 'node:https';

export interface Target {
  /** 'apiary' or 'reference', for reports. */
  name: string;
  /** http(s)://host:port */
  base: string;
  /** Bearer token (the reference's system:masters user). */
  token?: string;
}

export interface RawReply {
  status: number;
  /** Header values by lower-case name, each header line separately. */
  headers: Map<string, string[]>;
  body: Buffer;
}

export interface WatchReply {
  status: number;
  headers: Map<string, string[]>;
  /** The events read (parsed JSON lines), or the body text when the answer is not a stream. */
  events: unknown[];
  text?: string;
  /** Whether fewer events than asked for came before the stream ended or the time ran out. */
  ended?: 'closed' | 'timeout';
}

const httpsAgent = new https.Agent({ keepAlive: true, rejectUnauthorized: false });
const httpAgent = new http.Agent({ keepAlive: true });

/** The User-Agent of every request: upstream derives the default field manager from it. */
export const USER_AGENT = 'apiary-differential/v0.0.0';

function headerMap(raw: string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const list = out.get(name) ?? [];
    list.push(raw[i + 1]!);
    out.set(name, list);
  }
  return out;
}

function open(
  target: Target,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<http.IncomingMessage> {
  const url = new URL(target.base);
  const secure = url.protocol === 'https:';
  const allHeaders: Record<string, string> = { 'user-agent': USER_AGENT, ...headers };
  if (target.token !== undefined) allHeaders['authorization'] = `Bearer ${target.token}`;
  if (body !== undefined) allHeaders['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      url,
      // The path goes out as written (dot segments and escapes are part of what a case checks),
      // spaces and non-ASCII characters escaped as `new URL` would.
      { method, path: path.replace(/[^\x21-\x7e]/gu, (c) => encodeURIComponent(c)), headers: allHeaders, agent: secure ? httpsAgent : httpAgent, signal },
      resolve,
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function send(
  target: Target,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
  timeoutMs = 30_000,
): Promise<RawReply> {
  const signal = AbortSignal.timeout(timeoutMs);
  const res = await open(target, method, path, headers, body, signal);
  const chunks: Buffer[] = [];
  for await (const chunk of res) chunks.push(chunk as Buffer);
  return { status: res.statusCode ?? 0, headers: headerMap(res.rawHeaders), body: Buffer.concat(chunks) };
}

/** Opens a watch, reads `count` JSON events (or whatever non-stream body comes back), then closes it. */
export async function watch(
  target: Target,
  path: string,
  headers: Record<string, string>,
  count: number,
  timeoutMs: number,
): Promise<WatchReply> {
  const abort = new AbortController();
  const res = await open(target, 'GET', path, headers, undefined, abort.signal);
  const reply: WatchReply = { status: res.statusCode ?? 0, headers: headerMap(res.rawHeaders), events: [] };
  const contentType = res.headers['content-type'] ?? '';
  const streaming = res.statusCode === 200 && contentType.includes('json');
  let buffer = '';
  const timer = setTimeout(() => {
    if (reply.ended === undefined) reply.ended = 'timeout';
    abort.abort();
  }, timeoutMs);
  try {
    for await (const chunk of res) {
      buffer += (chunk as Buffer).toString('utf8');
      if (!streaming) continue;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0 && reply.events.length < count) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        if (line !== '') reply.events.push(JSON.parse(line));
      }
      if (reply.events.length >= count) break;
    }
    if (reply.events.length < count && reply.ended === undefined && streaming) reply.ended = 'closed';
  } catch (err) {
    if (reply.ended !== 'timeout') throw err;
  } finally {
    clearTimeout(timer);
    abort.abort();
    res.destroy();
  }
  if (!streaming) reply.text = buffer;
  return reply;
}
