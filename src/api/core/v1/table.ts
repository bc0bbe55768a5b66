// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// core/v1 kinds (the pod printer is in pod-table.ts).
import { AGE_COLUMN, column, containerCells, CONTAINERS_COLUMN, IMAGES_COLUMN, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { arr, at, countKeys, int, type Obj, rec, str } from '../../tables/fields.js';
import { formatLabels } from '../../tables/labels.js';
import { parseTimestamp, timeSince } from '../../tables/duration.js';
import { podPrinter } from './pod-table.js';

export const namespacePrinter: Printer = {
  columns: [NAME_COLUMN, column('Status', 'string', 'Lifecycle phase of the namespace.'), AGE_COLUMN],
  print: (o, now) => ({ cells: [objectName(o), str(at(o, 'status', 'phase')), objectAge(o, now)] }),
};

export const configMapPrinter: Printer = {
  columns: [NAME_COLUMN, column('Data', 'string', 'Number of keys in data and binaryData.'), AGE_COLUMN],
  print: (o, now) => ({ cells: [objectName(o), countKeys(o.data) + countKeys(o.binaryData), objectAge(o, now)] }),
};

export const secretPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', 'Type of the secret.'),
    column('Data', 'string', 'Number of keys in the secret.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    // stringData is folded into data when the object is read, so count both.
    const keys = new Set([...Object.keys(rec(o.data)), ...Object.keys(rec(o.stringData))]);
    return { cells: [objectName(o), str(o.type), keys.size, objectAge(o, now)] };
  },
};

export const serviceAccountPrinter: Printer = {
  columns: [NAME_COLUMN, column('Secrets', 'string', 'Number of secrets listed by the service account.'), AGE_COLUMN],
  print: (o, now) => ({ cells: [objectName(o), arr(o.secrets).length, objectAge(o, now)] }),
};

// --- services ---------------------------------------------------------------
const LOAD_BALANCER_WIDTH = 16;

function loadBalancerAddresses(status: unknown, wide: boolean): string {
  const found = new Set<string>();
  for (const raw of arr(at(status, 'loadBalancer', 'ingress'))) {
    const ingress = rec(raw);
    if (str(ingress.ip) !== '') found.add(str(ingress.ip));
    else if (str(ingress.hostname) !== '') found.add(str(ingress.hostname));
  }
  let joined = [...found].sort().join(',');
  if (!wide && joined.length > LOAD_BALANCER_WIDTH) joined = `${joined.slice(0, LOAD_BALANCER_WIDTH - 3)}...`;
  return joined;
}

function serviceExternalIP(svc: Obj): string {
  const spec = rec(svc.spec);
  const externalIPs = arr(spec.externalIPs).map(String);
  switch (str(spec.type)) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      // The apiserver prints tables in wide mode: addresses are never clipped.
      const lb = loadBalancerAddresses(svc.status, true);
      if (externalIPs.length > 0) return [...(lb === '' ? [] : lb.split(',')), ...externalIPs].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return str(spec.externalName);
    default:
      return '<unknown>';
  }
}

function servicePorts(ports: unknown): string {
  return arr(ports)
    .map((raw) => {
      const p = rec(raw);
      // Protocol is defaulted to TCP on write; read an unset one the same way.
      const protocol = str(p.protocol) || 'TCP';
      return int(p.nodePort) > 0 ? `${int(p.port)}:${int(p.nodePort)}/${protocol}` : `${int(p.port)}/${protocol}`;
    })
    .join(',');
}

export const servicePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Type', 'string', 'How the service is exposed.'),
    column('Cluster-IP', 'string', 'Cluster-internal IP address of the service.'),
    column('External-IP', 'string', 'Addresses the service is reachable at from outside the cluster.'),
    column('Port(s)', 'string', 'Ports the service exposes.'),
    AGE_COLUMN,
    column('Selector', 'string', 'Labels selecting the pods behind the service.', { priority: 1 }),
  ],
  print: (o, now) => {
    const spec = rec(o.spec);
    const clusterIPs = arr(spec.clusterIPs).map(String);
    const clusterIP = clusterIPs[0] ?? (str(spec.clusterIP) || '<none>');
    const ports = servicePorts(spec.ports) || '<none>';
    return {
      cells: [objectName(o), str(spec.type), clusterIP, serviceExternalIP(o), ports, objectAge(o, now), formatLabels(spec.selector)],
    };
  },
};

