// storage.k8s.io/v1 defaults and validation (upstream pkg/apis/storage/v1/defaults.go
// and pkg/apis/storage/validation): storage classes, CSI drivers, CSI nodes,
// volume attachments and CSI storage capacities.

import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors } from '../../../machinery/field-errors.js';
import { parseQuantity } from '../../../machinery/quantity.js';
import { FIELD_IMMUTABLE_ERROR_MSG, isDNS1123Subdomain, isQualifiedName } from '../../../machinery/validation.js';
import { validateLabelSelector } from '../../../machinery/selector-validation.js';
import { sameJSON } from '../../core/v1/validation.js';
import type { Loose } from '../../loose.js';

const RECLAIM_POLICIES = ['Delete', 'Retain'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'];
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'];
const MAX_PARAMETERS = 512;
const MAX_PARAMETERS_SIZE = 256 * 1024;
const MAX_ATTACHMENT_METADATA_SIZE = 256 * 1024;

// ---- defaults -------------------------------------------------------------

export function defaultStorageClass(obj: KubeObject): void {
  const sc = obj as Loose;
  sc.reclaimPolicy ??= 'Delete';
  sc.volumeBindingMode ??= 'Immediate';
}

export function defaultCSIDriver(obj: KubeObject): void {
  const d = obj as Loose;
  d.spec ??= {};
  const spec = d.spec as Loose;
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= 'ReadWriteOnceWithFSType';
  if ((spec.volumeLifecycleModes ?? []).length === 0) spec.volumeLifecycleModes = ['Persistent'];
  spec.requiresRepublish ??= false;
  // SELinuxMountReadWriteOncePod is on by default in 1.32.
  spec.seLinuxMount ??= false;
}

// ---- storage classes --------------------------------------------------------

function validateProvisioner(provisioner: string, path: string): FieldError[] {
  if (provisioner === '') return [fieldErrors.required(path)];
  return isQualifiedName(provisioner.toLowerCase()).map((m) => fieldErrors.invalid(path, provisioner.toLowerCase(), m));
}

function validateParameters(params: Record<string, string> | undefined, path: string): FieldError[] {
  const entries = Object.entries(params ?? {});
  if (entries.length > MAX_PARAMETERS) return [fieldErrors.tooLong(path, MAX_PARAMETERS)];
  const errs: FieldError[] = [];
  let size = 0;
  for (const [k, v] of entries) {
    if (k.length < 1) errs.push(fieldErrors.invalid(path, k, 'field can not be empty.'));
    size += Buffer.byteLength(k) + Buffer.byteLength(v);
  }
  if (size > MAX_PARAMETERS_SIZE) errs.push(fieldErrors.tooLong(path, MAX_PARAMETERS_SIZE));
  return errs;
}

export function validateStorageClass(obj: KubeObject): FieldError[] {
  const sc = obj as Loose;
  const errs = validateProvisioner(sc.provisioner ?? '', 'provisioner');
  errs.push(...validateParameters(sc.parameters, 'parameters'));
  const policy: string = sc.reclaimPolicy ?? '';
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) errs.push(fieldErrors.notSupported('reclaimPolicy', policy, RECLAIM_POLICIES));
  if (sc.volumeBindingMode == null) errs.push(fieldErrors.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(sc.volumeBindingMode)) errs.push(fieldErrors.notSupported('volumeBindingMode', sc.volumeBindingMode, BINDING_MODES));
  (sc.allowedTopologies ?? []).forEach((term: Loose, i: number) => {
    (term.matchLabelExpressions ?? []).forEach((req: Loose, j: number) => {
      const p = `allowedTopologies[${i}].matchLabelExpressions[${j}]`;
      for (const m of isQualifiedName(req.key ?? '')) errs.push(fieldErrors.invalid(`${p}.key`, req.key ?? '', m));
      if ((req.values ?? []).length === 0) errs.push(fieldErrors.required(`${p}.values`, 'must specify as least one value'));
    });
  });
  return errs;
}

