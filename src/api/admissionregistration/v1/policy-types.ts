// admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding
// (upstream k8s.io/api/admissionregistration/v1/types.go), as JSON shapes.
import type { KubeObject } from '../../../machinery/meta.js';

export const ADMISSION_GROUP = 'admissionregistration.k8s.io';

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface NamedRuleWithOperations {
  resourceNames?: string[];
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  scope?: string;
}

export interface MatchResources {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: string;
}

export interface Validation {
  expression: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface Variable {
  name: string;
  expression: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: string;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
}

export interface ExpressionWarning {
  fieldRef: string;
  warning: string;
}

export interface ValidatingAdmissionPolicyStatus {
  observedGeneration?: number;
  typeChecking?: { expressionWarnings?: ExpressionWarning[] };
  conditions?: unknown[];
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  spec: ValidatingAdmissionPolicySpec;
  status?: ValidatingAdmissionPolicyStatus;
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  parameterNotFoundAction?: string;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: string[];
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  spec: ValidatingAdmissionPolicyBindingSpec;
}
