// apiextensions.k8s.io/v1 CustomResourceDefinition, as JSON (upstream's
// staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/types.go).
// A JSONSchemaProps is kept as the plain JSON the client sent: its validation,
// structural form and defaulting live in schema/.

import type { KubeObject } from '../machinery/meta.js';

export const GROUP = 'apiextensions.k8s.io';
export const VERSION = 'v1';
export const CRD_KIND = 'CustomResourceDefinition';
export const CRD_RESOURCE = 'customresourcedefinitions';
/** The finalizer the CRD registry adds on DELETE; the cleanup controller removes it once every CR is gone. */
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export type JSONSchemaProps = Record<string, unknown>;

export interface CustomResourceDefinitionNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface CustomResourceSubresourceScale {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, unknown>;
  scale?: CustomResourceSubresourceScale;
}

export interface SelectableField {
  jsonPath?: string;
}

export interface CustomResourceDefinitionVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: SelectableField[];
}

export interface CustomResourceConversion {
  strategy?: string;
  webhook?: Record<string, unknown>;
}

export interface CustomResourceDefinitionSpec {
  group?: string;
  names?: CustomResourceDefinitionNames;
  scope?: string;
  versions?: CustomResourceDefinitionVersion[];
  conversion?: CustomResourceConversion;
  preserveUnknownFields?: boolean;
}

export interface CustomResourceDefinitionCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinitionStatus {
  conditions?: CustomResourceDefinitionCondition[];
  acceptedNames?: CustomResourceDefinitionNames;
  storedVersions?: string[];
}

export interface CustomResourceDefinition extends KubeObject {
  spec: CustomResourceDefinitionSpec;
  status?: CustomResourceDefinitionStatus;
}

export function conditionOf(crd: CustomResourceDefinition, type: string): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return conditionOf(crd, type)?.status === 'True';
}

/** Sets a condition; lastTransitionTime changes only when the status does (upstream's SetCRDCondition). */
export function setCondition(crd: CustomResourceDefinition, condition: CustomResourceDefinitionCondition, now: string): void {
  crd.status ??= {};
  const conditions = (crd.status.conditions ??= []);
  const existing = conditions.find((c) => c.type === condition.type);
  if (existing === undefined) {
    conditions.push({ ...condition, lastTransitionTime: condition.lastTransitionTime ?? now });
    return;
  }
  if (existing.status !== condition.status) existing.lastTransitionTime = condition.lastTransitionTime ?? now;
  existing.status = condition.status;
  if (condition.reason !== undefined) existing.reason = condition.reason;
  else delete existing.reason;
  if (condition.message !== undefined) existing.message = condition.message;
  else delete existing.message;
}

export function storageVersionOf(crd: CustomResourceDefinition): string | undefined {
  return crd.spec.versions?.find((v) => v.storage === true)?.name;
}
