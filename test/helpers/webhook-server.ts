// A real admission webhook for tests: node:https on 127.0.0.1 (a free port),
// its serving certificate from the project's PKI (src/auth/pki) in a temporary
// directory, so the test's caBundle is that CA. Each test routes paths to
// handlers; every AdmissionReview received is recorded. A handler answers a
// review response, or takes over the raw HTTP response (500s, hanging).

import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ensureClusterPki } from '../../src/auth/pki/pki.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reviews are checked field by field
export type Review = any;

export interface ReviewResponse {
  allowed: boolean;
  status?: { code?: number; message?: string; reason?: string };
  patch?: unknown[];
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
  /** Overrides the echoed uid (faults). */
  uid?: string;
  /** A raw patch field (base64 text) instead of `patch` (faults). */
  rawPatch?: string;
  patchType?: string;
}

export type Handler = (review: Review, res: ServerResponse) => ReviewResponse | 'handled' | Promise<ReviewResponse | 'handled'>;

export interface WebhookServer {
  url: (p: string) => string;
  port: number;
  caBundle: string;
  received: Map<string, Review[]>;
  on(p: string, handler: Handler): void;
  /** Lets the process exit while the server listens (a server shared by a whole run). */
  unref(): void;
  stop(): Promise<void>;
}

export const allow = (): ReviewResponse => ({ allowed: true });

/** A JSONPatch response adding one label (creating metadata.labels if needed). */
export function addLabel(review: Review, key: string, value: string): ReviewResponse {
  const labels = review.request.object?.metadata?.labels;
  const patch =
    labels === undefined || labels === null
      ? [{ op: 'add', path: '/metadata/labels', value: { [key]: value } }]
      : [{ op: 'add', path: `/metadata/labels/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, value }];
  return { allowed: true, patch };
}

export async function startWebhookServer(extraSans: string[] = []): Promise<WebhookServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-webhook-'));
  const pki = await ensureClusterPki(dir, { extraSans });
  fs.rmSync(dir, { recursive: true, force: true });
  const handlers = new Map<string, Handler>();
  const received = new Map<string, Review[]>();
  const hanging = new Set<ServerResponse>();
  const server = https.createServer({ cert: pki.servingCertPem, key: pki.servingKeyPem }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const p = new URL(req.url ?? '/', 'https://x').pathname;
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
      review.query = new URL(req.url ?? '/', 'https://x').search;
      if (!received.has(p)) received.set(p, []);
      received.get(p)!.push(review);
      const handler = handlers.get(p);
      if (handler === undefined) {
        res.writeHead(404).end();
        return;
      }
      hanging.add(res);
      res.on('close', () => hanging.delete(res));
      void Promise.resolve(handler(review, res)).then((answer) => {
        if (answer === 'handled') return;
        const response: Record<string, unknown> = { uid: answer.uid ?? review.request.uid, allowed: answer.allowed };
        if (answer.status !== undefined) response['status'] = answer.status;
        if (answer.patch !== undefined) {
          response['patch'] = Buffer.from(JSON.stringify(answer.patch)).toString('base64');
          response['patchType'] = 'JSONPatch';
        }
        if (answer.rawPatch !== undefined) response['patch'] = answer.rawPatch;
        if (answer.patchType !== undefined) response['patchType'] = answer.patchType;
        if (answer.warnings !== undefined) response['warnings'] = answer.warnings;
        if (answer.auditAnnotations !== undefined) response['auditAnnotations'] = answer.auditAnnotations;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (p) => `https://127.0.0.1:${port}${p}`,
    caBundle: Buffer.from(pki.caCertPem).toString('base64'),
    received,
    on: (p, h) => handlers.set(p, h),
    unref: () => server.unref(),
    stop: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A webhook configuration body with one webhook per entry. */
export function webhookConfiguration(
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  name: string,
  hooks: Record<string, unknown>[],
): Record<string, unknown> {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks: hooks };
}

/** One webhook on configmaps (CREATE, UPDATE) calling `url`. */
export function configMapHook(name: string, url: string, caBundle: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { url, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    ...extra,
  };
}
