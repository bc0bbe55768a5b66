// HTTP helpers for tests against a real server (e2e, namespaces, listwatch): JSON/YAML
// requests with fetch, and a line reader for watch streams.

import assert from 'node:assert/strict';

export interface Reply {
  status: number;
  contentType: string;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test bodies are checked field by field
}

export interface RequestOptions {
  body?: unknown;
  /** A raw body, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
}

export async function request(base: string, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, { method, headers, body, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, json };
}

export const get = (base: string, path: string, headers?: Record<string, string>): Promise<Reply> =>
  request(base, 'GET', path, headers === undefined ? {} : { headers });

/** Asserts a reply is a Failure Status with this code, reason and message. */
export function assertStatus(reply: Reply, code: number, reason: string | undefined, message: string): void {
  assert.equal(reply.status, code, `HTTP status of ${reply.text}`);
  assert.match(reply.contentType, /^application\/json/);
  assert.equal(reply.json?.kind, 'Status', reply.text);
  assert.equal(reply.json.apiVersion, 'v1');
  assert.equal(reply.json.status, 'Failure');
  assert.equal(reply.json.code, code);
  assert.equal(reply.json.reason, reason);
  assert.equal(reply.json.message, message);
}

export function configMap(name: string, data: Record<string, string> = { key: 'value' }, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data };
}

/** A watch stream read line by line: next() resolves with the next event, or undefined when the stream ends. */
export class WatchStream {
  private buffer = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private readonly controller: AbortController;
  readonly status: number;
  readonly contentType: string;

  private constructor(response: Response, controller: AbortController) {
    this.reader = response.body!.getReader();
    this.controller = controller;
    this.status = response.status;
    this.contentType = response.headers.get('content-type') ?? '';
  }

  static async open(base: string, path: string): Promise<WatchStream> {
    const controller = new AbortController();
    const response = await fetch(base + path, { signal: controller.signal });
    return new WatchStream(response, controller);
  }

  /** The next event, or undefined at the end of the stream; fails after timeoutMs. */
  async next(timeoutMs = 5000): Promise<{ type: string; object: any } | undefined> { // eslint-disable-line @typescript-eslint/no-explicit-any -- event objects are checked field by field
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const newline = this.buffer.indexOf('\n');
      if (newline >= 0) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line.trim() !== '') return JSON.parse(line);
        continue;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting for a watch event');
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out waiting for a watch event')), remaining);
      });
      try {
        const { done, value } = await Promise.race([this.reader.read(), timeout]);
        if (done) return undefined;
        this.buffer += this.decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  close(): void {
    this.controller.abort();
  }
}
