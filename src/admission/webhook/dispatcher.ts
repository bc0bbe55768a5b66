// MutatingAdmissionWebhook and ValidatingAdmissionWebhook (upstream's
// admission/plugin/webhook/mutating and .../validating dispatchers).
//
// Mutating: the matching webhooks run one after another in configuration
// order; each answer's JSONPatch is applied to the object (then the kind's
// defaults run again). reinvocationPolicy IfNeeded: a webhook that ran before
// a later one changed the object runs once more, after the first round, as
// upstream's reinvocation does.
// Validating: the matching webhooks run in parallel; the first failure (in
// configuration order) is the answer.
//
// Failures, as upstream words them:
// - the webhook denies: its status, message prefixed `admission webhook "x"
//   denied the request: …` (at least 400);
// - the call fails (unreachable, timeout, non-2xx, bad response, bad patch
//   encoding): with failurePolicy Fail a 500 `Internal error occurred: failed
//   calling webhook "x": …`; with Ignore the webhook is skipped (and the audit
//   log says it failed open);
// - a dry-run request and a webhook with side effects: 400 `admission webhook
//   "x" does not support dry run`, whatever the failure policy;
// - a patch that does not apply: 500, whatever the failure policy.
// Warnings go to the response's Warning headers, audit annotations (prefixed
// with the webhook's name) to the audit log.

import crypto from 'node:crypto';
import jsonpatch from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { isDeepStrictEqual } from 'node:util';
import { releaseWideKeys } from '../../machinery/wide-keys.js';
import type { MutatingWebhook } from '../../api/admissionregistration/v1/types.js';
import { StatusError, badRequest, internalError, type Status } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../../registry/admission.js';
import type { RESTStore } from '../../registry/rest.js';
import { WebhookCallError, callWebhook, type ServiceResolver } from './client.js';
import { type ConfiguredWebhook, WebhookConfigurationSource } from './configuration.js';
import { type NamespaceLabels, isExemptResource, shouldCall } from './matching.js';
import { deepCopy } from '../../machinery/deep-copy.js';

export interface WebhookAdmissionOptions {
  /** The configuration stores (looked up when first needed: the registry is built after the chain). */
  store: () => RESTStore | undefined;
  namespaceLabels: NamespaceLabels;
  resolveService: ServiceResolver;
  uid?: () => string;
}

/** A call that failed before the webhook could decide (upstream's ErrCallingWebhook). */
class CallingWebhookError extends Error {
  constructor(
    readonly webhook: string,
    readonly reason: string,
  ) {
    super(`failed calling webhook ${JSON.stringify(webhook)}: ${reason}`);
  }
}

/** upstream's webhookerrors.ToStatusErr: the webhook's own status, as a denial. */
function denial(webhook: string, result: Partial<Status> | undefined): StatusError {
  const deniedBy = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const r = result ?? {};
  const code = typeof r.code === 'number' && r.code >= 400 ? r.code : 400;
  let message: string;
  if (typeof r.message === 'string' && r.message !== '') message = `${deniedBy}: ${r.message}`;
  else if (typeof r.reason === 'string' && r.reason !== '') message = `${deniedBy}: ${r.reason}`;
  else message = `${deniedBy} without explanation`;
  const err = new StatusError(code, (r.reason ?? '') as StatusError['reason'], message, r.details);
  return err;
}

function reviewVersion(hook: MutatingWebhook): string | undefined {
  const versions = hook.admissionReviewVersions ?? [];
  if (versions.includes('v1')) return 'v1';
  if (versions.includes('v1beta1')) return 'v1beta1';
  return undefined;
}

function withTypeMeta(obj: KubeObject | undefined, a: AdmissionAttributes): KubeObject | null {
  if (obj === undefined) return null;
  const apiVersion = a.kind.group === '' ? a.kind.version : `${a.kind.group}/${a.kind.version}`;
  const { apiVersion: _v, kind: _k, ...rest } = obj;
  return { apiVersion, kind: a.kind.kind, ...rest } as KubeObject;
}

/**
 * The object a webhook sees. On CREATE, upstream admits the decoded body
 * before the store fills system fields: no uid, creationTimestamp null, no
 * managedFields yet (apiary's store set them already; the view leaves them out
 * and restoreSystemFields puts them back after a patch).
 */
function reviewObject(obj: KubeObject | undefined, a: AdmissionAttributes): KubeObject | null {
  const out = withTypeMeta(obj, a);
  if (out === null || a.operation !== 'CREATE') return out;
  const { uid: _u, creationTimestamp: _c, managedFields: _m, generation: _g, resourceVersion: _r, ...meta } = out.metadata ?? {};
  out.metadata = { ...meta, creationTimestamp: null } as unknown as KubeObject['metadata'];
  return out;
}

