// Defaults of admissionregistration.k8s.io/v1 webhooks (upstream's
// pkg/apis/admissionregistration/v1/defaults.go): failurePolicy Fail,
// matchPolicy Equivalent, empty namespace and object selectors, timeout 10 s,
// reinvocationPolicy Never (mutating), rule scope "*", service port 443.
// sideEffects and admissionReviewVersions have no default in v1: validation requires them.

import type { KubeObject } from '../../../machinery/meta.js';
import type { MutatingWebhook, ValidatingWebhook } from './types.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function defaultWebhook(hook: ValidatingWebhook, mutating: boolean): void {
  hook.failurePolicy ??= 'Fail';
  hook.matchPolicy ??= 'Equivalent';
  hook.namespaceSelector ??= {};
  hook.objectSelector ??= {};
  hook.timeoutSeconds ??= 10;
  if (mutating) (hook as MutatingWebhook).reinvocationPolicy ??= 'Never';
  for (const rule of Array.isArray(hook.rules) ? hook.rules : []) if (isObject(rule)) rule.scope ??= '*';
  const service = isObject(hook.clientConfig) ? hook.clientConfig.service : undefined;
  if (isObject(service)) service.port ??= 443;
}

function defaulter(mutating: boolean): (obj: KubeObject) => void {
  return (obj) => {
    const hooks = (obj as { webhooks?: unknown }).webhooks;
    if (!Array.isArray(hooks)) return;
    for (const hook of hooks) if (isObject(hook)) defaultWebhook(hook as unknown as ValidatingWebhook, mutating);
  };
}

export const defaultMutatingWebhookConfiguration = defaulter(true);
export const defaultValidatingWebhookConfiguration = defaulter(false);
