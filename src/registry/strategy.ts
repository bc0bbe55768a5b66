// What varies between resources in the generic store: one small Strategy
// object per resource (upstream's RESTCreateStrategy/RESTUpdateStrategy/
// RESTDeleteStrategy folded together). Every hook is synchronous and works on
// the object in place; validation hooks return FieldErrors (the store turns them
// into 422 Invalid). Hooks left out mean "nothing to do".

import type { Steps } from '../machinery/steps.js';
import type { KubeObject } from '../machinery/meta.js';
import type { FieldError } from '../machinery/field-errors.js';

import type { NameValidator } from '../machinery/validation.js';
import type { UserInfo } from '../machinery/user.js';
import type { StatusError } from '../machinery/errors.js';
import type { Clock } from '../machinery/names.js';

export type { NameValidator };

/**
 * What the registry hands the strategies that need it (their entries are built
 * from it): time and identifiers come in here, never from globals, so tests
 * control them.
 */
export interface StrategyContext {
  clock: Clock;
  uid: () => string;
}

/** A PUT-able subresource other than the main resource ("status", "finalize"). */
export interface SubresourceStrategy {
  /** Copies onto `obj` everything from `old` the subresource may not change. */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** `warnings` collects texts sent back as Warning headers (ratcheted CEL rule failures). */
  validateUpdate?(obj: KubeObject, old: KubeObject, warnings?: string[]): FieldError[];
  /** Paths this subresource's writes cannot change (upstream's GetResetFields); default for status: every top-level field but status. */
  resetFields?: string[][];
}

export interface Strategy {
  namespaced: boolean;
  /** Validates metadata.name (and generateName). */
  nameValidator: NameValidator;
  /**
   * Fills defaults (upstream's defaults.go); runs on every write's body.
   * `applied`: the body is server-side apply's merged object, which upstream
   * does not pass through its decoder (custom resources keep their nulls for
   * validation to see).
   */
  defaults?(obj: KubeObject, how?: { applied?: boolean }): void;
  /** Clears what a client may not set on create (often status); `user` is who creates it, when the server authenticates. */
  prepareForCreate?(obj: KubeObject, user?: UserInfo): void;
  /** Main-resource PUT/PATCH: keeps what it may not change (status) and bumps generation. */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  validate?(obj: KubeObject): FieldError[];
  /** `warnings` collects texts sent back as Warning headers (ratcheted CEL rule failures). */
  validateUpdate?(obj: KubeObject, old: KubeObject, warnings?: string[]): FieldError[];
  /**
   * validate and validateUpdate in steps (the same errors): a large write's
   * store pauses between them (a map of 100,000 keys; server/large-requests.ts).
   */
  validateSteps?(obj: KubeObject): Steps<FieldError[]>;
  validateUpdateSteps?(obj: KubeObject, old: KubeObject): Steps<FieldError[]>;
  /** Warnings of a valid create or main-resource update (upstream's WarningsOnCreate / WarningsOnUpdate). */
  warningsOnCreate?(obj: KubeObject): string[];
  warningsOnUpdate?(obj: KubeObject, old: KubeObject): string[];
  /** Paths main-resource writes cannot change (upstream's GetResetFields); default: status, for kinds with one. */
  resetFields?: string[][];
  /** PUT on a missing object creates it (201). */
  allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion overwrites (true for most kinds). */
  allowUnconditionalUpdate: boolean;
  /** DELETE answers with the object instead of a Success Status. */
  returnDeletedObject: boolean;
  /** Field-selector fields beyond metadata.name and metadata.namespace, each with its getter (upstream's GetAttrs). */
  fields?: Record<string, (obj: KubeObject) => string>;
  /**
   * The field-selector labels this kind accepts, for kinds that register their
   * own field label conversion upstream (AddFieldLabelConversionFunc): any other
   * label is `field label not supported: X`. A label missing from `fields`
   * matches as "". Absent: the default conversion (metadata.name and
   * metadata.namespace only, and its own error text).
   */
  fieldLabels?: readonly string[];
  /** Old labels the conversion renames (pods: spec.host → spec.nodeName). */
  fieldLabelAliases?: Readonly<Record<string, string>>;
  /** The scale subresource (autoscaling/v1 Scale over spec.replicas and status.replicas), with the selector Scale reports. */
  scale?: { selector(obj: KubeObject): string };
  /** Subresources served with PUT/PATCH (status, finalize). */
  subresources?: Record<string, SubresourceStrategy>;
  /** Stored keys expire after this many seconds (events). */
  ttlSeconds?: number;
  /**
   * Graceful deletion (pods): the grace period a DELETE should wait, or 0 to
   * delete at once. Absent: the kind does not support graceful deletion.
   */
  gracePeriodSeconds?(obj: KubeObject, requested: number | undefined): number;
  /**
   * Deletion hooks beyond metadata.finalizers (namespaces): `holdsDeletion`
   * keeps a deleted object stored while it returns true (a repeated DELETE
   * meanwhile answers the object, unchanged); `startDeletion` runs when the
   * deletionTimestamp is first set.
   */
  holdsDeletion?(obj: KubeObject): boolean;
  startDeletion?(obj: KubeObject): void;
  /**
   * The message of a failed DELETE precondition when this kind's REST words it
   * itself (namespaces: "Precondition failed: UID in precondition: …"); absent:
   * the generic store's rest.BeforeDelete wording.
   */
  deletePreconditionMessage?(field: 'UID' | 'ResourceVersion', wanted: string, actual: string): string;
  /**
   * false: writes keep no metadata.managedFields (certificate signing requests: kube-apiserver
   * 1.32's field manager fails on them and drops the entries, as its UpdateNoErrors does).
   */
  tracksManagedFields?: boolean;
  /** A DELETE of this name is refused with the returned error (system priority classes); deletecollection is not asked. */
  refuseDelete?(name: string): StatusError | undefined;
  /**
   * What a DELETE without a propagation policy does to dependents (upstream's
   * DefaultGarbageCollectionPolicy for the served version): 'DeleteDependents'
   * (the default: background collection), 'OrphanDependents' (the store adds
   * the `orphan` finalizer: core/v1 replication controllers, batch/v1 jobs) or
   * 'Unsupported' (events: the GC finalizers are never added nor removed).
   */
  defaultGarbageCollectionPolicy?: 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';
  /** Set deletionGracePeriodSeconds: 0 when marking a finalized object deleted (default true). */
  zeroGracePeriodOnFinalize?: boolean;
  /** Bump metadata.generation when the deletionTimestamp is first set (default true). */
  bumpGenerationOnDelete?: boolean;
  /**
   * The group an Invalid error names, when not the served one: upstream names the
   * kind of its internal type (events.k8s.io Events are core Events: `Event "x" is invalid`).
   */
  invalidGroup?: string;
}