// --- endpoints --------------------------------------------------------------
function joinHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** Up to three "ip:port" entries, then "+ N more...". */
function formatEndpoints(subsets: unknown): string {
  const list = arr(subsets);
  if (list.length === 0) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let more = false;
  let count = 0;
  for (const raw of list) {
    const subset = rec(raw);
    const addresses = arr(subset.addresses).map((a) => str(rec(a).ip));
    const ports = arr(subset.ports).map((p) => int(rec(p).port));
    if (ports.length === 0) {
      // Headless services may have addresses without ports.
      count += addresses.length;
      for (const ip of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        shown.push(ip);
      }
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const ip of addresses) {
        if (shown.length === max) {
          more = true;
          break;
        }
        shown.push(joinHostPort(ip, port));
      }
    }
  }
  const joined = shown.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

export const endpointsPrinter: Printer = {
  columns: [NAME_COLUMN, column('Endpoints', 'string', 'Addresses and ports of the endpoints.'), AGE_COLUMN],
  print: (o, now) => ({ cells: [objectName(o), formatEndpoints(o.subsets), objectAge(o, now)] }),
};

// --- nodes ------------------------------------------------------------------
const NODE_ROLE_PREFIX = 'node-role.kubernetes.io/';
const NODE_ROLE_LABEL = 'kubernetes.io/role';

function nodeRoles(node: Obj): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(rec(at(node, 'metadata', 'labels')))) {
    if (key.startsWith(NODE_ROLE_PREFIX)) {
      const role = key.slice(NODE_ROLE_PREFIX.length);
      if (role !== '') roles.add(role);
    } else if (key === NODE_ROLE_LABEL && value !== '') {
      roles.add(String(value));
    }
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeAddress(node: Obj, type: string): string {
  for (const raw of arr(at(node, 'status', 'addresses'))) {
    const addr = rec(raw);
    if (addr.type === type) return str(addr.address);
  }
  return '<none>';
}

export const nodePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Readiness of the node.'),
    column('Roles', 'string', 'Roles of the node, from its node-role labels.'),
    AGE_COLUMN,
    column('Version', 'string', 'Kubelet version reported by the node.'),
    column('Internal-IP', 'string', 'Internal address of the node.', { priority: 1 }),
    column('External-IP', 'string', 'External address of the node.', { priority: 1 }),
    column('OS-Image', 'string', 'Operating system image reported by the node.', { priority: 1 }),
    column('Kernel-Version', 'string', 'Kernel version reported by the node.', { priority: 1 }),
    column('Container-Runtime', 'string', 'Container runtime and version reported by the node.', { priority: 1 }),
  ],
  print: (o, now) => {
    // Only the Ready condition counts; the last one of that type wins, as in a map keyed by type.
    let ready: Obj | undefined;
    for (const raw of arr(at(o, 'status', 'conditions'))) {
      const cond = rec(raw);
      if (cond.type === 'Ready') ready = cond;
    }
    const status: string[] = [];
    if (ready !== undefined) status.push(ready.status === 'True' ? 'Ready' : 'NotReady');
    else status.push('Unknown');
    if (at(o, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
    const info = rec(at(o, 'status', 'nodeInfo'));
    const orUnknown = (v: unknown): string => str(v) || '<unknown>';
    return {
      cells: [
        objectName(o),
        status.join(','),
        nodeRoles(o),
        objectAge(o, now),
        str(info.kubeletVersion),
        nodeAddress(o, 'InternalIP'),
        nodeAddress(o, 'ExternalIP'),
        orUnknown(info.osImage),
        orUnknown(info.kernelVersion),
        orUnknown(info.containerRuntimeVersion),
      ],
    };
  },
};

// --- resource quotas --------------------------------------------------------
export const resourceQuotaPrinter: Printer = {
  // 1.32 order: AGE comes before REQUEST and LIMIT.
  columns: [
    NAME_COLUMN,
    AGE_COLUMN,
    column('Request', 'string', 'Used and hard amounts of each non-limit resource.'),
    column('Limit', 'string', 'Used and hard amounts of each limits.* resource.'),
  ],
  print: (o, now) => {
    const hard = rec(at(o, 'status', 'hard'));
    const used = rec(at(o, 'status', 'used'));
    const requests: string[] = [];
    const limits: string[] = [];
    for (const resource of Object.keys(hard).sort()) {
      const usedQuantity = used[resource] === undefined ? '0' : String(used[resource]);
      const entry = `${resource}: ${usedQuantity}/${String(hard[resource])}`;
      const pieces = resource.split('.');
      (pieces.length > 1 && pieces[0] === 'limits' ? limits : requests).push(entry);
    }
    return { cells: [objectName(o), objectAge(o, now), requests.join(', '), limits.join(', ')] };
  },
};

// --- persistent volume claims ------------------------------------------------
export const persistentVolumeClaimPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Phase of the claim.'),
    column('Volume', 'string', 'The volume bound to the claim.'),
    column('Capacity', 'string', 'Capacity of the bound volume.'),
    column('Access Modes', 'string', 'Access modes of the bound volume.'),
    column('StorageClass', 'string', 'StorageClass of the pvc'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pvc'),
    AGE_COLUMN,
    column('VolumeMode', 'string', 'Block or Filesystem.', { priority: 1 }),
  ],
  print: (o, now) => {
    const spec = rec(o.spec);
    const status = rec(o.status);
    const phase = at(o, 'metadata', 'deletionTimestamp') !== undefined ? 'Terminating' : str(status.phase);
    const volume = str(spec.volumeName);
    let capacity = '';
    let modes = '';
    if (volume !== '') {
      capacity = str(at(status, 'capacity', 'storage'));
      modes = accessModesString(arr(status.accessModes).map(String));
    }
    const annotated = at(o, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class');
    const storageClass = annotated !== undefined ? str(annotated) : str(spec.storageClassName);
    const vac = spec.volumeAttributesClassName === undefined ? '<unset>' : str(spec.volumeAttributesClassName);
    const mode = spec.volumeMode === undefined ? '<unset>' : str(spec.volumeMode);
    return { cells: [objectName(o), phase, volume, capacity, modes, storageClass, vac, objectAge(o, now), mode] };
  },
};

/** helper.GetAccessModesAsString: RWO,ROX,RWX,RWOP in that order, each once. */
export function accessModesString(modes: string[]): string {
  const short: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short.filter(([m]) => modes.includes(m)).map(([, s]) => s).join(',');
}

// --- replication controllers ------------------------------------------------
export const replicationControllerPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Desired', 'integer', 'Number of replicas asked for.'),
    column('Current', 'integer', 'Number of replicas observed.'),
    column('Ready', 'integer', 'Number of ready replicas.'),
    AGE_COLUMN,
    CONTAINERS_COLUMN,
    IMAGES_COLUMN,
    column('Selector', 'string', 'Labels selecting the controlled pods.', { priority: 1 }),
  ],
  print: (o, now) => {
    const [containers, images] = containerCells(at(o, 'spec', 'template', 'spec', 'containers'));
    return {
      cells: [
        objectName(o),
        int(at(o, 'spec', 'replicas')),
        int(at(o, 'status', 'replicas')),
        int(at(o, 'status', 'readyReplicas')),
        objectAge(o, now),
        containers,
        images,
        formatLabels(at(o, 'spec', 'selector')),
      ],
    };
  },
};

