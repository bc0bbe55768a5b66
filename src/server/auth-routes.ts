// Requests answered beside the resource routes, once the security filters let
// them through:
//   POST .../namespaces/{ns}/serviceaccounts/{name}/token   TokenRequest (bound
//        service-account tokens: audiences, expiry, optional Pod/Secret binding)
//   GET  /.well-known/openid-configuration, /openid/v1/jwks  OIDC discovery
// (upstream pkg/registry/core/serviceaccount/storage/token.go and
// pkg/serviceaccount/openidmetadata.go).

import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, badRequest, conflict, invalid, notFound } from '../machinery/errors.js';
import { fieldErrors, type FieldError } from '../machinery/field-errors.js';
import type { KubeObject } from '../machinery/meta.js';
import type { ServiceAccountTokens } from '../auth/authn/serviceaccount.js';
import { readBody } from './handlers.js';
import { decodeObject } from './codecs.js';
import { negotiateInput } from './negotiation.js';
import type { RequestInfo } from './request-info.js';
import type { RegistryView } from './routes.js';
import { writeObject } from './responses.js';

interface TokenRequestSpec {
  audiences?: string[];
  expirationSeconds?: number;
  boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
}

export function authRoutes(registry: RegistryView, tokens: ServiceAccountTokens, now: () => number) {
  const get = async (resource: string, namespace: string, name: string): Promise<KubeObject> =>
    registry.storeFor('', resource)!.get(namespace, name, {});

  async function tokenRequest(req: IncomingMessage, res: ServerResponse, info: RequestInfo): Promise<void> {
    const body = await readBody(req);
    // kubectl sends protobuf; JSON and YAML as for any create.
    const tr = decodeObject(
      body,
      negotiateInput(req.headers['content-type']),
      { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      (apiVersion, kind) => apiVersion === 'authentication.k8s.io/v1' && kind === 'TokenRequest',
    );
    const spec = ((tr['spec'] ?? {}) as TokenRequestSpec);
    const expirationSeconds = spec.expirationSeconds ?? 3600; // (?? covers protobuf's null too)
    const errs: FieldError[] = [];
    if (expirationSeconds < 600) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration less than 10 minutes'));
    if (expirationSeconds > 2 ** 32) errs.push(fieldErrors.invalid('spec.expirationSeconds', expirationSeconds, 'may not specify a duration larger than 2^32 seconds'));
    if (errs.length > 0) throw invalid('authentication.k8s.io', 'TokenRequest', info.name, errs);

    const sa = await get('serviceaccounts', info.namespace, info.name);
    const request: Parameters<ServiceAccountTokens['issue']>[0] = {
      namespace: info.namespace,
      serviceAccount: { name: info.name, uid: sa.metadata.uid! },
      audiences: spec.audiences != null && spec.audiences.length > 0 ? spec.audiences : tokens.apiAudiences,
      expirationSeconds,
    };
    const ref = spec.boundObjectRef;
    if (ref != null) {
      const kinds: Record<string, string> = { Pod: 'pods', Secret: 'secrets' };
      const resource = kinds[ref.kind ?? ''];
      if (resource === undefined) throw badRequest(`cannot bind token to object of type ${ref.apiVersion ?? ''}, Kind=${ref.kind ?? ''}`);
      let bound: KubeObject;
      try {
        bound = await get(resource, info.namespace, ref.name ?? '');
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) throw notFound({ group: '', resource }, ref.name ?? '');
        throw err;
      }
      if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== bound.metadata.uid) {
        throw conflict({ group: '', resource }, ref.name ?? '', `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`);
      }
      request.bound = { kind: ref.kind as 'Pod' | 'Secret', name: ref.name ?? '', uid: bound.metadata.uid! };
    }
    const { token, expiresAt } = await tokens.issue(request, now());
    const outSpec: Record<string, unknown> = { audiences: request.audiences, expirationSeconds };
    if (ref != null) outSpec['boundObjectRef'] = { ...ref, uid: request.bound?.uid };
    writeObject(req, res, 201, {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: info.name, namespace: info.namespace },
      spec: outSpec,
      status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    });
  }

  return async (req: IncomingMessage, res: ServerResponse, info: RequestInfo): Promise<boolean> => {
    if (info.isResourceRequest) {
      if (info.resource === 'serviceaccounts' && info.subresource === 'token' && info.apiGroup === '' && info.namespace !== '' && req.method === 'POST') {
        await tokenRequest(req, res, info);
        return true;
      }
      return false;
    }
    const path = info.path.replace(/\/+$/, '');
    if (req.method !== 'GET') return false;
    if (path === '/.well-known/openid-configuration') {
      writeJson(res, 'application/json', tokens.openIdConfiguration());
      return true;
    }
    if (path === '/openid/v1/jwks') {
      writeJson(res, 'application/jwk-set+json', await tokens.jwks());
      return true;
    }
    return false;
  };
}

function writeJson(res: ServerResponse, contentType: string, value: unknown): void {
  const body = JSON.stringify(value);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.setHeader('Cache-Control', 'public, max-age=3600');
  res.writeHead(200);
  res.end(body);
}
