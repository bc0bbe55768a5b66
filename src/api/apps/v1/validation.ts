// apps/v1 Deployment validation (upstream pkg/apis/apps/validation, main rules).
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { FIELD_IMMUTABLE_ERROR_MSG, IS_NEGATIVE_ERROR_MSG, validateAnnotations, validateLabels } from '../../../machinery/validation.js';
import { labelSelectorFromMeta } from '../../../machinery/labels.js';
import { StatusError } from '../../../machinery/errors.js';
import { goLabelSelector, goStringMap } from '../../../machinery/go-syntax.js';
import { collisionCountDecremented, replicaCountErrors, sameJSON, validatePodTemplateSpec, validateRestartAlways } from '../../core/v1/validation.js';
import { GoValue } from '../../../machinery/field-errors.js';
import type { ControllerRevision, DaemonSet, Deployment, LabelSelector, ReplicaSet, StatefulSet } from './types.js';
import type { PodTemplateSpec } from '../../core/v1/types.js';

const STRATEGY_TYPES = ['Recreate', 'RollingUpdate'];

function isEmptySelector(sel: LabelSelector | undefined): boolean {
  return Object.keys(sel?.matchLabels ?? {}).length === 0 && (sel?.matchExpressions ?? []).length === 0;
}

function nonNegative(value: number | undefined, path: string): FieldError[] {
  return value !== undefined && value < 0 ? [fieldErrors.invalid(path, value, IS_NEGATIVE_ERROR_MSG)] : [];
}

/** An int or a percentage ("25%"); both non-negative. */
function validateIntOrPercent(value: number | string | undefined, path: string): FieldError[] {
  if (value === undefined) return [];
  if (typeof value === 'number') return nonNegative(value, path);
  const m = /^(\d+)%$/.exec(value);
  if (m === null) return [fieldErrors.invalid(path, value, "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')")];
  if (Number(m[1]) > 100) return [fieldErrors.invalid(path, value, 'must not be greater than 100%')];
  return [];
}

export function validateDeployment(obj: KubeObject): FieldError[] {
  const d = obj as Deployment;
  const spec = d.spec ?? {};
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  if (spec.selector === undefined || spec.selector === null) {
    errs.push(fieldErrors.required('spec.selector'));
  } else if (isEmptySelector(spec.selector)) {
    errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), 'empty selector is invalid for deployment'));
  } else {
    let matches = true;
    try {
      const selector = labelSelectorFromMeta(spec.selector);
      matches = selector.matches(spec.template?.metadata?.labels ?? {});
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
      errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), err.message));
    }
    if (!matches) {
      errs.push(
        fieldErrors.invalid('spec.template.metadata.labels', goStringMap(spec.template?.metadata?.labels), '`selector` does not match template `labels`'),
      );
    }
  }
  errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
  errs.push(...validateRestartAlways(spec.template, 'spec.template'));
  const type = spec.strategy?.type ?? '';
  if (type === '') errs.push(fieldErrors.required('spec.strategy.type'));
  else if (!STRATEGY_TYPES.includes(type)) errs.push(fieldErrors.notSupported('spec.strategy.type', type, STRATEGY_TYPES));
  if (type === 'Recreate' && spec.strategy?.rollingUpdate !== undefined) {
    errs.push(fieldErrors.forbidden('spec.strategy.rollingUpdate', 'may not be specified when strategy `type` is \'Recreate\''));
  }
  const ru = spec.strategy?.rollingUpdate;
  if (type === 'RollingUpdate' && ru !== undefined) {
    errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.strategy.rollingUpdate.maxUnavailable'));
    errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.strategy.rollingUpdate.maxSurge'));
    if (isZero(ru.maxUnavailable) && isZero(ru.maxSurge)) {
      errs.push(fieldErrors.invalid('spec.strategy.rollingUpdate.maxUnavailable', goIntOrString(ru.maxUnavailable), 'may not be 0 when `maxSurge` is 0'));
    }
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  if (spec.progressDeadlineSeconds !== undefined && spec.progressDeadlineSeconds <= (spec.minReadySeconds ?? 0)) {
    errs.push(fieldErrors.invalid('spec.progressDeadlineSeconds', spec.progressDeadlineSeconds, 'must be greater than minReadySeconds'));
  }
  return errs;
}

function isZero(v: number | string | undefined): boolean {
  return v === 0 || v === '0%';
}