function formatSource(event: Obj): string {
  const source = rec(event.source);
  // core/v1 names the reporter reportingComponent, events.k8s.io/v1 reportingController.
  const component = str(source.component) || str(event.reportingComponent) || str(event.reportingController);
  const host = str(source.host) || str(event.reportingInstance);
  return host === '' ? component : `${component}, ${host}`;
}

export const eventPrinter: Printer = {
  columns: [
    column('Last Seen', 'string', 'Time since the event was last observed.'),
    column('Type', 'string', 'Type of the event (Normal, Warning).'),
    column('Reason', 'string', 'Short machine-readable reason for the event.'),
    column('Object', 'string', 'Object the event is about, as kind/name.'),
    column('Subobject', 'string', 'Part of the object the event is about.', { priority: 1 }),
    column('Source', 'string', 'Component (and host) that reported the event.', { priority: 1 }),
    column('Message', 'string', 'Human-readable description of the event.'),
    column('First Seen', 'string', 'Time since the event was first observed.', { priority: 1 }),
    column('Count', 'string', 'Number of times the event was observed.', { priority: 1 }),
    { ...NAME_COLUMN, priority: 1 },
  ],
  print: (event, now) => {
    let firstSeen = timeSince(event.firstTimestamp, now);
    if (parseTimestamp(event.firstTimestamp) === undefined) firstSeen = timeSince(event.eventTime, now);
    let lastSeen = timeSince(event.lastTimestamp, now);
    if (parseTimestamp(event.lastTimestamp) === undefined) lastSeen = firstSeen;
    let count = int(event.count);
    if (event.series !== undefined && event.series !== null) {
      lastSeen = timeSince(at(event, 'series', 'lastObservedTime'), now);
      count = int(at(event, 'series', 'count'));
    } else if (count === 0) {
      // Events from the new API carry no count when seen once.
      count = 1;
    }
    const involved = rec(event.involvedObject);
    const kind = str(involved.kind).toLowerCase();
    const target = str(involved.name) !== '' ? `${kind}/${str(involved.name)}` : kind;
    return {
      cells: [
        lastSeen,
        str(event.type),
        str(event.reason),
        target,
        str(involved.fieldPath),
        formatSource(event),
        str(event.message).trim(),
        firstSeen,
        count,
        str(at(event, 'metadata', 'name')),
      ],
    };
  },
};

