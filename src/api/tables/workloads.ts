// Printers for the workload kinds beyond Deployment (apps/v1 ReplicaSet,
// StatefulSet, DaemonSet, ControllerRevision; batch/v1 Job, CronJob;
// policy/v1 PodDisruptionBudget; autoscaling HorizontalPodAutoscaler), with
// kube-apiserver 1.32's columns and cells.

import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, containerCells, type Printer } from './printer.js';
import { arr, at, int, rec, str, type Obj } from './fields.js';
import { formatLabelSelector, formatLabels } from './labels.js';
import { humanDuration, parseTimestamp, timeSince } from './duration.js';
import { hpaToV2 } from '../autoscaling/v1/conversion.js';
import type { KubeObject } from '../../machinery/meta.js';

const name = (o: Obj): string => str(at(o, 'metadata', 'name'));
const age = (o: Obj, now: Date): string => timeSince(at(o, 'metadata', 'creationTimestamp'), now);
const SELECTOR = (description: string): ReturnType<typeof column> => column('Selector', 'string', description, { priority: 1 });

export const replicaSetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'Number of replicas asked for.'),
    column('Current', 'integer', 'Number of replicas observed.'),
    column('Ready', 'integer', 'Number of ready replicas.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR('Label selector of the replica set.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return {
      cells: [name(o), int(at(o, 'spec', 'replicas')), int(at(o, 'status', 'replicas')), int(at(o, 'status', 'readyReplicas')), age(o, now), containers, images, formatLabelSelector(at(o, 'spec', 'selector'))],
    };
  },
};

export const statefulSetPrinter: Printer = {
  columns: [NAME_COLUMN, column('Ready', 'string', 'Ready replicas out of desired replicas.'), AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return { cells: [name(o), `${int(at(o, 'status', 'readyReplicas'))}/${int(at(o, 'spec', 'replicas'))}`, age(o, now), containers, images] };
  },
};

export const daemonSetPrinter: Printer = {
  // The template generation is the internal type's field, an annotation only in v1.
  rowMetadata: (metadata) => {
    const annotations = metadata['annotations'] as Record<string, string> | undefined;
    if (annotations?.['deprecated.daemonset.template.generation'] === undefined) return metadata;
    const rest = { ...annotations };
    delete rest['deprecated.daemonset.template.generation'];
    const out = { ...metadata };
    if (Object.keys(rest).length === 0) delete out['annotations'];
    else out['annotations'] = rest;
    return out;
  },
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'Nodes that should run the daemon pod.'),
    column('Current', 'integer', 'Nodes running the daemon pod.'),
    column('Ready', 'integer', 'Nodes with a ready daemon pod.'),
    column('Up-to-date', 'integer', 'Nodes running the current template.'),
    column('Available', 'integer', 'Nodes with an available daemon pod.'),
    column('Node Selector', 'string', 'Node selector of the pod template.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR('Label selector of the daemon set.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return {
      cells: [
        name(o),
        int(at(o, 'status', 'desiredNumberScheduled')),
        int(at(o, 'status', 'currentNumberScheduled')),
        int(at(o, 'status', 'numberReady')),
        int(at(o, 'status', 'updatedNumberScheduled')),
        int(at(o, 'status', 'numberAvailable')),
        formatLabels(at(o, 'spec', 'template', 'spec', 'nodeSelector')),
        age(o, now),
        containers,
        images,
        formatLabelSelector(at(o, 'spec', 'selector')),
      ],
    };
  },
};

/** "kind.group/name" of the controlling owner reference, "<none>" without one. */
function controllerOf(o: Obj): string {
  for (const raw of arr(at(o, 'metadata', 'ownerReferences'))) {
    const ref = rec(raw);
    if (ref['controller'] !== true) continue;
    const apiVersion = str(ref['apiVersion']);
    const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
    const kind = str(ref['kind']).toLowerCase();
    return `${group === '' ? kind : `${kind}.${group}`}/${str(ref['name'])}`;
  }
  return '<none>';
}

export const controllerRevisionPrinter: Printer = {
  // Upstream declares Revision a string column and fills it with the number.
  columns: [NAME_COLUMN, column('Controller', 'string', 'Controller of the object.'), column('Revision', 'string', 'Revision number.'), AGE_COLUMN],
  print: (o, now) => ({ cells: [name(o), controllerOf(o), int(at(o, 'revision')), age(o, now)] }),
};

