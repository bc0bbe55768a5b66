// The CustomResourceDefinition strategy (upstream's
// pkg/registry/customresourcedefinition/strategy.go and etcd.go): defaults,
// status reset on create with storedVersions seeded from the storage version,
// generation bumps on spec changes, validation, a /status subresource, and
// deletion through the customresourcecleanup finalizer: the first DELETE
// marks the CRD (deletionTimestamp, the finalizer, Terminating=True) instead
// of removing it; the cleanup controller deletes its custom resources and
// then drops the finalizer.

import type { KubeObject } from '../machinery/meta.js';
import { formatTimestamp, systemClock, type Clock } from '../machinery/names.js';
import { nameIsDNSSubdomain } from '../machinery/validation.js';
import { bumpGenerationOnSpecChange, keepStatus, statusSubresource } from '../registry/strategy-helpers.js';
import type { Strategy } from '../registry/strategy.js';
import type { ValidationRuleCompiler } from './cel.js';
import { CLEANUP_FINALIZER, type CustomResourceDefinition, setCondition } from './types.js';
import { validateCustomResourceDefinition, validateNames } from './validation.js';

/** SetDefaults_CustomResourceDefinition(Spec) of apiextensions/v1. */
export function defaultCustomResourceDefinition(obj: KubeObject): void {
  const crd = obj as CustomResourceDefinition;
  const spec = (crd.spec ??= {});
  const names = (spec.names ??= {});
  if (!names.singular && names.kind) names.singular = names.kind.toLowerCase();
  if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  spec.conversion ??= { strategy: 'None' };
  // SetDefaults_ServiceReference: a conversion webhook's service port is 443.
  const service = (spec.conversion.webhook as { clientConfig?: { service?: { port?: number } | null } | null } | undefined)?.clientConfig?.service;
  if (service !== undefined && service !== null && service.port === undefined) service.port = 443;
  const status = (crd.status ??= {});
  if ((status.storedVersions ?? []).length === 0) {
    const storage = (spec.versions ?? []).filter((v) => v.storage === true).map((v) => v.name ?? '');
    if (storage.length > 0) status.storedVersions = storage;
  }
}

/** Adds the storage version to status.storedVersions if missing. */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = (crd.spec.versions ?? []).find((v) => v.storage === true);
  if (storage?.name === undefined) return;
  const status = (crd.status ??= {});
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage.name)) stored.push(storage.name);
}

/** The fresh status of a created CRD, as the v1 encoding shows it (acceptedNames with empty plural and kind). */
function freshStatus(): NonNullable<CustomResourceDefinition['status']> {
  // conditions has no omitempty in the v1 type: a CRD nobody has looked at yet says null.
  return { conditions: null as unknown as [], acceptedNames: { plural: '', kind: '' }, storedVersions: [] };
}

export function customResourceDefinitionStrategy(options: { compiler?: ValidationRuleCompiler | undefined; clock?: Clock } = {}): Strategy {
  const clock = options.clock ?? systemClock;
  return {
    namespaced: false,
    nameValidator: nameIsDNSSubdomain,
    defaults: defaultCustomResourceDefinition,
    prepareForCreate(obj) {
      const crd = obj as CustomResourceDefinition;
      crd.status = freshStatus();
      crd.metadata.generation = 1;
      recordStorageVersion(crd);
    },
    prepareForUpdate(obj, old) {
      keepStatus(obj, old);
      bumpGenerationOnSpecChange(obj, old);
      recordStorageVersion(obj as CustomResourceDefinition);
    },
    validate: (obj) => validateCustomResourceDefinition(obj as CustomResourceDefinition, { compiler: options.compiler }),
    validateUpdate: (obj, old) =>
      validateCustomResourceDefinition(obj as CustomResourceDefinition, { old: old as CustomResourceDefinition, compiler: options.compiler }),
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: false,
    returnDeletedObject: true,
    subresources: {
      status: statusSubresource((obj) => validateNames((obj as CustomResourceDefinition).status?.acceptedNames ?? {}, 'status.acceptedNames')),
    },
    // The CRD registry marks a deleted CRD itself: no grace period, no generation bump.
    zeroGracePeriodOnFinalize: false,
    bumpGenerationOnDelete: false,
    // A live CRD is never deleted at once: the first DELETE marks it (startDeletion).
    holdsDeletion: (obj) => obj.metadata.deletionTimestamp === undefined,
    startDeletion(obj) {
      const crd = obj as CustomResourceDefinition;
      const finalizers = (crd.metadata.finalizers ??= []);
      if (!finalizers.includes(CLEANUP_FINALIZER)) finalizers.push(CLEANUP_FINALIZER);
      setCondition(
        crd,
        {
          type: 'Terminating',
          status: 'True',
          reason: 'InstanceDeletionPending',
          message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
        },
        formatTimestamp(clock()),
      );
    },
  };
}
