// Pods: status reset to Pending (with its QoS class) on create and kept on
// spec writes; spec nearly immutable; graceful deletion for scheduled pods;
// DELETE answers with the pod.
import type { KubeObject } from '../../machinery/meta.js';
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import { defaultPod } from '../../api/core/v1/defaults.js';
import { validatePod, validatePodUpdate } from '../../api/core/v1/validation.js';
import { validateEphemeralContainersUpdate } from '../../api/core/v1/ephemeral-containers.js';
import type { Pod } from '../../api/core/v1/types.js';
import { computePodQOS } from '../../api/core/v1/resource-helpers.js';
import type { Strategy } from '../strategy.js';
import { fieldAt, keepStatus, statusSubresource } from '../strategy-helpers.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import { podWarnings } from '../../api/core/v1/pod-warnings.js';

/** Upstream's ComputePodQOS (exact quantity comparisons). */
export function podQOSClass(pod: Pod): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  return computePodQOS(pod);
}

function bool(get: (o: KubeObject) => string): (o: KubeObject) => string {
  return (o) => (get(o) === 'true' ? 'true' : 'false');
}

export const podStrategy: Strategy = {
  namespaced: true,
  nameValidator: nameIsDNSSubdomain,
  defaults: defaultPod,
  prepareForCreate(obj) {
    const pod = obj as Pod;
    pod.status = { phase: 'Pending', qosClass: podQOSClass(pod) };
  },
  prepareForUpdate: keepStatus,
  validate: validatePod,
  validateUpdate: validatePodUpdate,
  warningsOnCreate: podWarnings,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: true,
  fields: {
    'spec.nodeName': fieldAt('spec.nodeName'),
    'spec.restartPolicy': fieldAt('spec.restartPolicy'),
    'spec.schedulerName': fieldAt('spec.schedulerName'),
    'spec.serviceAccountName': fieldAt('spec.serviceAccountName'),
    'spec.hostNetwork': bool(fieldAt('spec.hostNetwork')),
    'status.phase': fieldAt('status.phase'),
    'status.podIP': fieldAt('status.podIP'),
    'status.nominatedNodeName': fieldAt('status.nominatedNodeName'),
  },
  // status.podIPs is accepted but, as upstream, not among the selectable fields (it matches as "").
  fieldLabels: [
    'metadata.name',
    'metadata.namespace',
    'spec.nodeName',
    'spec.restartPolicy',
    'spec.schedulerName',
    'spec.serviceAccountName',
    'spec.hostNetwork',
    'status.phase',
    'status.podIP',
    'status.podIPs',
    'status.nominatedNodeName',
  ],
  fieldLabelAliases: { 'spec.host': 'spec.nodeName' },
  subresources: {
    status: statusSubresource(),
    // POST pods/{name}/binding and /eviction are served by ./pod-subresources.ts (the entry's createSubresource hook); listed here for discovery
    // (binding's write is the pod's own guarded update, which keeps what the binding function set).
    binding: { prepareForUpdate: () => {}, resetFields: [] },
    eviction: {
      prepareForUpdate: () => {
        throw new Error('pods/eviction takes no updates');
      },
    },
    ephemeralcontainers: {
      prepareForUpdate(obj, old) {
        const containers = (obj.spec as { ephemeralContainers?: unknown } | undefined)?.ephemeralContainers;
        const rv = obj.metadata.resourceVersion;
        for (const key of Object.keys(obj)) delete obj[key];
        Object.assign(obj, deepCopy(old));
        obj.metadata.resourceVersion = rv;
        const spec = (obj.spec ??= {}) as { ephemeralContainers?: unknown };
        if (containers === undefined || containers === null) delete spec.ephemeralContainers;
        else spec.ephemeralContainers = containers;
      },
      validateUpdate: (obj, old) => validateEphemeralContainersUpdate(obj as Pod, old as Pod),
      // kube-apiserver 1.32 records no managedFields entry for these writes (its reset-fields filter
      // for the subresource names spec.ephemeralContainers itself): the writer owns nothing.
      resetFields: [['metadata'], ['status'], ...['activeDeadlineSeconds', 'affinity', 'containers', 'ephemeralContainers', 'initContainers', 'nodeName', 'tolerations', 'volumes'].map((f) => ['spec', f])],
    },
  },
  gracePeriodSeconds(obj, requested) {
    const pod = obj as Pod;
    let period = requested ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
    if ((pod.spec?.nodeName ?? '') === '') period = 0;
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') period = 0;
    return Math.max(0, period);
  },
};