export function validateDeploymentUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateDeployment(obj);
  const a = (obj as Deployment).spec?.selector;
  const b = (old as Deployment).spec?.selector;
  if (!sameJSON(a ?? null, b ?? null)) errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(a), FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

export function validateDeploymentStatus(obj: KubeObject): FieldError[] {
  const status = (obj as Deployment).status ?? {};
  const errs: FieldError[] = [];
  for (const f of ['observedGeneration', 'replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas', 'collisionCount'] as const) {
    errs.push(...nonNegative(status[f], `status.${f}`));
  }
  errs.push(...replicaCountErrors(status, ['updatedReplicas', 'readyReplicas', 'availableReplicas'], 'cannot be greater than readyReplicas'));
  return errs;
}

export function validateDeploymentStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateDeploymentStatus(obj), ...collisionCountDecremented(obj, old)];
}

// ---- ReplicaSet, StatefulSet, DaemonSet, ControllerRevision ------------------------

/**
 * A selector that is required, not empty, valid, and matches the template's
 * labels (upstream's ValidateReplicaSetSpec / StatefulSet / DaemonSet share it;
 * "for deployment" is upstream's word in every one of them).
 */
function validateSelectorForTemplate(selector: LabelSelector | undefined, template: PodTemplateSpec | undefined, emptyError = true): FieldError[] {
  const errs: FieldError[] = [];
  if (selector === undefined || selector === null) {
    errs.push(fieldErrors.required('spec.selector'));
  } else if (isEmptySelector(selector)) {
    if (emptyError) errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(selector), 'empty selector is invalid for deployment'));
  }
  let matches = true;
  try {
    // An absent selector matches nothing; an empty one everything (its own error says it is invalid).
    if (selector === undefined || selector === null) matches = false;
    else if (isEmptySelector(selector)) return errs;
    else matches = labelSelectorFromMeta(selector).matches(template?.metadata?.labels ?? {});
  } catch (err) {
    if (!(err instanceof StatusError)) throw err;
    errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(selector), err.message));
    return errs;
  }
  if (!matches && template !== undefined) {
    errs.push(fieldErrors.invalid('spec.template.metadata.labels', goStringMap(template.metadata?.labels), '`selector` does not match template `labels`'));
  }
  return errs;
}

function activeDeadlineForbidden(template: PodTemplateSpec | undefined, kind: string): FieldError[] {
  const ads = (template?.spec as { activeDeadlineSeconds?: number } | undefined)?.activeDeadlineSeconds;
  return ads !== undefined && ads !== null ? [fieldErrors.forbidden('spec.template.spec.activeDeadlineSeconds', `activeDeadlineSeconds in ${kind} is not Supported`)] : [];
}

function restartAlwaysRequired(template: PodTemplateSpec | undefined): FieldError[] {
  const policy = template?.spec?.restartPolicy ?? '';
  return policy !== 'Always' ? [fieldErrors.notSupported('spec.template.spec.restartPolicy', policy, ['Always'])] : [];
}

function selectorImmutable(a: LabelSelector | undefined, b: LabelSelector | undefined): FieldError[] {
  return sameJSON(a ?? null, b ?? null) ? [] : [fieldErrors.invalid('spec.selector', goLabelSelector(a), FIELD_IMMUTABLE_ERROR_MSG)];
}

function nonNegativeStatus(status: Record<string, unknown> | undefined, fields: readonly string[]): FieldError[] {
  const errs: FieldError[] = [];
  for (const f of fields) {
    const v = status?.[f];
    if (typeof v === 'number') errs.push(...nonNegative(v, `status.${f}`));
  }
  return errs;
}

export function validateReplicaSet(obj: KubeObject): FieldError[] {
  const spec = (obj as ReplicaSet).spec ?? {};
  const errs: FieldError[] = [];
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  errs.push(...validateSelectorForTemplate(spec.selector, spec.template));
  if (spec.template === undefined) errs.push(fieldErrors.required('spec.template'));
  else {
    errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
    errs.push(...restartAlwaysRequired(spec.template));
    errs.push(...activeDeadlineForbidden(spec.template, 'ReplicaSet'));
  }
  return errs;
}

export function validateReplicaSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateReplicaSet(obj), ...selectorImmutable((obj as ReplicaSet).spec?.selector, (old as ReplicaSet).spec?.selector)];
}

