// apps/v1 Deployment: the fields apiary defaults and validates, wire names exact.
import type { KubeObject } from '../../../machinery/meta.js';
import type { PodTemplateSpec } from '../../core/v1/types.js';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface DeploymentStrategy {
  type?: 'Recreate' | 'RollingUpdate';
  rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
}

export interface DeploymentSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  strategy?: DeploymentStrategy;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface DeploymentStatus {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: unknown[];
  collisionCount?: number;
}

export interface Deployment extends KubeObject {
  spec?: DeploymentSpec;
  status?: DeploymentStatus;
}

export interface ReplicaSetSpec {
  replicas?: number;
  minReadySeconds?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
}

export interface ReplicaSet extends KubeObject {
  spec?: ReplicaSetSpec;
  status?: Record<string, number | unknown[] | undefined>;
}

export interface StatefulSetSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  volumeClaimTemplates?: KubeObject[];
  serviceName?: string;
  podManagementPolicy?: string;
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
  revisionHistoryLimit?: number;
  minReadySeconds?: number;
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
  ordinals?: { start?: number };
}

export interface StatefulSet extends KubeObject {
  spec?: StatefulSetSpec;
  status?: Record<string, unknown>;
}

export interface DaemonSetSpec {
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

export interface DaemonSet extends KubeObject {
  spec?: DaemonSetSpec;
  status?: Record<string, unknown>;
}

export interface ControllerRevision extends KubeObject {
  data?: unknown;
  revision?: number;
}
