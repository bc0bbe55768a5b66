// The admission contract, which the registry owns and calls (plugins live in
// src/admission/ and import it from here, or through its re-export there).
// Plugins see every create, update and delete the
// generic store is about to write, after the strategy prepared (and, for
// validating plugins, validated) the object and before anything is stored.
// A plugin rejects by throwing a StatusError (usually 403 Forbidden); a
// mutating plugin (admit) may change `object` in place.
//
// Order, as upstream: every plugin's admit() runs first (in chain order), then
// the strategy's validation, then every plugin's validate().

import type { GroupVersionKind, GroupVersionResource, KubeObject } from '../machinery/meta.js';
import type { UserInfo } from '../machinery/user.js';

/**
 * What the HTTP layer knows of the request a write serves, for admission
 * plugins that report back to the client (webhooks' warnings, audit
 * annotations) or tell a webhook who asks. The server passes it in the write's
 * options (WriteOptions.request, DeleteOptions.request); the store puts it in
 * the attributes. Passed by hand rather than through an AsyncLocalStorage:
 * on Node 20 that switches on promise hooks for every promise of the process,
 * about 5 % of a create's CPU.
 */
export interface AdmissionRequestContext {
  user?: UserInfo;
  /** Adds a Warning header to the response (at once: a denied request carries it too). */
  addWarning(text: string): void;
  /** The request's audit annotations (the audit log records them). */
  auditAnnotations: Record<string, string>;
  /** The request's fieldManager, for the AdmissionRequest's options. */
  fieldManager?: string;
}

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionUserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface AdmissionAttributes {
  operation: AdmissionOperation;
  kind: GroupVersionKind;
  resource: GroupVersionResource;
  /** '' for the main resource, 'status', 'finalize', … */
  subresource: string;
  /** '' for cluster-scoped resources. */
  namespace: string;
  name: string;
  /** The object to be written (absent for DELETE). */
  object?: KubeObject;
  /** The stored object for UPDATE and DELETE. */
  oldObject?: KubeObject;
  dryRun: boolean;
  userInfo?: AdmissionUserInfo;
  /** The HTTP request's context, when the write came through the server. */
  request?: AdmissionRequestContext;
  /** Re-runs the kind's defaults on the object (after a webhook patched it, as upstream re-defaults). */
  applyDefaults?: (obj: KubeObject) => void;
}

export interface AdmissionPlugin {
  name: string;
  /**
   * The stores ("group/resource", "" for the core group) whose writes this
   * plugin acts on, subresources included; absent: every store. Each store
   * keeps only the plugins that may act on it, so a configmap write does not
   * call the pod plugins just to see them return.
   */
  readonly resources?: ReadonlySet<string>;
  /** Starts the plugin's background work (informers), once the registry serves; stop() ends it. */
  start?(): void;
  stop?(): void;
  /** May answer at once (undefined) when it has nothing to do: the chain awaits only what is pending. */
  admit?(a: AdmissionAttributes): Promise<void> | void;
  validate?(a: AdmissionAttributes): Promise<void> | void;
}

/**
 * Runs every plugin's admit(), in order. Undefined when every plugin answered
 * at once (most writes: no webhook, no policy, nothing to wait for), so that
 * the caller awaits nothing; a plugin's error is then thrown, not returned.
 */
export function runMutatingAdmission(plugins: readonly AdmissionPlugin[], a: AdmissionAttributes): Promise<void> | undefined {
  return runFrom(plugins, 0, a, 'admit');
}

/** Runs every plugin's validate(), in order (undefined as runMutatingAdmission). */
export function runValidatingAdmission(plugins: readonly AdmissionPlugin[], a: AdmissionAttributes): Promise<void> | undefined {
  return runFrom(plugins, 0, a, 'validate');
}

function runFrom(plugins: readonly AdmissionPlugin[], from: number, a: AdmissionAttributes, stage: 'admit' | 'validate'): Promise<void> | undefined {
  for (let i = from; i < plugins.length; i++) {
    const pending = plugins[i]![stage]?.(a);
    if (pending !== undefined) return pending.then(() => runFrom(plugins, i + 1, a, stage));
  }
  return undefined;
}
