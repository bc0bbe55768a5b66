// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// apps/v1 kinds.
import { AGE_COLUMN, column, containerCells, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, objectAge, objectName, type Printer, selectorColumn } from '../../tables/printer.js';
import { arr, at, int, type Obj, rec, str } from '../../tables/fields.js';
import { formatLabels, formatLabelSelector } from '../../tables/labels.js';
import { timeSince } from '../../tables/duration.js';

export const deploymentPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Ready replicas out of desired replicas.'),
    column('Up-to-date', 'string', 'Replicas running the current pod template.'),
    column('Available', 'string', 'Replicas available to serve.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    column('Selector', 'string', 'Label selector of the deployment.', { priority: 1 }),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return {
      cells: [
        str(at(o, 'metadata', 'name')),
        `${int(at(o, 'status', 'readyReplicas'))}/${int(at(o, 'spec', 'replicas'))}`,
        int(at(o, 'status', 'updatedReplicas')),
        int(at(o, 'status', 'availableReplicas')),
        timeSince(at(o, 'metadata', 'creationTimestamp'), now),
        containers,
        images,
        formatLabelSelector(at(o, 'spec', 'selector')),
      ],
    };
  },
};

export const replicaSetPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'Number of replicas asked for.'),
    column('Current', 'integer', 'Number of replicas observed.'),
    column('Ready', 'integer', 'Number of ready replicas.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    selectorColumn('Label selector of the replica set.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return {
      cells: [objectName(o), int(at(o, 'spec', 'replicas')), int(at(o, 'status', 'replicas')), int(at(o, 'status', 'readyReplicas')), objectAge(o, now), containers, images, formatLabelSelector(at(o, 'spec', 'selector'))],
    };
  },
};

export const statefulSetPrinter: Printer = {
  columns: [NAME_COLUMN, column('Ready', 'string', 'Ready replicas out of desired replicas.'), AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return { cells: [objectName(o), `${int(at(o, 'status', 'readyReplicas'))}/${int(at(o, 'spec', 'replicas'))}`, objectAge(o, now), containers, images] };
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
    selectorColumn('Label selector of the daemon set.'),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return {
      cells: [
        objectName(o),
        int(at(o, 'status', 'desiredNumberScheduled')),
        int(at(o, 'status', 'currentNumberScheduled')),
        int(at(o, 'status', 'numberReady')),
        int(at(o, 'status', 'updatedNumberScheduled')),
        int(at(o, 'status', 'numberAvailable')),
        formatLabels(at(o, 'spec', 'template', 'spec', 'nodeSelector')),
        objectAge(o, now),
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
  print: (o, now) => ({ cells: [objectName(o), controllerOf(o), int(at(o, 'revision')), objectAge(o, now)] }),
};

/** The printers by kind, for api/tables/index.ts. */
export const appsPrinters: Record<string, Printer> = {
  Deployment: deploymentPrinter,
  ReplicaSet: replicaSetPrinter,
  StatefulSet: statefulSetPrinter,
  DaemonSet: daemonSetPrinter,
  ControllerRevision: controllerRevisionPrinter,
};
