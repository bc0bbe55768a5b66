// autoscaling/v1 HorizontalPodAutoscaler ⇄ autoscaling/v2 (the stored form),
// as upstream's v1 conversion: v1 holds one CPU utilization target; every
// other metric, the scaling behavior and the v2 conditions and current
// metrics travel in annotations (the autoscaling.alpha.kubernetes.io/ keys)
// so that a v1 read-modify-write keeps them.
//
// Contract: neither function changes its input; metadata is copied shallowly.
// The annotations hold upstream's encodings: metrics in the old v1 metric
// form (targetAverageUtilization, targetAverageValue, …), behavior as the
// internal Go struct's field names (ScaleUp, StabilizationWindowSeconds, …).

import type { KubeObject } from '../../../machinery/meta.js';

type Obj = Record<string, any>;

export const METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/metrics';
export const CURRENT_METRICS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/current-metrics';
export const CONDITIONS_ANNOTATION = 'autoscaling.alpha.kubernetes.io/conditions';
export const BEHAVIOR_ANNOTATION = 'autoscaling.alpha.kubernetes.io/behavior';
const ANNOTATIONS = [METRICS_ANNOTATION, CURRENT_METRICS_ANNOTATION, CONDITIONS_ANNOTATION, BEHAVIOR_ANNOTATION];

const defined = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

function isCpuUtilization(m: Obj): boolean {
  return m['type'] === 'Resource' && m['resource']?.['name'] === 'cpu' && m['resource']?.['target']?.['type'] === 'Utilization';
}

/** A v2 MetricSpec in the old v1 form. */
function metricToV1(m: Obj): Obj {
  const t = (s: Obj | undefined): Obj => s?.['target'] ?? {};
  switch (m['type']) {
    case 'Resource':
      return { type: 'Resource', resource: defined({ name: m['resource']['name'], targetAverageUtilization: t(m['resource'])['averageUtilization'], targetAverageValue: t(m['resource'])['averageValue'] }) };
    case 'ContainerResource':
      return {
        type: 'ContainerResource',
        containerResource: defined({ name: m['containerResource']['name'], targetAverageUtilization: t(m['containerResource'])['averageUtilization'], targetAverageValue: t(m['containerResource'])['averageValue'], container: m['containerResource']['container'] }),
      };
    case 'Pods':
      return { type: 'Pods', pods: defined({ metricName: m['pods']['metric']?.['name'], targetAverageValue: t(m['pods'])['averageValue'], selector: m['pods']['metric']?.['selector'] }) };
    case 'Object':
      return {
        type: 'Object',
        object: defined({ target: m['object']['describedObject'], metricName: m['object']['metric']?.['name'], targetValue: t(m['object'])['value'], selector: m['object']['metric']?.['selector'], averageValue: t(m['object'])['averageValue'] }),
      };
    case 'External':
      return {
        type: 'External',
        external: defined({ metricName: m['external']['metric']?.['name'], metricSelector: m['external']['metric']?.['selector'], targetValue: t(m['external'])['value'], targetAverageValue: t(m['external'])['averageValue'] }),
      };
    default:
      return { type: m['type'] };
  }
}

/** The old v1 metric form back to a v2 MetricSpec. */
function metricToV2(m: Obj): Obj {
  const target = (utilization: unknown, average: unknown, value?: unknown): Obj =>
    utilization !== undefined && utilization !== null
      ? { type: 'Utilization', averageUtilization: utilization }
      : value !== undefined && value !== null
        ? { type: 'Value', value }
        : { type: 'AverageValue', averageValue: average };
  const metric = (name: unknown, selector: unknown): Obj => defined({ name, selector });
  switch (m['type']) {
    case 'Resource':
      return { type: 'Resource', resource: { name: m['resource']?.['name'], target: target(m['resource']?.['targetAverageUtilization'], m['resource']?.['targetAverageValue']) } };
    case 'ContainerResource': {
      const c = m['containerResource'] ?? {};
      return { type: 'ContainerResource', containerResource: { name: c['name'], target: target(c['targetAverageUtilization'], c['targetAverageValue']), container: c['container'] } };
    }
    case 'Pods':
      return { type: 'Pods', pods: { metric: metric(m['pods']?.['metricName'], m['pods']?.['selector']), target: { type: 'AverageValue', averageValue: m['pods']?.['targetAverageValue'] } } };
    case 'Object': {
      const o = m['object'] ?? {};
      return { type: 'Object', object: { describedObject: o['target'], metric: metric(o['metricName'], o['selector']), target: target(undefined, o['averageValue'], o['averageValue'] === undefined ? o['targetValue'] : undefined) } };
    }
    case 'External': {
      const e = m['external'] ?? {};
      return { type: 'External', external: { metric: metric(e['metricName'], e['metricSelector']), target: target(undefined, e['targetAverageValue'], e['targetValue']) } };
    }
    default:
      return { type: m['type'] };
  }
}

/** Go's encoding of the internal HPAScalingRules (no JSON tags: field names as declared). */
function rulesToGo(r: Obj | undefined | null): Obj | null {
  if (r === undefined || r === null) return null;
  return {
    StabilizationWindowSeconds: r['stabilizationWindowSeconds'] ?? null,
    SelectPolicy: r['selectPolicy'] ?? null,
    Policies: (r['policies'] ?? null)?.map((p: Obj) => ({ Type: p['type'], Value: p['value'], PeriodSeconds: p['periodSeconds'] })) ?? null,
  };
}

function rulesFromGo(r: Obj | undefined | null): Obj | undefined {
  if (r === undefined || r === null) return undefined;
  return defined({
    stabilizationWindowSeconds: r['StabilizationWindowSeconds'],
    selectPolicy: r['SelectPolicy'],
    policies: (r['Policies'] ?? undefined)?.map((p: Obj) => ({ type: p['Type'], value: p['Value'], periodSeconds: p['PeriodSeconds'] })),
  });
}