export function validateStorageClassUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const a = obj as Loose;
  const b = old as Loose;
  const errs: FieldError[] = [];
  if (!sameJSON(a.parameters ?? {}, b.parameters ?? {})) errs.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  if ((a.provisioner ?? '') !== (b.provisioner ?? '')) errs.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if ((a.reclaimPolicy ?? '') !== (b.reclaimPolicy ?? '')) errs.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if ((a.volumeBindingMode ?? null) !== (b.volumeBindingMode ?? null)) {
    errs.push(fieldErrors.invalid('volumeBindingMode', a.volumeBindingMode ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  }
  return errs;
}

// ---- CSI drivers ------------------------------------------------------------

export function validateCSIDriver(obj: KubeObject): FieldError[] {
  const spec: Loose = (obj as Loose).spec ?? {};
  const errs: FieldError[] = [];
  if (spec.attachRequired == null) errs.push(fieldErrors.required('spec.attachedRequired'));
  if (spec.podInfoOnMount == null) errs.push(fieldErrors.required('spec.podInfoOnMount'));
  if (spec.storageCapacity == null) errs.push(fieldErrors.required('spec.storageCapacity'));
  if (spec.fsGroupPolicy != null && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy)) {
    errs.push(fieldErrors.notSupported('spec.fsGroupPolicy', spec.fsGroupPolicy, FS_GROUP_POLICIES));
  }
  const audiences = new Set<string>();
  (spec.tokenRequests ?? []).forEach((t: Loose, i: number) => {
    const p = `spec.tokenRequests[${i}]`;
    const audience: string = t.audience ?? '';
    if (audiences.has(audience)) {
      errs.push(fieldErrors.duplicate(`${p}.audience`, audience));
      return;
    }
    audiences.add(audience);
    const exp = t.expirationSeconds;
    if (exp == null) return;
    if (exp < 600) errs.push(fieldErrors.invalid(`${p}.expirationSeconds`, exp, 'may not specify a duration less than 10 minutes'));
    if (exp > 2 ** 32) errs.push(fieldErrors.invalid(`${p}.expirationSeconds`, exp, 'may not specify a duration larger than 2^32 seconds'));
  });
  for (const mode of (spec.volumeLifecycleModes ?? []) as string[]) {
    if (!LIFECYCLE_MODES.includes(mode)) errs.push(fieldErrors.notSupported('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES));
  }
  if (spec.seLinuxMount == null) errs.push(fieldErrors.required('spec.seLinuxMount'));
  return errs;
}

export function validateCSIDriverUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCSIDriver(obj);
  const a: Loose = (obj as Loose).spec ?? {};
  const b: Loose = (old as Loose).spec ?? {};
  if ((a.attachRequired ?? null) !== (b.attachRequired ?? null)) errs.push(fieldErrors.invalid('spec.attachedRequired', a.attachRequired ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  if (!sameJSON(a.volumeLifecycleModes ?? null, b.volumeLifecycleModes ?? null)) {
    errs.push(fieldErrors.invalid('spec.volumeLifecycleModes', a.volumeLifecycleModes ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  }
  return errs;
}

// ---- CSI nodes --------------------------------------------------------------

function csiDriverNameErrors(name: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (name === '') errs.push(fieldErrors.required(path));
  if (name.length > 63) errs.push(fieldErrors.tooLong(path, 63));
  for (const m of isDNS1123Subdomain(name.toLowerCase())) errs.push(fieldErrors.invalid(path, name, m));
  return errs;
}

export function validateCSINode(obj: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (((obj as Loose).spec?.drivers ?? []) as Loose[]).forEach((d, i) => {
    const p = `spec.drivers[${i}]`;
    const name: string = d.name ?? '';
    errs.push(...csiDriverNameErrors(name, `${p}.name`));
    const nodeID: string = d.nodeID ?? '';
    if (nodeID === '') errs.push(fieldErrors.required(`${p}.nodeID`));
    if (nodeID.length > 256) errs.push(fieldErrors.invalid(`${p}.nodeID`, nodeID, 'must be 256 characters or less'));
    const count = d.allocatable?.count;
    if (typeof count === 'number' && count < 0) errs.push(fieldErrors.invalid(`${p}.allocatable.count`, count, 'must be greater than or equal to 0'));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    names.add(name);
    const keys = new Set<string>();
    for (const key of (d.topologyKeys ?? []) as string[]) {
      if (key === '') errs.push(fieldErrors.required(p));
      if (keys.has(key)) errs.push(fieldErrors.duplicate(p, key));
      keys.add(key);
      for (const m of isQualifiedName(key)) errs.push(fieldErrors.invalid(p, key, m));
    }
  });
  return errs;
}

export function validateCSINodeUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateCSINode(obj);
  const oldDrivers: Loose[] = (old as Loose).spec?.drivers ?? [];
  for (const d of ((obj as Loose).spec?.drivers ?? []) as Loose[]) {
    const before = oldDrivers.find((o) => o.name === d.name);
    if (before !== undefined && !sameJSON(before, d)) errs.push(fieldErrors.invalid('CSINodeDriver', d, FIELD_IMMUTABLE_ERROR_MSG));
  }
  return errs;
}

// ---- volume attachments -----------------------------------------------------

export function validateVolumeAttachment(obj: KubeObject): FieldError[] {
  const va = obj as Loose;
  const spec: Loose = va.spec ?? {};
  const errs: FieldError[] = [];
  if ((spec.attacher ?? '') === '') errs.push(fieldErrors.required('spec.attacher'));
  const source: Loose = spec.source ?? {};
  const hasInline = source.inlineVolumeSpec != null;
  const hasPV = source.persistentVolumeName != null;
  if (!hasInline && !hasPV) errs.push(fieldErrors.required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasInline && hasPV) errs.push(fieldErrors.forbidden('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (hasPV && source.persistentVolumeName === '') {
    errs.push(fieldErrors.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  }
  const node: string = spec.nodeName ?? '';
  for (const m of isDNS1123Subdomain(node)) errs.push(fieldErrors.invalid('spec.nodeName', node, m));
  const status: Loose = va.status ?? {};
  let size = 0;
  for (const [k, v] of Object.entries((status.attachmentMetadata ?? {}) as Record<string, string>)) size += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (size > MAX_ATTACHMENT_METADATA_SIZE) errs.push(fieldErrors.tooLong('status.attachmentMetadata', MAX_ATTACHMENT_METADATA_SIZE));
  for (const f of ['attachError', 'detachError']) {
    const message: string = status[f]?.message ?? '';
    if (message.length > 1024) errs.push(fieldErrors.tooLong(`status.${f}.message`, MAX_ATTACHMENT_METADATA_SIZE));
  }
  return errs;
}

/** The v1-only checks on create: the attacher is a CSI driver name, the PV name a valid name. */
export function validateVolumeAttachmentCreate(obj: KubeObject): FieldError[] {
  const errs = validateVolumeAttachment(obj);
  const spec: Loose = (obj as Loose).spec ?? {};
  errs.push(...csiDriverNameErrors(spec.attacher ?? '', 'spec.attacher'));
  const pv = spec.source?.persistentVolumeName;
  if (typeof pv === 'string') for (const m of isDNS1123Subdomain(pv)) errs.push(fieldErrors.invalid('spec.source.persistentVolumeName', pv, m));
  return errs;
}

export function validateVolumeAttachmentUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const errs = validateVolumeAttachment(obj);
  const a = (obj as Loose).spec ?? {};
  if (!sameJSON(a, (old as Loose).spec ?? {})) errs.push(fieldErrors.invalid('spec', a, FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}

// ---- CSI storage capacities ---------------------------------------------------

export function validateCSIStorageCapacity(obj: KubeObject): FieldError[] {
  const c = obj as Loose;
  const errs = validateLabelSelector(c.nodeTopology, 'nodeTopology');
  const className: string = c.storageClassName ?? '';
  for (const m of isDNS1123Subdomain(className)) errs.push(fieldErrors.invalid('storageClassName', className, m));
  if (c.capacity != null) {
    try {
      const q = parseQuantity(String(c.capacity));
      if (q.sign() < 0) errs.push(fieldErrors.invalid('capacity', q.toString(), 'must be greater than or equal to 0'));
    } catch (err) {
      errs.push(fieldErrors.invalid('capacity', String(c.capacity), err instanceof Error ? err.message : String(err)));
    }
  }
  return errs;
}

export function validateCSIStorageCapacityUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  const a = obj as Loose;
  const b = old as Loose;
  const errs: FieldError[] = [];
  if (!sameJSON(a.nodeTopology ?? null, b.nodeTopology ?? null)) errs.push(fieldErrors.invalid('nodeTopology', a.nodeTopology ?? null, FIELD_IMMUTABLE_ERROR_MSG));
  if ((a.storageClassName ?? '') !== (b.storageClassName ?? '')) errs.push(fieldErrors.invalid('storageClassName', a.storageClassName ?? '', FIELD_IMMUTABLE_ERROR_MSG));
  return errs;
}