function restoreSystemFields(patched: KubeObject, original: KubeObject, a: AdmissionAttributes): void {
  if (a.operation !== 'CREATE') return;
  const meta = patched.metadata as Record<string, unknown>;
  for (const key of ['uid', 'creationTimestamp', 'managedFields', 'generation', 'resourceVersion'] as const) {
    const value = (original.metadata as Record<string, unknown>)[key];
    if (value === undefined) delete meta[key];
    else meta[key] = value;
  }
}

/** Go's encoding/json syntax error text for what JSON.parse refused. */
function goJsonSyntaxError(err: Error): string {
  if (/end of (JSON|data)/i.test(err.message)) return 'unexpected end of JSON input';
  const m = /Unexpected token '?(.)'?/.exec(err.message);
  if (m) return `invalid character '${m[1]}' looking for beginning of value`;
  return err.message;
}

/** evanphx/json-patch's words for the common failures (a path that is not there). */
function jsonPatchError(err: unknown, ops: Operation[]): string {
  const e = err as { name?: string; index?: number; operation?: Operation; message?: string };
  const op = e.operation ?? (e.index !== undefined ? ops[e.index] : undefined);
  if (op !== undefined && (e.name === 'OPERATION_PATH_UNRESOLVABLE' || /cannot perform|does not exist|unresolvable/i.test(e.message ?? ''))) {
    if (op.op === 'replace' || op.op === 'remove') return `${op.op} operation does not apply: doc is missing path: ${op.path}: missing value`;
    if (op.op === 'add') return `add operation does not apply: doc is missing path: ${JSON.stringify(op.path)}: missing value`;
  }
  if (op !== undefined && op.op === 'test') return `testing value ${op.path} failed: test failed`;
  return e.message ?? String(err);
}

/** The AdmissionRequest of `a`, in Go's field order. */
export function admissionRequest(a: AdmissionAttributes, uid: string): Record<string, unknown> {
  const r: Record<string, unknown> = { uid, kind: { ...a.kind }, resource: { ...a.resource } };
  if (a.subresource !== '') r['subResource'] = a.subresource;
  r['requestKind'] = { ...a.kind };
  r['requestResource'] = { ...a.resource };
  if (a.subresource !== '') r['requestSubResource'] = a.subresource;
  if (a.name !== '') r['name'] = a.name;
  if (a.namespace !== '') r['namespace'] = a.namespace;
  r['operation'] = a.operation;
  const user: Record<string, unknown> = {};
  if (a.userInfo !== undefined) {
    if (a.userInfo.username !== '') user['username'] = a.userInfo.username;
    if (a.userInfo.uid !== undefined && a.userInfo.uid !== '') user['uid'] = a.userInfo.uid;
    if (a.userInfo.groups !== undefined && a.userInfo.groups.length > 0) user['groups'] = a.userInfo.groups;
    if (a.userInfo.extra !== undefined && Object.keys(a.userInfo.extra).length > 0) user['extra'] = a.userInfo.extra;
  }
  r['userInfo'] = user;
  r['object'] = reviewObject(a.object, a);
  r['oldObject'] = withTypeMeta(a.oldObject, a);
  r['dryRun'] = a.dryRun;
  const optionsKind = a.operation === 'CREATE' ? 'CreateOptions' : a.operation === 'UPDATE' ? 'UpdateOptions' : a.operation === 'DELETE' ? 'DeleteOptions' : undefined;
  if (optionsKind !== undefined) {
    const options: Record<string, unknown> = { kind: optionsKind, apiVersion: 'meta.k8s.io/v1' };
    if (a.dryRun) options['dryRun'] = ['All'];
    const manager = a.request?.fieldManager;
    if (manager !== undefined && optionsKind !== 'DeleteOptions') options['fieldManager'] = manager;
    r['options'] = options;
  } else r['options'] = null;
  return r;
}

interface ReviewResponse {
  uid?: string;
  allowed?: boolean;
  status?: Partial<Status>;
  patch?: string;
  patchType?: string;
  auditAnnotations?: Record<string, string>;
  warnings?: string[];
}

