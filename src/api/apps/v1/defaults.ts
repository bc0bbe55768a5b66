// apps/v1 defaults (upstream pkg/apis/apps/v1/defaults.go).
import type { KubeObject } from '../../../machinery/meta.js';
import { defaultPodSpec } from '../../core/v1/defaults.js';
import type { DaemonSet, Deployment, ReplicaSet, StatefulSet } from './types.js';

/** replicas 1, RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600, pod template defaults. */
export function defaultDeployment(obj: KubeObject): void {
  const d = obj as Deployment;
  d.spec ??= {};
  const spec = d.spec;
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  spec.strategy ??= {};
  if (spec.strategy.type === undefined || (spec.strategy.type as string) === '') spec.strategy.type = 'RollingUpdate';
  if (spec.strategy.type === 'RollingUpdate') {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= '25%';
    spec.strategy.rollingUpdate.maxSurge ??= '25%';
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined || spec.progressDeadlineSeconds === null) spec.progressDeadlineSeconds = 600;
  if (spec.template?.spec !== undefined) defaultPodSpec(spec.template.spec);
}

/** SetDefaults_ReplicaSet: replicas 1, pod template defaults. */
export function defaultReplicaSet(obj: KubeObject): void {
  const rs = obj as ReplicaSet;
  rs.spec ??= {};
  if (rs.spec.replicas === undefined || rs.spec.replicas === null) rs.spec.replicas = 1;
  if (rs.spec.template?.spec !== undefined) defaultPodSpec(rs.spec.template.spec);
}

/**
 * SetDefaults_StatefulSet: OrderedReady, RollingUpdate with partition 0,
 * Retain/Retain claim retention, replicas 1, revisionHistoryLimit 10; claim
 * templates get the claim defaults (volumeMode Filesystem, phase Pending).
 */
export function defaultStatefulSet(obj: KubeObject): void {
  const ss = obj as StatefulSet;
  ss.spec ??= {};
  const spec = ss.spec;
  if ((spec.podManagementPolicy ?? '') === '') spec.podManagementPolicy = 'OrderedReady';
  spec.updateStrategy ??= {};
  if ((spec.updateStrategy.type ?? '') === '') spec.updateStrategy.type = 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    if (spec.updateStrategy.rollingUpdate.partition === undefined || spec.updateStrategy.rollingUpdate.partition === null) spec.updateStrategy.rollingUpdate.partition = 0;
  }
  spec.persistentVolumeClaimRetentionPolicy ??= {};
  if ((spec.persistentVolumeClaimRetentionPolicy.whenDeleted ?? '') === '') spec.persistentVolumeClaimRetentionPolicy.whenDeleted = 'Retain';
  if ((spec.persistentVolumeClaimRetentionPolicy.whenScaled ?? '') === '') spec.persistentVolumeClaimRetentionPolicy.whenScaled = 'Retain';
  if (spec.replicas === undefined || spec.replicas === null) spec.replicas = 1;
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.template?.spec !== undefined) defaultPodSpec(spec.template.spec);
  for (const claim of spec.volumeClaimTemplates ?? []) {
    const c = claim as { apiVersion?: string; kind?: string; spec?: { volumeMode?: string }; status?: { phase?: string } };
    c.apiVersion ??= 'v1';
    c.kind ??= 'PersistentVolumeClaim';
    c.spec ??= {};
    if ((c.spec.volumeMode ?? '') === '') c.spec.volumeMode = 'Filesystem';
    c.status ??= {};
    if ((c.status.phase ?? '') === '') c.status.phase = 'Pending';
  }
}

/** SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10. */
export function defaultDaemonSet(obj: KubeObject): void {
  const ds = obj as DaemonSet;
  ds.spec ??= {};
  const spec = ds.spec;
  spec.updateStrategy ??= {};
  if ((spec.updateStrategy.type ?? '') === '') spec.updateStrategy.type = 'RollingUpdate';
  if (spec.updateStrategy.type === 'RollingUpdate') {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
    spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
  }
  if (spec.revisionHistoryLimit === undefined || spec.revisionHistoryLimit === null) spec.revisionHistoryLimit = 10;
  if (spec.template?.spec !== undefined) defaultPodSpec(spec.template.spec);
  // Not a default upstream but its v1 conversion: the template generation is a field of the
  // internal type that v1 carries as this annotation, written on every conversion to v1 ("0"
  // when the body had none). The field manager sees the converted body, so the writer owns
  // the annotation; the strategy then sets the real value.
  const meta = (ds.metadata ??= {});
  if (meta.annotations?.[TEMPLATE_GENERATION] === undefined) meta.annotations = { ...(meta.annotations ?? {}), [TEMPLATE_GENERATION]: '0' };
}

export const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';
