// Helpers for the security tests: a server with TLS, authentication and RBAC on
// (a token file with alice, bob and a benchmark user), HTTPS requests that
// verify the server against the cluster CA, and kubeconfigs for token users.

import fs from 'node:fs';
import path from 'node:path';
import { Agent, request as undiciRequest } from 'undici';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { SecurityOptions, ServerOptions } from '../../src/server/server.js';

export const TOKENS = 'alice-token,alice,alice-uid\nbob-token,bob,bob-uid,"dev,qa"\n';

export async function startSecureServer(security: Partial<SecurityOptions> = {}, options: Partial<ServerOptions> = {}): Promise<TestServer & { ca: string }> {
  const dir = fs.mkdtempSync(path.join((await import('node:os')).tmpdir(), 'apiary-sec-'));
  const tokenFile = path.join(dir, 'tokens.csv');
  fs.writeFileSync(tokenFile, TOKENS);
  let server: TestServer;
  try {
    server = await startTestServer({ ...options, security: { tokenAuthFile: tokenFile, ...security } });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const stop = server.stop;
  return {
    ...server,
    ca: server.admin.caData!,
    stop: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A kubeconfig for a bearer token, verifying the server with the CA. */
export function tokenKubeconfig(server: TestServer & { ca: string }, name: string, token: string): string {
  const file = path.join(server.dataDir, `kubeconfig-${name}`);
  fs.writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: apiary',
      '  cluster:',
      `    server: ${server.url}`,
      `    certificate-authority-data: ${Buffer.from(server.ca).toString('base64')}`,
      'contexts:',
      `- name: ${name}`,
      '  context: {cluster: apiary, user: u}',
      `current-context: ${name}`,
      'users:',
      '- name: u',
      `  user: {token: ${token}}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  return file;
}

export interface SecureReply {
  status: number;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- bodies are checked field by field
}

/** An HTTPS request verified against `ca`, with an optional client certificate. */
export async function secureRequest(
  url: string,
  ca: string,
  method: string,
  pathAndQuery: string,
  options: { headers?: Record<string, string>; body?: unknown; cert?: string; key?: string } = {},
): Promise<SecureReply> {
  const agent = new Agent({ connect: { ca, ...(options.cert !== undefined ? { cert: options.cert, key: options.key } : {}) } });
  try {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await undiciRequest(url + pathAndQuery, { method: method as 'GET', headers, body, dispatcher: agent });
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, text, json };
  } finally {
    await agent.close();
  }
}