function parse(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Stored v2 → served v1. */
export function hpaToV1(obj: KubeObject): KubeObject {
  const v2 = obj as Obj;
  const spec = (v2['spec'] ?? {}) as Obj;
  const status = (v2['status'] ?? {}) as Obj;
  const annotations: Record<string, string> = { ...(obj.metadata.annotations ?? {}) };
  for (const key of ANNOTATIONS) delete annotations[key];
  const metrics = (spec['metrics'] ?? []) as Obj[];
  const cpu = metrics.find(isCpuUtilization);
  const others = metrics.filter((m) => m !== cpu);
  if (others.length > 0) annotations[METRICS_ANNOTATION] = JSON.stringify(others.map(metricToV1));
  if (spec['behavior'] !== undefined && spec['behavior'] !== null) {
    annotations[BEHAVIOR_ANNOTATION] = JSON.stringify({ ScaleUp: rulesToGo(spec['behavior']['scaleUp']), ScaleDown: rulesToGo(spec['behavior']['scaleDown']) });
  }
  const current = (status['currentMetrics'] ?? []) as Obj[];
  const currentCpu = current.find((m) => m['type'] === 'Resource' && m['resource']?.['name'] === 'cpu');
  const otherCurrent = current.filter((m) => m !== currentCpu);
  if (otherCurrent.length > 0) annotations[CURRENT_METRICS_ANNOTATION] = JSON.stringify(otherCurrent);
  if ((status['conditions'] ?? []).length > 0) annotations[CONDITIONS_ANNOTATION] = JSON.stringify(status['conditions']);
  const metadata = { ...obj.metadata };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  const v1Spec = defined({
    scaleTargetRef: spec['scaleTargetRef'],
    minReplicas: spec['minReplicas'],
    maxReplicas: spec['maxReplicas'] ?? 0,
    targetCPUUtilizationPercentage: cpu?.['resource']?.['target']?.['averageUtilization'],
  });
  const v1Status = defined({
    observedGeneration: status['observedGeneration'],
    lastScaleTime: status['lastScaleTime'],
    currentReplicas: status['currentReplicas'] ?? 0,
    desiredReplicas: status['desiredReplicas'] ?? 0,
    currentCPUUtilizationPercentage: currentCpu?.['resource']?.['current']?.['averageUtilization'],
  });
  return { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata, spec: v1Spec, status: v1Status } as KubeObject;
}

/** Served v1 → stored v2 (the annotations become fields again, and leave the metadata). */
export function hpaToV2(obj: KubeObject): KubeObject {
  const v1 = obj as Obj;
  const spec = (v1['spec'] ?? {}) as Obj;
  const status = (v1['status'] ?? {}) as Obj;
  const annotations: Record<string, string> = { ...(obj.metadata?.annotations ?? {}) };
  // The annotation's metrics first, then the CPU target, as upstream orders them.
  const metrics: Obj[] = [];
  const extra = parse(annotations[METRICS_ANNOTATION]);
  if (Array.isArray(extra)) metrics.push(...extra.map((m) => metricToV2(m as Obj)));
  if (typeof spec['targetCPUUtilizationPercentage'] === 'number') {
    metrics.push({ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: spec['targetCPUUtilizationPercentage'] } } });
  }
  const behaviorGo = parse(annotations[BEHAVIOR_ANNOTATION]) as Obj | undefined;
  const conditions = parse(annotations[CONDITIONS_ANNOTATION]);
  const currentMetrics: Obj[] = [];
  if (typeof status['currentCPUUtilizationPercentage'] === 'number') {
    currentMetrics.push({ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: status['currentCPUUtilizationPercentage'] } } });
  }
  const currentExtra = parse(annotations[CURRENT_METRICS_ANNOTATION]);
  if (Array.isArray(currentExtra)) currentMetrics.push(...(currentExtra as Obj[]));
  for (const key of ANNOTATIONS) delete annotations[key];
  const metadata = { ...(obj.metadata ?? {}) };
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  const v2Spec: Obj = defined({ scaleTargetRef: spec['scaleTargetRef'], minReplicas: spec['minReplicas'], maxReplicas: spec['maxReplicas'] });
  if (metrics.length > 0) v2Spec['metrics'] = metrics;
  if (behaviorGo !== undefined && behaviorGo !== null) v2Spec['behavior'] = defined({ scaleUp: rulesFromGo(behaviorGo['ScaleUp']), scaleDown: rulesFromGo(behaviorGo['ScaleDown']) });
  const v2Status: Obj = defined({
    observedGeneration: status['observedGeneration'],
    lastScaleTime: status['lastScaleTime'],
    currentReplicas: status['currentReplicas'] === 0 ? undefined : status['currentReplicas'],
    desiredReplicas: status['desiredReplicas'] ?? 0,
  });
  // v2's currentMetrics is not omitempty: no metrics encode as null.
  v2Status['currentMetrics'] = currentMetrics.length > 0 ? currentMetrics : null;
  if (Array.isArray(conditions)) v2Status['conditions'] = conditions;
  for (const key of ['currentMetrics', 'desiredReplicas']) {
    // Keep v2's field order: observedGeneration, lastScaleTime, currentReplicas, desiredReplicas, currentMetrics, conditions.
    const v = v2Status[key];
    delete v2Status[key];
    v2Status[key] = v;
  }
  if (Array.isArray(conditions)) {
    delete v2Status['conditions'];
    v2Status['conditions'] = conditions;
  }
  const out: Obj = { apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata, spec: v2Spec };
  if (v1['status'] !== undefined) out['status'] = v2Status;
  return out as KubeObject;
}
