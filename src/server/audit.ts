// The audit log of writes (kube-apiserver's --audit-log-path with a policy of
// level Metadata for create, update, patch, delete and deletecollection): one
// audit.k8s.io/v1 Event per line, written when the response is complete, with
// who asked (and as whom, when impersonating), what, and the answer's code.

import crypto from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../machinery/user.js';
import type { RequestInfo } from './request-info.js';
import { clientAddress } from './connection-peer.js';

const WRITES = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

function userJson(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.name };
  if (user.uid !== undefined) out['uid'] = user.uid;
  out['groups'] = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out['extra'] = user.extra;
  return out;
}

/** Go's RFC3339Nano-like microsecond timestamps, as audit events carry. */
function micro(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

const annotationsByResponse = new WeakMap<ServerResponse, Record<string, string>>();

/** The audit annotations admission adds while serving the request of `res` (recorded with its event). */
export function auditAnnotationsOf(res: ServerResponse): Record<string, string> {
  let annotations = annotationsByResponse.get(res);
  if (annotations === undefined) {
    annotations = {};
    annotationsByResponse.set(res, annotations);
  }
  return annotations;
}

export class AuditLog {
  private readonly stream: fs.WriteStream;

  constructor(file: string) {
    this.stream = fs.createWriteStream(file, { flags: 'a', mode: 0o600 });
  }

  /** Records the request once its response is complete, when it is a write. */
  track(req: IncomingMessage, res: ServerResponse, info: RequestInfo, authenticated: UserInfo, impersonated: UserInfo | undefined): void {
    if (!info.isResourceRequest || !WRITES.has(info.verb)) return;
    const received = new Date();
    res.once('finish', () => {
      const event: Record<string, unknown> = {
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: crypto.randomUUID(),
        stage: 'ResponseComplete',
        requestURI: req.url ?? '',
        verb: info.verb,
        user: userJson(authenticated),
      };
      if (impersonated !== undefined) event['impersonatedUser'] = userJson(impersonated);
      event['sourceIPs'] = [clientAddress(req)];
      if (req.headers['user-agent'] !== undefined) event['userAgent'] = req.headers['user-agent'];
      const objectRef: Record<string, string> = { resource: info.resource };
      if (info.namespace !== '') objectRef['namespace'] = info.namespace;
      if (info.name !== '') objectRef['name'] = info.name;
      if (info.apiGroup !== '') objectRef['apiGroup'] = info.apiGroup;
      objectRef['apiVersion'] = info.apiVersion;
      if (info.subresource !== '') objectRef['subresource'] = info.subresource;
      event['objectRef'] = objectRef;
      event['responseStatus'] = { metadata: {}, code: res.statusCode };
      event['requestReceivedTimestamp'] = micro(received);
      event['stageTimestamp'] = micro(new Date());
      const annotations = annotationsByResponse.get(res);
      if (annotations !== undefined && Object.keys(annotations).length > 0) event['annotations'] = annotations;
      this.stream.write(`${JSON.stringify(event)}\n`);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(() => resolve()));
  }
}
