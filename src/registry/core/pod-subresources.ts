// The POST subresources of pods (upstream pkg/registry/core/pod/storage):
//
//   pods/binding   Binding: sets spec.nodeName (and the binding's annotations)
//                  and the PodScheduled condition on an unassigned pod; 201
//                  with a Success Status. What kube-scheduler calls.
//   pods/eviction  Eviction: deletes the pod unless the one PodDisruptionBudget
//                  that selects it allows no disruption (429); an allowed
//                  eviction takes one from the budget's status.disruptionsAllowed
//                  and records the pod in status.disruptedPods (a guarded
//                  write, so concurrent evictions never overdraw it) before the
//                  pod is deleted. Pending, terminal and deleting pods are
//                  deleted without asking the budget, as upstream.
//
// Both work through the stores (the pod's own guarded update, the budget's
// /status), so watches, resourceVersions and admission stay those of ordinary writes.

import { StatusError, badRequest, conflict, forbidden, tooManyRequests, unknownError } from '../../machinery/errors.js';
import { aggregateFieldErrors, fieldErrors, type FieldError } from '../../machinery/field-errors.js';
import { labelSelectorFromMeta } from '../../machinery/labels.js';
import type { KubeObject } from '../../machinery/meta.js';
import { formatTimestamp, type Clock } from '../../machinery/names.js';
import type { Status } from '../../machinery/errors.js';
import type { PodDisruptionBudget, Eviction } from '../../api/policy/v1/types.js';
import type { DeleteOptions, RESTStore, WriteOptions } from '../rest.js';

const SUCCESS = (): Status => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
/** Upstream's MaxDisruptedPodSize: a budget remembering this many evictions refuses more until the controller catches up. */
const MAX_DISRUPTED_PODS = 2000;
const BUDGET_VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

interface PodShape extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type?: string; status?: string; lastProbeTime?: string | null; lastTransitionTime?: string }[] };
}

export interface PodSubresourceDeps {
  pods: RESTStore;
  budgets: () => RESTStore | undefined;
  clock: Clock;
}

export type CreateSubresource = (namespace: string, name: string, subresource: string, body: KubeObject, options: WriteOptions) => Promise<Status>;

export function podSubresources(deps: PodSubresourceDeps): CreateSubresource {
  return async (namespace, name, subresource, body, options) => {
    if (subresource === 'binding') return bind(deps, namespace, name, body, options);
    if (subresource === 'eviction') return evict(deps, namespace, name, body as Eviction, options);
    throw unknownError(`no POST handler for pods/${subresource}`);
  };
}

function validateBinding(body: KubeObject): FieldError[] {
  const target = (body['target'] ?? {}) as { kind?: string; name?: string };
  const errs: FieldError[] = [];
  if ((target.kind ?? '') !== '' && target.kind !== 'Node') errs.push(fieldErrors.notSupported('target.kind', target.kind, ['Node', '<empty>']));
  if ((target.name ?? '') === '') errs.push(fieldErrors.required('target.name'));
  return errs;
}

async function bind(deps: PodSubresourceDeps, namespace: string, name: string, body: KubeObject, options: WriteOptions): Promise<Status> {
  if ((body.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Binding object');
  const errs = validateBinding(body);
  // Upstream returns the aggregate itself, not an Invalid status: a 500 with the errors' text.
  if (errs.length > 0) throw unknownError(aggregateFieldErrors(errs));
  const nodeName = ((body['target'] ?? {}) as { name: string }).name;
  const annotations = body.metadata?.annotations ?? {};
  const now = formatTimestamp(deps.clock());
  await deps.pods.patch(
    namespace,
    name,
    (current) => {
      const pod = current as PodShape;
      if (pod.metadata.deletionTimestamp !== undefined) {
        throw conflict({ group: '', resource: 'pods/binding' }, name, `pod ${name} is being deleted, cannot be assigned to a host`);
      }
      if ((pod.spec?.nodeName ?? '') !== '') {
        throw conflict({ group: '', resource: 'pods/binding' }, name, `pod ${name} is already assigned to node ${JSON.stringify(pod.spec!.nodeName)}`);
      }
      pod.spec = { ...(pod.spec ?? {}), nodeName };
      if (Object.keys(annotations).length > 0) pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations };
      const status = (pod.status ??= {});
      const conditions = (status.conditions ??= []);
      const existing = conditions.find((c) => c.type === 'PodScheduled');
      if (existing === undefined) conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now });
      else if (existing.status !== 'True') {
        existing.status = 'True';
        existing.lastTransitionTime = now;
      }
      return pod;
    },
    { ...options, subresource: 'binding', trackAs: () => 'none' } as WriteOptions & { subresource: string },
  );
  return SUCCESS();
}

