// Printers for persistent volumes and the storage.k8s.io/v1 kinds, as
// kube-apiserver 1.32 serves them (pkg/printers/internalversion).

import { AGE_COLUMN, NAME_COLUMN, column, type Printer } from './printer.js';
import { arr, at, rec, str, type Obj } from './fields.js';
import { timeSince } from './duration.js';
import { accessModesString } from './core.js';

const name = (o: Obj): string => str(at(o, 'metadata', 'name'));
const age = (o: Obj, now: Date): string => timeSince(at(o, 'metadata', 'creationTimestamp'), now);
/** A *bool field: its value, or the fallback when unset. */
const flag = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);

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
        name(o),
        capacity === undefined ? '0' : String(capacity),
        accessModesString(arr(spec.accessModes).map(String)),
        str(spec.persistentVolumeReclaimPolicy),
        phase,
        claimRef,
        storageClass,
        vac,
        str(at(o, 'status', 'reason')),
        age(o, now),
        mode,
      ],
    };
  },
};

export const storageClassPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Provisioner', 'string', 'The provisioner of the class.'),
    column('ReclaimPolicy', 'string', 'Reclaim policy of volumes the class provisions.'),
    column('VolumeBindingMode', 'string', 'When volumes are bound and provisioned.'),
    column('AllowVolumeExpansion', 'string', 'Whether volumes of the class may be expanded.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const annotations = rec(at(o, 'metadata', 'annotations'));
    const isDefault =
      annotations['storageclass.kubernetes.io/is-default-class'] === 'true' || annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true';
    return {
      cells: [
        isDefault ? `${name(o)} (default)` : name(o),
        str(o.provisioner),
        str(o.reclaimPolicy) || 'Delete',
        str(o.volumeBindingMode) || 'Immediate',
        flag(o.allowVolumeExpansion, false),
        age(o, now),
      ],
    };
  },
};

export const csiDriverPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('AttachRequired', 'boolean', 'Whether the driver needs an attach operation.'),
    column('PodInfoOnMount', 'boolean', 'Whether the driver gets pod information on mount.'),
    column('StorageCapacity', 'boolean', 'Whether the scheduler considers the storage capacity the driver reports.'),
    column('TokenRequests', 'string', 'Audiences of the service account tokens the driver receives.'),
    column('RequiresRepublish', 'boolean', 'Whether NodePublishVolume is called periodically.'),
    column('Modes', 'string', 'The volume lifecycle modes the driver supports.'),
    AGE_COLUMN,
  ],
  print: (o, now) => {
    const spec = rec(o.spec);
    const modes = arr(spec.volumeLifecycleModes).map(String).join(',');
    const tokens = Array.isArray(spec.tokenRequests) ? spec.tokenRequests.map((t) => str(rec(t).audience)).join(',') : '<unset>';
    return {
      cells: [
        name(o),
        flag(spec.attachRequired, true),
        flag(spec.podInfoOnMount, false),
        flag(spec.storageCapacity, false),
        tokens,
        flag(spec.requiresRepublish, false),
        modes === '' ? '<none>' : modes,
        age(o, now),
      ],
    };
  },
};

export const csiNodePrinter: Printer = {
  columns: [NAME_COLUMN, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), AGE_COLUMN],
  print: (o, now) => ({ cells: [name(o), arr(at(o, 'spec', 'drivers')).length, age(o, now)] }),
};

export const volumeAttachmentPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    // Upstream marks this column as a name column too.
    column('Attacher', 'string', 'The driver that attaches the volume.', { format: 'name' }),
    column('PV', 'string', 'The persistent volume attached.'),
    column('Node', 'string', 'The node the volume is attached to.'),
    column('Attached', 'boolean', 'Whether the volume is attached.'),
    AGE_COLUMN,
  ],
  print: (o, now) => ({
    cells: [
      name(o),
      str(at(o, 'spec', 'attacher')),
      str(at(o, 'spec', 'source', 'persistentVolumeName')),
      str(at(o, 'spec', 'nodeName')),
      at(o, 'status', 'attached') === true,
      age(o, now),
    ],
  }),
};

// CSIStorageCapacity has a printer upstream, but its REST storage serves the
// default Name / Created At table; so does apiary.