export function validateReplicaSetStatus(obj: KubeObject): FieldError[] {
  const status = (obj as ReplicaSet).status as Record<string, unknown> | undefined;
  const errs = nonNegativeStatus(status, ['replicas', 'fullyLabeledReplicas', 'readyReplicas', 'availableReplicas', 'observedGeneration']);
  errs.push(...replicaCountErrors(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'], 'cannot be greater than readyReplicas'));
  return errs;
}

function statefulSetUpdateStrategyValue(s: { type?: string; rollingUpdate?: unknown } | undefined): GoValue {
  const ru = s?.rollingUpdate === undefined || s.rollingUpdate === null ? '(*apps.RollingUpdateStatefulSetStrategy)(nil)' : '(*apps.RollingUpdateStatefulSetStrategy)(0x0)';
  return new GoValue(`apps.StatefulSetUpdateStrategy{Type:${JSON.stringify(s?.type ?? '')}, RollingUpdate:${ru}}`);
}

export function validateStatefulSet(obj: KubeObject): FieldError[] {
  const spec = (obj as StatefulSet).spec ?? {};
  const errs: FieldError[] = [];
  const policy = spec.podManagementPolicy ?? '';
  if (policy === '') errs.push(fieldErrors.required('spec.podManagementPolicy', ''));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(fieldErrors.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  const strategy = spec.updateStrategy;
  const type = strategy?.type ?? '';
  if (type === 'RollingUpdate') {
    const partition = strategy?.rollingUpdate?.partition;
    if (partition !== undefined) errs.push(...nonNegative(partition, 'spec.updateStrategy.rollingUpdate.partition'));
  } else if (type === 'OnDelete') {
    if (strategy?.rollingUpdate !== undefined && strategy.rollingUpdate !== null) {
      errs.push(fieldErrors.invalid('spec.updateStrategy.rollingUpdate', new GoValue('(*apps.RollingUpdateStatefulSetStrategy)(0x0)'), "only allowed for updateStrategy 'RollingUpdate'"));
    }
  } else if (type === '') errs.push(fieldErrors.required('spec.updateStrategy', ''));
  else errs.push(fieldErrors.invalid('spec.updateStrategy', statefulSetUpdateStrategyValue(strategy), "must be 'RollingUpdate' or 'OnDelete'"));
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  for (const f of ['whenDeleted', 'whenScaled'] as const) {
    const v = retention?.[f] ?? '';
    if (v !== 'Retain' && v !== 'Delete') errs.push(fieldErrors.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${f}`, v, ['Retain', 'Delete']));
  }
  errs.push(...nonNegative(spec.replicas, 'spec.replicas'));
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  if (spec.ordinals?.start !== undefined) errs.push(...nonNegative(spec.ordinals.start, 'spec.ordinals.start'));
  errs.push(...validateSelectorForTemplate(spec.selector, spec.template));
  if (spec.template === undefined) errs.push(fieldErrors.required('spec.template'));
  else {
    // Upstream's ValidatePodTemplateSpecForStatefulSet checks the template's labels and annotations
    // only, not its pod spec: volume mounts may name volumeClaimTemplates (bitnami's charts do).
    errs.push(...validateLabels(spec.template.metadata?.labels, 'spec.template.labels'));
    errs.push(...validateAnnotations(spec.template.metadata?.annotations, 'spec.template.annotations'));
    errs.push(...restartAlwaysRequired(spec.template));
    errs.push(...activeDeadlineForbidden(spec.template, 'StatefulSet'));
  }
  return errs;
}

/** Upstream lets an update change replicas, ordinals, template, updateStrategy, retention policy and minReadySeconds only. */
export function validateStatefulSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateStatefulSet(obj);
  const strip = (s: StatefulSet['spec']): Record<string, unknown> => {
    const c: Record<string, unknown> = { ...(s ?? {}) };
    for (const f of ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds']) delete c[f];
    return c;
  };
  if (!sameJSON(strip((obj as StatefulSet).spec), strip((old as StatefulSet).spec))) {
    errs.push(
      fieldErrors.forbidden(
        'spec',
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errs;
}

export function validateStatefulSetStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const status = (obj as StatefulSet).status;
  const errs = nonNegativeStatus(status, ['replicas', 'readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas', 'observedGeneration', 'collisionCount']);
  errs.push(...replicaCountErrors(status, ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas'], 'cannot be greater than status.readyReplicas'));
  errs.push(...collisionCountDecremented(obj, old));
  return errs;
}

function daemonSetUpdateStrategyValue(s: { type?: string; rollingUpdate?: unknown } | undefined): GoValue {
  const ru = s?.rollingUpdate === undefined || s.rollingUpdate === null ? '(*apps.RollingUpdateDaemonSet)(nil)' : '(*apps.RollingUpdateDaemonSet)(0x0)';
  return new GoValue(`apps.DaemonSetUpdateStrategy{Type:${JSON.stringify(s?.type ?? '')}, RollingUpdate:${ru}}`);
}

export function validateDaemonSet(obj: KubeObject): FieldError[] {
  const spec = (obj as DaemonSet).spec ?? {};
  const errs: FieldError[] = [];
  errs.push(...validateSelectorForTemplate(spec.selector, spec.template, false));
  if (spec.selector !== undefined && isEmptySelector(spec.selector)) {
    errs.push(fieldErrors.invalid('spec.selector', goLabelSelector(spec.selector), 'empty selector is invalid for daemonset'));
  }
  if (spec.template === undefined) errs.push(fieldErrors.required('spec.template'));
  else {
    errs.push(...validatePodTemplateSpec(spec.template, 'spec.template'));
    errs.push(...restartAlwaysRequired(spec.template));
    errs.push(...activeDeadlineForbidden(spec.template, 'DaemonSet'));
  }
  errs.push(...nonNegative(spec.minReadySeconds, 'spec.minReadySeconds'));
  const strategy = spec.updateStrategy;
  const type = strategy?.type ?? '';
  if (type === 'RollingUpdate') {
    const ru = strategy?.rollingUpdate;
    if (ru === undefined || ru === null) errs.push(fieldErrors.required('spec.updateStrategy.rollingUpdate'));
    else {
      errs.push(...validateIntOrPercent(ru.maxUnavailable, 'spec.updateStrategy.rollingUpdate.maxUnavailable'));
      errs.push(...validateIntOrPercent(ru.maxSurge, 'spec.updateStrategy.rollingUpdate.maxSurge'));
      const zero = (v: number | string | undefined): boolean => v === undefined || v === 0 || v === '0%';
      if (zero(ru.maxUnavailable) && zero(ru.maxSurge)) {
        errs.push(fieldErrors.required('spec.updateStrategy.rollingUpdate.maxUnavailable', 'cannot be 0 when maxSurge is 0'));
      }
    }
  } else if (type !== 'OnDelete') {
    errs.push(fieldErrors.notSupported('spec.updateStrategy', daemonSetUpdateStrategyValue(strategy), ['RollingUpdate', 'OnDelete']));
  }
  errs.push(...nonNegative(spec.revisionHistoryLimit, 'spec.revisionHistoryLimit'));
  return errs;
}

export function validateDaemonSetUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return [...validateDaemonSet(obj), ...selectorImmutable((obj as DaemonSet).spec?.selector, (old as DaemonSet).spec?.selector)];
}

export function validateDaemonSetStatus(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = nonNegativeStatus((obj as DaemonSet).status, [
    'currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady', 'observedGeneration',
    'updatedNumberScheduled', 'numberAvailable', 'numberUnavailable', 'collisionCount',
  ]);
  errs.push(...collisionCountDecremented(obj, old));
  return errs;
}

export function validateControllerRevision(obj: KubeObject): FieldError[] {
  const cr = obj as ControllerRevision;
  const errs: FieldError[] = [];
  errs.push(...nonNegative(cr.revision, 'revision'));
  if (cr.data === undefined || cr.data === null) errs.push(fieldErrors.required('data', 'data is mandatory'));
  return errs;
}

export function validateControllerRevisionUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateControllerRevision(obj);
  if (!sameJSON((obj as ControllerRevision).data ?? null, (old as ControllerRevision).data ?? null)) {
    errs.push(fieldErrors.invalid('data', new GoValue('runtime.RawExtension{}'), FIELD_IMMUTABLE_ERROR_MSG));
  }
  return errs;
}

/** An IntOrString as Go's %#v prints it in a field error. */
function goIntOrString(v: number | string | undefined | null): GoValue {
  return typeof v === 'string' ? new GoValue(`intstr.IntOrString{Type:1, IntVal:0, StrVal:${JSON.stringify(v)}}`) : new GoValue(`intstr.IntOrString{Type:0, IntVal:${v ?? 0}, StrVal:""}`);
}