/** upstream's VerifyAdmissionResponse. */
function verifyResponse(body: unknown, uid: string, version: string, mutating: boolean): ReviewResponse {
  const review = (body ?? {}) as { apiVersion?: string; kind?: string; response?: ReviewResponse };
  if (review.response === undefined || review.response === null) throw new Error('webhook response was absent');
  const r = review.response;
  if ((r.uid ?? '') !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(r.uid ?? '')}`);
  const expected = `admission.k8s.io/${version}`;
  if (review.apiVersion !== expected || review.kind !== 'AdmissionReview') {
    const [g, v] = (review.apiVersion ?? '').includes('/') ? (review.apiVersion ?? '').split('/') : ['', review.apiVersion ?? ''];
    throw new Error(`expected webhook response of ${expected}, Kind=AdmissionReview, got ${g}/${v}, Kind=${review.kind ?? ''}`);
  }
  const patchType = r.patchType ?? '';
  const patch = r.patch ?? '';
  if (mutating) {
    if (patch !== '' && patchType === '') throw new Error('webhook returned response.patch but not response.patchType');
    if (patchType !== '' && patch === '') throw new Error('webhook returned response.patchType but not response.patch');
  } else if (patch !== '' || patchType !== '') throw new Error('validating webhooks may not return patches');
  return r;
}

function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const key of Object.keys(target)) delete (target as Record<string, unknown>)[key];
  Object.assign(target, source);
}

abstract class WebhookDispatcher {
  protected readonly source: WebhookConfigurationSource;
  protected readonly uid: () => string;

  constructor(protected readonly options: WebhookAdmissionOptions) {
    this.source = new WebhookConfigurationSource(options.store);
    this.uid = options.uid ?? (() => crypto.randomUUID());
  }

  stop(): void {
    this.source.stop();
  }

  /** Nothing to call for `a`, known without waiting (the configurations are in and name no webhook, or `a` is exempt). */
  protected idle(a: AdmissionAttributes): boolean {
    return isExemptResource(a) || this.source.current()?.length === 0;
  }

  /** The webhooks to call for `a`, in order. */
  protected async matching(a: AdmissionAttributes): Promise<ConfiguredWebhook[]> {
    if (isExemptResource(a)) return [];
    const hooks = await this.source.webhooks();
    if (hooks.length === 0) return [];
    const out: ConfiguredWebhook[] = [];
    let request: unknown;
    const requestOf = (): unknown => (request ??= admissionRequest(a, ''));
    for (const w of hooks) if (await shouldCall(w, a, this.options.namespaceLabels, requestOf)) out.push(w);
    return out;
  }

  /** One call: the verified response (or a CallingWebhookError / a dry-run StatusError). */
  protected async call(w: ConfiguredWebhook, a: AdmissionAttributes, mutating: boolean): Promise<ReviewResponse> {
    const hook = w.hook;
    if (a.dryRun && hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') {
      if (hook.sideEffects === undefined) throw new CallingWebhookError(hook.name, 'Webhook SideEffects is nil');
      throw badRequest(`admission webhook ${JSON.stringify(hook.name)} does not support dry run`);
    }
    const version = reviewVersion(hook);
    if (version === undefined) {
      throw new CallingWebhookError(hook.name, 'could not create admission objects: webhook does not accept v1 or v1beta1 AdmissionReview');
    }
    const uid = this.uid();
    const review = { kind: 'AdmissionReview', apiVersion: `admission.k8s.io/${version}`, request: admissionRequest(a, uid) };
    let body: unknown;
    try {
      body = await callWebhook(hook.clientConfig, review, { timeoutSeconds: hook.timeoutSeconds ?? 10, resolveService: this.options.resolveService });
    } catch (err) {
      if (err instanceof WebhookCallError) throw new CallingWebhookError(hook.name, `failed to call webhook: ${err.message}`);
      throw err;
    }
    let response: ReviewResponse;
    try {
      response = verifyResponse(body, uid, version, mutating);
    } catch (err) {
      throw new CallingWebhookError(hook.name, `received invalid webhook response: ${(err as Error).message}`);
    }
    for (const [k, v] of Object.entries(response.auditAnnotations ?? {})) {
      if (a.request !== undefined) a.request.auditAnnotations[`${hook.name}/${k}`] = v;
    }
    for (const text of response.warnings ?? []) a.request?.addWarning(text);
    if (response.allowed !== true) throw denial(hook.name, response.status);
    return response;
  }

  /** A failure under the webhook's failure policy: undefined to go on (Ignore), else the error to answer. */
  protected failure(w: ConfiguredWebhook, err: unknown, a: AdmissionAttributes, failedOpenKey: string): Error | undefined {
    if (err instanceof CallingWebhookError) {
      if ((w.hook.failurePolicy ?? 'Fail') === 'Ignore') {
        if (a.request !== undefined) a.request.auditAnnotations[failedOpenKey] = w.hook.name;
        return undefined;
      }
      return internalError(err);
    }
    return err as Error;
  }
}

export class MutatingWebhookAdmission extends WebhookDispatcher implements AdmissionPlugin {
  readonly name = 'MutatingAdmissionWebhook';

  admit(a: AdmissionAttributes): Promise<void> | undefined {
    return this.idle(a) ? undefined : this.admitCalling(a);
  }

  private async admitCalling(a: AdmissionAttributes): Promise<void> {
    const hooks = await this.matching(a);
    if (hooks.length === 0) return;
    // Reinvocation bookkeeping (upstream's webhookReinvokeContext).
    let previouslyInvoked = new Set<string>();
    const reinvoke = new Set<string>();
    for (let i = 0; i < hooks.length; i++) {
      const w = hooks[i]!;
      const changed = await this.mutate(w, a, 0, i);
      if (changed) {
        for (const uid of previouslyInvoked) reinvoke.add(uid);
        previouslyInvoked = new Set();
      }
      if (w.hook.reinvocationPolicy === 'IfNeeded') previouslyInvoked.add(w.uid);
    }
    if (reinvoke.size === 0) return;
    for (let i = 0; i < hooks.length; i++) {
      const w = hooks[i]!;
      if (reinvoke.has(w.uid)) await this.mutate(w, a, 1, i);
    }
  }

  /** Calls one webhook and applies its patch; whether the object changed. */
  private async mutate(w: ConfiguredWebhook, a: AdmissionAttributes, round: number, index: number): Promise<boolean> {
    const hook = w.hook;
    let changed = false;
    try {
      const response = await this.call(w, a, true);
      const patchText = response.patch ?? '';
      if (patchText === '') return false;
      let ops: unknown;
      try {
        ops = JSON.parse(Buffer.from(patchText, 'base64').toString('utf8'));
      } catch (err) {
        // What kube-apiserver answers for a patch that is no JSON: Go's decode error, whatever the failure policy.
        throw internalError(new Error(goJsonSyntaxError(err as Error)));
      }
      if (!Array.isArray(ops)) {
        const kind = ops === null ? 'null' : typeof ops === 'object' ? 'object' : typeof ops === 'boolean' ? 'bool' : typeof ops;
        throw new CallingWebhookError(hook.name, `received undecodable patch in webhook response: json: cannot unmarshal ${kind} into Go value of type jsonpatch.Patch`);
      }
      if (ops.length === 0) return false;
      if (a.object === undefined) {
        throw internalError(new Error(`admission webhook ${JSON.stringify(hook.name)} attempted to modify the object, which is not supported for this operation`));
      }
      if (response.patchType !== 'JSONPatch') throw new CallingWebhookError(hook.name, `unsupported patch type ${JSON.stringify(response.patchType)}`);
      const before = reviewObject(a.object, a)!;
      let patched: KubeObject;
      try {
        patched = jsonpatch.applyPatch(deepCopy(before), ops as Operation[], true, false).newDocument;
      } catch (err) {
        throw internalError(new Error(jsonPatchError(err, ops as Operation[])));
      }
      if (patched === null || typeof patched !== 'object' || Array.isArray(patched)) throw internalError(new Error('the patched object is not an object'));
      patched.metadata ??= {};
      restoreSystemFields(patched, a.object, a);
      a.applyDefaults?.(patched);
      // isDeepStrictEqual compares prototypes: a large request's kept maps get their plain one back first.
      releaseWideKeys();
      changed = !isDeepStrictEqual(withTypeMeta(a.object, a), patched);
      if (changed) replaceContents(a.object, patched);
      return changed;
    } catch (err) {
      const failure = this.failure(w, err, a, `failed-open.mutation.webhook.admission.k8s.io/round_${round}_index_${index}`);
      if (failure !== undefined) throw failure;
      return false;
    } finally {
      if (a.request !== undefined) {
        a.request.auditAnnotations[`mutation.webhook.admission.k8s.io/round_${round}_index_${index}`] = JSON.stringify({
          configuration: w.configurationName,
          webhook: hook.name,
          mutated: changed,
        });
      }
    }
  }
}

export class ValidatingWebhookAdmission extends WebhookDispatcher implements AdmissionPlugin {
  readonly name = 'ValidatingAdmissionWebhook';

  validate(a: AdmissionAttributes): Promise<void> | undefined {
    return this.idle(a) ? undefined : this.validateCalling(a);
  }

  private async validateCalling(a: AdmissionAttributes): Promise<void> {
    const hooks = await this.matching(a);
    if (hooks.length === 0) return;
    const results = await Promise.all(
      hooks.map(async (w, i) => {
        try {
          await this.call(w, a, false);
          return undefined;
        } catch (err) {
          return this.failure(w, err, a, `failed-open.validating.webhook.admission.k8s.io/round_0_index_${i}`);
        }
      }),
    );
    const first = results.find((r) => r !== undefined);
    if (first !== undefined) throw first;
  }
}
