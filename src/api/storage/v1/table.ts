// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// storage.k8s.io/v1 kinds (CSIStorageCapacity uses the default table).
import { AGE_COLUMN, column, NAME_COLUMN, objectAge, objectName, type Printer } from '../../tables/printer.js';
import { arr, at, rec, str } from '../../tables/fields.js';

const flag = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);

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
        isDefault ? `${objectName(o)} (default)` : objectName(o),
        str(o.provisioner),
        str(o.reclaimPolicy) || 'Delete',
        str(o.volumeBindingMode) || 'Immediate',
        flag(o.allowVolumeExpansion, false),
        objectAge(o, now),
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
        objectName(o),
        flag(spec.attachRequired, true),
        flag(spec.podInfoOnMount, false),
        flag(spec.storageCapacity, false),
        tokens,
        flag(spec.requiresRepublish, false),
        modes === '' ? '<none>' : modes,
        objectAge(o, now),
      ],
    };
  },
};

export const csiNodePrinter: Printer = {
  columns: [NAME_COLUMN, column('Drivers', 'integer', 'Drivers indicates the number of CSI drivers registered on the node'), AGE_COLUMN],
  print: (o, now) => ({ cells: [objectName(o), arr(at(o, 'spec', 'drivers')).length, objectAge(o, now)] }),
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
      objectName(o),
      str(at(o, 'spec', 'attacher')),
      str(at(o, 'spec', 'source', 'persistentVolumeName')),
      str(at(o, 'spec', 'nodeName')),
      at(o, 'status', 'attached') === true,
      objectAge(o, now),
    ],
  }),
};

/** The printers by kind, for api/tables/index.ts. */
export const storagePrinters: Record<string, Printer> = {
  StorageClass: storageClassPrinter,
  CSIDriver: csiDriverPrinter,
  CSINode: csiNodePrinter,
  VolumeAttachment: volumeAttachmentPrinter,
};
