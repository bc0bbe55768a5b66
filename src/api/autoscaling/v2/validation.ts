// autoscaling HorizontalPodAutoscaler validation (upstream pkg/apis/autoscaling/validation,
// main rules), on the v2 form every version is stored in.
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';

type Obj = Record<string, any>;

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'];
const TARGET_KEY: Record<string, string> = { Resource: 'resource', ContainerResource: 'containerResource', Pods: 'pods', Object: 'object', External: 'external' };

function validateTarget(target: Obj | undefined, path: string, utilizationAllowed: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const t = target ?? {};
  const type = t['type'] ?? '';
  if (type === '') errs.push(fieldErrors.required(`${path}.type`, 'must specify a metric target type'));
  else if (!['Utilization', 'Value', 'AverageValue'].includes(type)) errs.push(fieldErrors.notSupported(`${path}.type`, type, ['AverageValue', 'Utilization', 'Value']));
  const utilization = t['averageUtilization'];
  if (typeof utilization === 'number' && utilization < 1) errs.push(fieldErrors.invalid(`${path}.averageUtilization`, utilization, 'must be greater than 0'));
  if (type === 'Utilization' && (utilization === undefined || utilization === null) && utilizationAllowed) {
    errs.push(fieldErrors.required(`${path}.averageUtilization`, 'must set either a target raw value or a target utilization'));
  }
  if (type === 'AverageValue' && (t['averageValue'] ?? null) === null) errs.push(fieldErrors.required(`${path}.averageValue`, 'must set either a target raw value or a target utilization'));
  if (type === 'Value' && (t['value'] ?? null) === null) errs.push(fieldErrors.required(`${path}.value`, 'must set either a target value for metric or a per-pod target'));
  return errs;
}

export function validateHorizontalPodAutoscaler(obj: KubeObject): FieldError[] {
  const spec = ((obj as Obj)['spec'] ?? {}) as Obj;
  const errs: FieldError[] = [];
  const min = spec['minReplicas'];
  const max = spec['maxReplicas'] ?? 0;
  if (typeof min === 'number' && min < 1) errs.push(fieldErrors.invalid('spec.minReplicas', min, 'must be greater than or equal to 1'));
  if (max < 1) errs.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than 0'));
  if (typeof min === 'number' && max < min) errs.push(fieldErrors.invalid('spec.maxReplicas', max, 'must be greater than or equal to `minReplicas`'));
  const ref = (spec['scaleTargetRef'] ?? {}) as Obj;
  if ((ref['kind'] ?? '') === '') errs.push(fieldErrors.required('spec.scaleTargetRef.kind'));
  if ((ref['name'] ?? '') === '') errs.push(fieldErrors.required('spec.scaleTargetRef.name'));
  else if (/[/%]/.test(ref['name']) || ref['name'] === '.' || ref['name'] === '..') errs.push(fieldErrors.invalid('spec.scaleTargetRef.name', ref['name'], 'may not contain \'/\' or \'%\''));
  const metrics = (spec['metrics'] ?? []) as Obj[];
  let objectOrExternal = false;
  metrics.forEach((m, i) => {
    const path = `spec.metrics[${i}]`;
    const type = m['type'] ?? '';
    if (type === '') {
      errs.push(fieldErrors.required(`${path}.type`, 'must specify a metric source type'));
      return;
    }
    if (!METRIC_TYPES.includes(type)) {
      // Upstream reports an unknown type twice (its source count check, then its type switch); the message shows it once.
      errs.push(fieldErrors.notSupported(`${path}.type`, type, METRIC_TYPES), fieldErrors.notSupported(`${path}.type`, type, METRIC_TYPES));
      return;
    }
    if (type === 'Object' || type === 'External') objectOrExternal = true;
    const key = TARGET_KEY[type]!;
    const source = m[key] as Obj | undefined;
    if (source === undefined || source === null) {
      errs.push(fieldErrors.required(`${path}.${key}`, `must populate information for the given metric source`));
      return;
    }
    if (type === 'Resource' || type === 'ContainerResource') {
      if ((source['name'] ?? '') === '') errs.push(fieldErrors.required(`${path}.${key}.name`, 'must specify a resource name'));
      if (type === 'ContainerResource' && (source['container'] ?? '') === '') errs.push(fieldErrors.required(`${path}.${key}.container`, 'must specify a container'));
      errs.push(...validateTarget(source['target'], `${path}.${key}.target`, true));
    } else {
      if (((source['metric'] ?? {})['name'] ?? '') === '') errs.push(fieldErrors.required(`${path}.${key}.metric.name`, 'must specify a metric name'));
      errs.push(...validateTarget(source['target'], `${path}.${key}.target`, false));
    }
  });
  if (typeof min === 'number' && min === 0 && !objectOrExternal) {
    errs.push(fieldErrors.forbidden('spec.metrics', 'must specify at least one Object or External metric to support scaling to zero replicas'));
  }
  return errs;
}