function isReady(pod: PodShape): boolean {
  return (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function deleteOptionsOf(eviction: Eviction, dryRun: boolean): DeleteOptions {
  const out: DeleteOptions = {};
  const d = eviction.deleteOptions;
  if (d?.gracePeriodSeconds !== undefined && d.gracePeriodSeconds !== null) out.gracePeriodSeconds = d.gracePeriodSeconds;
  if (d?.preconditions !== undefined && d.preconditions !== null) out.preconditions = { ...d.preconditions };
  if (d?.propagationPolicy !== undefined) out.propagationPolicy = d.propagationPolicy as NonNullable<DeleteOptions['propagationPolicy']>;
  if (dryRun || (d?.dryRun ?? []).includes('All')) out.dryRun = true;
  return out;
}

async function evict(deps: PodSubresourceDeps, namespace: string, name: string, eviction: Eviction, options: WriteOptions): Promise<Status> {
  if ((eviction.metadata?.name ?? '') !== name) throw badRequest('name in URL does not match name in Eviction object');
  const dryRun = options.dryRun === true;
  const deleteOptions = deleteOptionsOf(eviction, dryRun);
  // The pod's delete is admitted as the evicting request's (webhooks see its user, warnings reach its client).
  if (options.request !== undefined) deleteOptions.request = options.request;
  const pod = (await deps.pods.get(namespace, name, {})) as PodShape;
  const phase = pod.status?.phase ?? '';
  // Pods that cannot count toward a budget's health go without asking it.
  if (pod.metadata.deletionTimestamp !== undefined || phase === 'Pending' || phase === 'Succeeded' || phase === 'Failed' || phase === '') {
    await deps.pods.delete(namespace, name, deleteOptions);
    return SUCCESS();
  }
  const budgetStore = deps.budgets();
  const budgets: PodDisruptionBudget[] = [];
  if (budgetStore !== undefined) {
    const list = await budgetStore.list(namespace, {});
    for (const pdb of list.items as PodDisruptionBudget[]) {
      const selector = pdb.spec?.selector;
      if (selector === undefined || selector === null) continue;
      // An empty selector selects every pod in policy/v1.
      if (labelSelectorFromMeta(selector).matches(pod.metadata.labels ?? {})) budgets.push(pdb);
    }
  }
  if (budgets.length > 1) {
    throw new StatusError(500, 'InternalError', 'Internal error occurred: This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.', {
      causes: [{ message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' }],
    });
  }
  if (budgets.length === 1) {
    const pdbName = budgets[0]!.metadata.name!;
    const ready = isReady(pod);
    await budgetStore!.patch(
      namespace,
      pdbName,
      (current) => {
        const pdb = current as PodDisruptionBudget;
        const status = pdb.status ?? {};
        if (!ready) {
          const policy = pdb.spec?.unhealthyPodEvictionPolicy ?? 'IfHealthyBudget';
          const healthyEnough = (status.currentHealthy ?? 0) >= (status.desiredHealthy ?? 0) && (status.desiredHealthy ?? 0) > 0;
          // An unready pod evicted under a healthy budget (or AlwaysAllow) leaves the budget as it was.
          if (policy === 'AlwaysAllow' || healthyEnough) return pdb;
        }
        checkBudget(pdb);
        const now = formatTimestamp(deps.clock());
        status.disruptionsAllowed = (status.disruptionsAllowed ?? 0) - 1;
        status.disruptedPods = { ...(status.disruptedPods ?? {}), [name]: now };
        if (status.disruptionsAllowed === 0) setDisruptionAllowedCondition(status, now);
        pdb.status = status;
        return pdb;
      },
      // Upstream writes the budget with its loopback client's UpdateStatus: a status entry of manager "kube-apiserver".
      { dryRun, subresource: 'status', fieldManager: 'kube-apiserver' } as WriteOptions & { subresource: string },
    );
    // The pod read above is the one the budget was charged for: delete that one only.
    deleteOptions.preconditions = { ...(deleteOptions.preconditions ?? {}), resourceVersion: deleteOptions.preconditions?.resourceVersion ?? pod.metadata.resourceVersion! };
  }
  await deps.pods.delete(namespace, name, deleteOptions);
  return SUCCESS();
}

/** Upstream's checkAndDecrement refusals. */
function checkBudget(pdb: PodDisruptionBudget): void {
  const status = pdb.status ?? {};
  const name = pdb.metadata.name ?? '';
  if ((status.observedGeneration ?? 0) < (pdb.metadata.generation ?? 0)) {
    const err = tooManyRequests(BUDGET_VIOLATION, 10);
    err.status.details = { ...err.status.details, causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} is still being processed by the server.` }] };
    throw err;
  }
  if ((status.disruptionsAllowed ?? 0) < 0) throw forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'pdb disruptions allowed is negative');
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS) {
    throw forbidden({ group: 'policy', resource: 'poddisruptionbudget' }, name, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
  }
  if ((status.disruptionsAllowed ?? 0) === 0) {
    const err = tooManyRequests(BUDGET_VIOLATION, 0);
    // No retry hint here: upstream's zero leaves the field out.
    err.status.details = {
      causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently` }],
    };
    throw err;
  }
}

/**
 * Upstream's UpdateDisruptionAllowedCondition after the last allowed
 * disruption is taken: DisruptionAllowed False (InsufficientPods), its
 * transition time moved only when the status changes.
 */
function setDisruptionAllowedCondition(status: NonNullable<PodDisruptionBudget['status']>, now: string): void {
  const wanted = (status.disruptionsAllowed ?? 0) > 0 ? { status: 'True', reason: 'SufficientPods' } : { status: 'False', reason: 'InsufficientPods' };
  const conditions = [...((status.conditions ?? []) as Record<string, unknown>[])];
  const i = conditions.findIndex((c) => c['type'] === 'DisruptionAllowed');
  const previous = i >= 0 ? conditions[i]! : undefined;
  const condition: Record<string, unknown> = {
    type: 'DisruptionAllowed',
    status: wanted.status,
    observedGeneration: status.observedGeneration ?? 0,
    lastTransitionTime: previous !== undefined && previous['status'] === wanted.status ? previous['lastTransitionTime'] : now,
    reason: wanted.reason,
    message: '',
  };
  if (i >= 0) conditions[i] = condition;
  else conditions.push(condition);
  status.conditions = conditions as NonNullable<PodDisruptionBudget['status']>['conditions'];
}