export const podTemplatePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Containers', 'string', 'Names of each container in the template.'),
    column('Images', 'string', 'Images referenced by each container in the template.'),
    column('Pod Labels', 'string', 'The labels for the pod template.'),
  ],
  print: (o) => {
    const [containers, images] = containerCells(at(o, 'template', 'spec', 'containers'));
    return { cells: [objectName(o), containers, images, formatLabels(at(o, 'template', 'metadata', 'labels'))] };
  },
};

export const persistentVolumePrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Capacity', 'string', 'Capacity of the volume.'),
    column('Access Modes', 'string', 'Ways the volume can be mounted.'),
    column('Reclaim Policy', 'string', 'What happens to the volume when its claim is released.'),
    column('Status', 'string', 'Phase of the volume.'),
    column('Claim', 'string', 'The claim bound to the volume.'),
    column('StorageClass', 'string', 'StorageClass of the pv'),
    column('VolumeAttributesClass', 'string', 'VolumeAttributesClass of the pv'),
    column('Reason', 'string', 'Why the volume is in its phase.'),
    AGE_COLUMN,
    column('VolumeMode', 'string', 'Block or Filesystem.', { priority: 1 }),
  ],
  print: (o, now) => {
    const spec = rec(o.spec);
    const claimRef = spec.claimRef === undefined || spec.claimRef === null ? '' : `${str(at(spec, 'claimRef', 'namespace'))}/${str(at(spec, 'claimRef', 'name'))}`;
    const phase = at(o, 'metadata', 'deletionTimestamp') !== undefined ? 'Terminating' : str(at(o, 'status', 'phase'));
    const annotated = at(o, 'metadata', 'annotations', 'volume.beta.kubernetes.io/storage-class');
    const storageClass = annotated !== undefined ? str(annotated) : str(spec.storageClassName);
    const vac = spec.volumeAttributesClassName === undefined ? '<unset>' : str(spec.volumeAttributesClassName);
    const mode = spec.volumeMode === undefined ? '<unset>' : str(spec.volumeMode);
    const capacity = at(spec, 'capacity', 'storage');
    return {
      cells: [
        objectName(o),
        capacity === undefined ? '0' : String(capacity),
        accessModesString(arr(spec.accessModes).map(String)),
        str(spec.persistentVolumeReclaimPolicy),
        phase,
        claimRef,
        storageClass,
        vac,
        str(at(o, 'status', 'reason')),
        objectAge(o, now),
        mode,
      ],
    };
  },
};

/** The printers by kind, for api/tables/index.ts. */
/** The component's Healthy condition: Healthy or Unhealthy with its message and error (Unknown without one), as upstream prints it. */
export const componentStatusPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Status', 'string', 'Whether the component answered its health check.'),
    column('Message', 'string', 'What the health check answered.'),
    column('Error', 'string', 'Why the health check failed.'),
  ],
  print: (o) => {
    const healthy = arr(o.conditions).map(rec).find((c) => c.type === 'Healthy');
    if (healthy === undefined) return { cells: [objectName(o), 'Unknown', '', ''] };
    return { cells: [objectName(o), healthy.status === 'True' ? 'Healthy' : 'Unhealthy', str(healthy.message), str(healthy.error)] };
  },
};

export const corePrinters: Record<string, Printer> = {
  Namespace: namespacePrinter,
  ConfigMap: configMapPrinter,
  Secret: secretPrinter,
  ServiceAccount: serviceAccountPrinter,
  Service: servicePrinter,
  Pod: podPrinter,
  Event: eventPrinter,
  Endpoints: endpointsPrinter,
  Node: nodePrinter,
  ResourceQuota: resourceQuotaPrinter,
  PersistentVolumeClaim: persistentVolumeClaimPrinter,
  ReplicationController: replicationControllerPrinter,
  PersistentVolume: persistentVolumePrinter,
  PodTemplate: podTemplatePrinter,
  ComponentStatus: componentStatusPrinter,
};
