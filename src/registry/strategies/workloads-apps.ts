// apps/v1 ReplicaSets, StatefulSets, DaemonSets and ControllerRevisions
// (upstream pkg/registry/apps/*/strategy.go): generation 1 on create and bumped
// by spec changes, status reset on create and kept on spec writes, selectors
// immutable; DaemonSets also count template changes in the
// deprecated.daemonset.template.generation annotation.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import { defaultDaemonSet, defaultReplicaSet, defaultStatefulSet, TEMPLATE_GENERATION } from '../../api/apps/v1/defaults.js';
import {
  validateControllerRevision,
  validateControllerRevisionUpdate,
  validateDaemonSet,
  validateDaemonSetStatus,
  validateDaemonSetUpdate,
  validateReplicaSet,
  validateReplicaSetStatus,
  validateReplicaSetUpdate,
  validateStatefulSet,
  validateStatefulSetStatus,
  validateStatefulSetUpdate,
} from '../../api/apps/v1/validation.js';
import { sameJSON } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { formatLabelSelector } from '../../api/tables/labels.js';
import { bumpGenerationOnSpecChange, fieldAt, keepStatus, statusSubresource } from './common.js';

const selectorOf = (obj: KubeObject): string => formatLabelSelector((obj['spec'] as { selector?: unknown } | undefined)?.selector);

function resetStatus(obj: KubeObject): void {
  obj.status = {};
  obj.metadata.generation = 1;
}

function keepStatusBumpGeneration(obj: KubeObject, old: KubeObject): void {
  keepStatus(obj, old);
  bumpGenerationOnSpecChange(obj, old);
}

export const replicaSetStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultReplicaSet,
  prepareForCreate: resetStatus,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateReplicaSet,
  validateUpdate: validateReplicaSetUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  fields: { 'status.replicas': fieldAt('status.replicas') },
  fieldLabels: ['metadata.name', 'metadata.namespace', 'status.replicas'],
  scale: { selector: selectorOf },
  subresources: { status: statusSubresource((obj) => validateReplicaSetStatus(obj)) },
};

export const statefulSetStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultStatefulSet,
  prepareForCreate: resetStatus,
  prepareForUpdate: keepStatusBumpGeneration,
  validate: validateStatefulSet,
  validateUpdate: validateStatefulSetUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  scale: { selector: selectorOf },
  subresources: { status: statusSubresource((obj) => validateStatefulSetStatus(obj)) },
};


export const daemonSetStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultDaemonSet,
  prepareForCreate(obj) {
    resetStatus(obj);
    // As PrepareForCreate's TemplateGeneration: at least 1 (the defaults wrote "0" when absent).
    const given = Number(obj.metadata.annotations?.[TEMPLATE_GENERATION] ?? '0');
    const generation = Number.isInteger(given) && given >= 1 ? String(given) : '1';
    obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TEMPLATE_GENERATION]: generation };
  },
  prepareForUpdate(obj, old) {
    keepStatusBumpGeneration(obj, old);
    // The template generation lives in an annotation on v1 objects: carried over, bumped when the template changes.
    const oldGeneration = Number(old.metadata.annotations?.[TEMPLATE_GENERATION] ?? '0');
    const template = (o: KubeObject): unknown => (o['spec'] as { template?: unknown } | undefined)?.template ?? null;
    const next = sameJSON(template(obj), template(old)) ? oldGeneration : oldGeneration + 1;
    if (old.metadata.annotations?.[TEMPLATE_GENERATION] !== undefined || next > 0) {
      obj.metadata.annotations = { ...(obj.metadata.annotations ?? {}), [TEMPLATE_GENERATION]: String(next) };
    }
  },
  validate: validateDaemonSet,
  validateUpdate: validateDaemonSetUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: statusSubresource((obj) => validateDaemonSetStatus(obj)) },
};

export const controllerRevisionStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  validate: validateControllerRevision,
  validateUpdate: validateControllerRevisionUpdate,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
};
