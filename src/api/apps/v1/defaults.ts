// apps/v1 defaults (upstream pkg/apis/apps/v1/defaults.go).
import type { KubeObject } from '../../../machinery/meta.js';
import { defaultPodSpec } from '../../core/v1/defaults.js';
import type { Deployment } from './types.js';

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
