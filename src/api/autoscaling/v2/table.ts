// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// HorizontalPodAutoscalers (either version, printed from the v2 form).
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { arr, at, int, type Obj, rec, str } from '../../tables/fields.js';
import { hpaToV2 } from '../v1/conversion.js';
import type { KubeObject } from '../../../machinery/meta.js';

/** One metric's "current/target" text, as upstream's formatHPAMetrics (autoscaling/v2 form). */
function formatMetric(spec: Obj, statuses: Obj[], index: number): string {
  const type = str(spec['type']);
  const current = statuses[index];
  const quantityOrUnknown = (v: unknown): string => (v === undefined || v === null ? '<unknown>' : String(v));
  switch (type) {
    case 'Resource':
    case 'ContainerResource': {
      const key = type === 'Resource' ? 'resource' : 'containerResource';
      const target = rec(rec(spec[key])['target']);
      const cur = current !== undefined && str(current['type']) === type ? rec(rec(current[key])['current']) : undefined;
      const resourceName = str(rec(spec[key])['name']);
      if (target['averageValue'] !== undefined) return `${resourceName}: ${quantityOrUnknown(cur?.['averageValue'])}/${str(target['averageValue'])}`;
      const utilization = cur?.['averageUtilization'];
      return `${resourceName}: ${utilization === undefined ? '<unknown>' : `${int(utilization)}%`}/${int(target['averageUtilization'])}%`;
    }
    case 'Pods': {
      const target = rec(rec(spec['pods'])['target']);
      const cur = current !== undefined && str(current['type']) === 'Pods' ? rec(rec(current['pods'])['current']) : undefined;
      return `${quantityOrUnknown(cur?.['averageValue'])}/${str(target['averageValue'])}`;
    }
    case 'Object':
    case 'External': {
      const key = type === 'Object' ? 'object' : 'external';
      const target = rec(rec(spec[key])['target']);
      const cur = current !== undefined && str(current['type']) === type ? rec(rec(current[key])['current']) : undefined;
      if (target['averageValue'] !== undefined) return `${quantityOrUnknown(cur?.['averageValue'])}/${str(target['averageValue'])} (avg)`;
      return `${quantityOrUnknown(cur?.['value'])}/${str(target['value'])}`;
    }
    default:
      return '<unknown type>';
  }
}

function hpaTargets(o: Obj): string {
  const metrics = arr(at(o, 'spec', 'metrics')).map(rec);
  if (metrics.length === 0) return '<none>';
  const statuses = arr(at(o, 'status', 'currentMetrics')).map(rec);
  const shown = metrics.slice(0, 2).map((m, i) => formatMetric(m, statuses, i));
  const more = metrics.length > 2 ? ` + ${metrics.length - 2} more...` : '';
  return `${shown.join(', ')}${more}`;
}

const HPA_V1_ANNOTATIONS = ['metrics', 'current-metrics', 'conditions', 'behavior'].map((k) => `autoscaling.alpha.kubernetes.io/${k}`);

/** Upstream prints the internal (v2) object: a v1 one is seen as v2 first. */
const asV2 = (o: Obj): Obj => (o['apiVersion'] === 'autoscaling/v1' ? (hpaToV2(o as KubeObject) as Obj) : o);

export const horizontalPodAutoscalerPrinter: Printer = {
  // A v1 object's annotations that carry v2 fields are not metadata of the internal object.
  rowMetadata: (metadata) => {
    const annotations = metadata['annotations'] as Record<string, string> | undefined;
    if (annotations === undefined || !HPA_V1_ANNOTATIONS.some((k) => k in annotations)) return metadata;
    const rest = Object.fromEntries(Object.entries(annotations).filter(([k]) => !HPA_V1_ANNOTATIONS.includes(k)));
    const out = { ...metadata };
    if (Object.keys(rest).length === 0) delete out['annotations'];
    else out['annotations'] = rest;
    return out;
  },
  columns: [
    NAME_COLUMN,
    column('Reference', 'string', 'The scaled resource.'),
    column('Targets', 'string', 'Current and target metric values.'),
    column('MinPods', 'string', 'Lower limit of replicas.'),
    column('MaxPods', 'string', 'Upper limit of replicas.'),
    column('Replicas', 'string', 'Current replicas.'),
    AGE_COLUMN,
  ],
  print: (served, now) => {
    const o = asV2(served);
    const min = at(o, 'spec', 'minReplicas');
    return {
      cells: [
        objectName(o),
        `${str(at(o, 'spec', 'scaleTargetRef', 'kind'))}/${str(at(o, 'spec', 'scaleTargetRef', 'name'))}`,
        hpaTargets(o),
        typeof min === 'number' ? String(min) : '<unset>',
        int(at(o, 'spec', 'maxReplicas')),
        int(at(o, 'status', 'currentReplicas')),
        objectAge(o, now),
      ],
    };
  },
};

/** The printers by kind, for api/tables/index.ts. */
export const autoscalingPrinters: Record<string, Printer> = {
  HorizontalPodAutoscaler: horizontalPodAutoscalerPrinter,
};
