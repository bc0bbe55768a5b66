// DaemonSets (upstream pkg/registry/apps/daemonset/strategy.go): generation 1
// on create and bumped by spec changes, status reset on create and kept on spec
// writes; template changes also counted in the
// deprecated.daemonset.template.generation annotation.
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import { defaultDaemonSet, TEMPLATE_GENERATION } from '../../api/apps/v1/defaults.js';
import { validateDaemonSet, validateDaemonSetStatus, validateDaemonSetUpdate } from '../../api/apps/v1/validation.js';
import { sameJSON } from '../../api/core/v1/validation.js';
import type { Strategy } from '../strategy.js';
import { keepStatusBumpGeneration, resetStatusAndGeneration, specKeepingStatusSubresource } from '../strategy-helpers.js';
import { daemonSetWarnings } from '../../api/core/v1/pod-warnings.js';

export const daemonSetStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultDaemonSet,
  prepareForCreate(obj) {
    resetStatusAndGeneration(obj);
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
  ...daemonSetWarnings(TEMPLATE_GENERATION),
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  subresources: { status: specKeepingStatusSubresource(validateDaemonSetStatus) },
};
