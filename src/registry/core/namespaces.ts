// Namespaces: cluster-scoped DNS labels; spec.finalizers starts with
// "kubernetes" and changes only through /finalize; status.phase is Active, or
// Terminating once deleted. A deleted namespace stays (Terminating) until both
// spec.finalizers and metadata.finalizers are empty; a second DELETE meanwhile
// answers 200 with the namespace, unchanged, as kube-apiserver 1.32 does.
import type { KubeObject } from '../../machinery/meta.js';
import { nameIsDNSLabel } from '../../machinery/validation.js';
import { defaultNamespace, labelNamespaceName } from '../../api/core/v1/defaults.js';
import { validateFinalizerName, validateNamespace } from '../../api/core/v1/validation.js';
import type { Namespace } from '../../api/core/v1/types.js';
import { type FieldError, fieldErrors } from '../../machinery/field-errors.js';
import type { Strategy } from '../strategy.js';
import { fieldAt, specKeepingStatusSubresource } from '../strategy-helpers.js';
import { deepCopy } from '../../machinery/deep-copy.js';

function phaseOf(ns: Namespace): 'Active' | 'Terminating' {
  return ns.metadata.deletionTimestamp !== undefined ? 'Terminating' : 'Active';
}

function specFinalizers(obj: KubeObject): string[] {
  return (obj as Namespace).spec?.finalizers ?? [];
}

export const namespaceStrategy: Strategy = {
  namespaced: false,
  nameValidator: nameIsDNSLabel,
  defaults: defaultNamespace,
  prepareForCreate(obj) {
    const ns = obj as Namespace;
    ns.status = { phase: 'Active' };
    ns.spec ??= {};
    const finalizers = ns.spec.finalizers ?? [];
    if (!finalizers.includes('kubernetes')) ns.spec.finalizers = [...finalizers, 'kubernetes'];
    // Again here: a generated name is only known now.
    labelNamespaceName(ns);
  },
  prepareForUpdate(obj, old) {
    const ns = obj as Namespace;
    const o = old as Namespace;
    ns.spec = { ...(ns.spec ?? {}) };
    if (o.spec?.finalizers === undefined) delete ns.spec.finalizers;
    else ns.spec.finalizers = [...o.spec.finalizers];
    ns.status = deepCopy(o.status ?? {});
    labelNamespaceName(ns);
  },
  validate: validateNamespace,
  validateUpdate: validateNamespace,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  fields: { 'status.phase': fieldAt('status.phase'), name: fieldAt('metadata.name') },
  fieldLabels: ['status.phase', 'metadata.name'],
  subresources: {
    // Upstream's namespaceStatusStrategy puts back only the spec: metadata changes are kept.
    status: specKeepingStatusSubresource((obj) => {
      const ns = obj as Namespace;
      const phase = ns.status?.phase ?? '';
      if (phaseOf(ns) === 'Active' && phase !== 'Active') {
        return [fieldErrors.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty")];
      }
      if (phaseOf(ns) === 'Terminating' && phase !== 'Terminating') {
        return [fieldErrors.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")];
      }
      return [];
    }),
    finalize: {
      // As upstream's finalize strategy: the body is the new namespace (its spec and
      // its metadata, labels and annotations as sent); only the status is kept.
      prepareForUpdate(obj, old) {
        const ns = obj as Namespace;
        const oldStatus = (old as Namespace).status;
        if (oldStatus === undefined) delete ns.status;
        else ns.status = deepCopy(oldStatus);
      },
      validateUpdate(obj) {
        const errs: FieldError[] = [];
        specFinalizers(obj).forEach((f, i) => errs.push(...validateFinalizerName(f, `spec.finalizers[${i}]`)));
        return errs;
      },
    },
  },
  // The first DELETE always only marks the namespace Terminating (even with no
  // finalizers left), as upstream's namespace storage does; later ones are held
  // while spec.finalizers is not empty.
  holdsDeletion: (obj) => obj.metadata.deletionTimestamp === undefined || specFinalizers(obj).length > 0,
  startDeletion(obj) {
    const ns = obj as Namespace;
    ns.status = { ...(ns.status ?? {}), phase: 'Terminating' };
  },
  // The namespace REST checks preconditions itself, in its own words.
  deletePreconditionMessage: (field, wanted, actual) =>
    `Precondition failed: ${field} in precondition: ${wanted}, ${field} in object meta: ${actual}`,
  zeroGracePeriodOnFinalize: false,
};