function hasCondition(o: Obj, type: string): boolean {
  return arr(at(o, 'status', 'conditions')).some((c) => str(rec(c)['type']) === type && str(rec(c)['status']) === 'True');
}

function jobStatus(o: Obj): string {
  if (hasCondition(o, 'Complete')) return 'Complete';
  if (hasCondition(o, 'Failed')) return 'Failed';
  if (at(o, 'metadata', 'deletionTimestamp') !== undefined) return 'Terminating';
  if (hasCondition(o, 'SuccessCriteriaMet')) return 'SuccessCriteriaMet';
  if (hasCondition(o, 'Suspended')) return 'Suspended';
  if (hasCondition(o, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(o: Obj): string {
  const succeeded = int(at(o, 'status', 'succeeded'));
  const completions = at(o, 'spec', 'completions');
  if (typeof completions === 'number') return `${succeeded}/${completions}`;
  const parallelism = int(at(o, 'spec', 'parallelism'));
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: Obj, now: Date): string {
  const start = parseTimestamp(at(o, 'status', 'startTime'));
  if (start === undefined) return '';
  const end = parseTimestamp(at(o, 'status', 'completionTime'));
  return humanDuration((end ?? now.getTime()) - start);
}

/** A selector cell that is "<none>" when the selector is absent (jobs, cron jobs). */
function selectorCell(selector: unknown): string {
  return selector === undefined || selector === null ? '<none>' : formatLabelSelector(selector);
}

export const jobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Status of the job.'),
    column('Completions', 'string', 'Succeeded pods out of desired completions.'),
    column('Duration', 'string', 'Time the job took (or has taken so far).'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR('Label selector of the job.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return { cells: [name(o), jobStatus(o), jobCompletions(o), jobDuration(o, now), age(o, now), containers, images, selectorCell(at(o, 'spec', 'selector'))] };
  },
};

export const cronJobPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Schedule', 'string', 'Cron schedule.'),
    column('Timezone', 'string', 'Time zone of the schedule.'),
    column('Suspend', 'boolean', 'Whether new runs are suspended.'),
    column('Active', 'integer', 'Jobs running now.'),
    column('Last Schedule', 'string', 'Time since the last scheduled run.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    SELECTOR('Label selector of the job template.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers'));
    const last = parseTimestamp(at(o, 'status', 'lastScheduleTime'));
    const timeZone = at(o, 'spec', 'timeZone');
    return {
      cells: [
        name(o),
        str(at(o, 'spec', 'schedule')),
        typeof timeZone === 'string' ? timeZone : '<none>',
        // Declared boolean, printed as Go prints a *bool's value: "True" / "False".
        at(o, 'spec', 'suspend') === true ? 'True' : 'False',
        arr(at(o, 'status', 'active')).length,
        last === undefined ? '<none>' : humanDuration(now.getTime() - last),
        age(o, now),
        containers,
        images,
        selectorCell(at(o, 'spec', 'jobTemplate', 'spec', 'selector')),
      ],
    };
  },
};

function intOrPercent(value: unknown): string {
  return value === undefined || value === null ? 'N/A' : String(value);
}

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Min Available', 'string', 'Pods that must stay available.'),
    column('Max Unavailable', 'string', 'Pods that may be unavailable.'),
    column('Allowed Disruptions', 'integer', 'Disruptions allowed now.'),
    AGE_COLUMN,
  ],
  print: (o, now) => ({
    cells: [name(o), intOrPercent(at(o, 'spec', 'minAvailable')), intOrPercent(at(o, 'spec', 'maxUnavailable')), int(at(o, 'status', 'disruptionsAllowed')), age(o, now)],
  }),
};

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
        name(o),
        `${str(at(o, 'spec', 'scaleTargetRef', 'kind'))}/${str(at(o, 'spec', 'scaleTargetRef', 'name'))}`,
        hpaTargets(o),
        typeof min === 'number' ? String(min) : '<unset>',
        int(at(o, 'spec', 'maxReplicas')),
        int(at(o, 'status', 'currentReplicas')),
        age(o, now),
      ],
    };
  },
};
