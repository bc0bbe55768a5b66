// Printers for apps/v1 Deployment and coordination.k8s.io/v1 Lease, as
// kube-apiserver 1.32 serves them.

import { AGE_COLUMN, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, column, containerCells, type Printer } from './printer.js';
import { at, int, str } from './fields.js';
import { formatLabelSelector } from './labels.js';
import { timeSince } from './duration.js';

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

export const leasePrinter: Printer = {
  columns: [NAME_COLUMN, column('Holder', 'string', 'Identity of the current holder of the lease.'), AGE_COLUMN],
  print: (o, now) => ({
    cells: [str(at(o, 'metadata', 'name')), str(at(o, 'spec', 'holderIdentity')), timeSince(at(o, 'metadata', 'creationTimestamp'), now)],
  }),
};
