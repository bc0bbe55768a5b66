// The local APIServices kube-apiserver keeps for what it serves itself
// (kube-aggregator's autoregister controller, fed by kube-apiserver's
// built-in group/versions and by the CRD registration controller):
//
// - every built-in group/version with a known priority gets `version.group`
//   (`v1.` for the core group), labelled automanaged=onstart;
// - every served custom resource group/version gets one labelled
//   automanaged=true, with priority 1000/100;
// - an automanaged APIService whose group/version is no longer served (a CRD
//   deleted) is deleted; one a user changed is put back.
//
// The aggregator's own group is not listed (upstream does not list it either).
// Their `Available` condition is set by the availability controller.

import { deepCopy } from '../../machinery/deep-copy.js';
import { StatusError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { UserInfo } from '../../machinery/user.js';
import type { RESTStore, ResourceType } from '../../registry/rest.js';
import { definitionFor } from '../../api/schema/index.js';
import { APIREGISTRATION_GROUP, type APIServiceSpec } from '../../api/apiregistration/v1/types.js';
import { AUTOMANAGED_LABEL, CUSTOM_RESOURCE_PRIORITY, apiServiceName, builtInPriority } from '../../api/apiregistration/v1/priorities.js';

export const AGGREGATOR_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters'] };
const FIELD_MANAGER = 'kube-apiserver';

interface Wanted {
  name: string;
  label: 'onstart' | 'true';
  spec: APIServiceSpec;
}

/** The local APIServices the served types call for, by name. */
export function wantedLocalAPIServices(types: readonly ResourceType[]): Map<string, Wanted> {
  const wanted = new Map<string, Wanted>();
  for (const t of types) {
    if (t.group === APIREGISTRATION_GROUP) continue;
    const name = apiServiceName(t.group, t.version);
    if (wanted.has(name)) continue;
    const builtIn = definitionFor(t.group, t.version, t.kind) !== undefined;
    const priority = builtIn ? builtInPriority(t.group, t.version) : CUSTOM_RESOURCE_PRIORITY;
    if (priority === undefined) continue;
    const spec: APIServiceSpec = {};
    if (t.group !== '') spec.group = t.group;
    spec.version = t.version;
    spec.groupPriorityMinimum = priority.group;
    spec.versionPriority = priority.version;
    wanted.set(name, { name, label: builtIn ? 'onstart' : 'true', spec });
  }
  return wanted;
}

function sameSpec(a: APIServiceSpec | undefined, b: APIServiceSpec): boolean {
  const norm = (s: APIServiceSpec | undefined): string =>
    JSON.stringify([s?.group ?? '', s?.version ?? '', s?.groupPriorityMinimum ?? 0, s?.versionPriority ?? 0, s?.service ?? null, s?.caBundle ?? '', s?.insecureSkipTLSVerify ?? false]);
  return norm(a) === norm(b);
}

/** Brings the stored APIServices in line with the served types; errors of one object do not stop the others. */
export async function syncLocalAPIServices(store: RESTStore, types: readonly ResourceType[], onError: (err: unknown, name: string) => void): Promise<void> {
  const wanted = wantedLocalAPIServices(types);
  const existing = new Map<string, KubeObject>();
  for (const item of (await store.list('', {})).items) existing.set(item.metadata.name!, item);
  const writes: Promise<void>[] = [];
  const write = (name: string, op: () => Promise<unknown>): void => {
    writes.push(
      op().then(
        () => undefined,
        (err: unknown) => {
          // Someone else wrote first (another server, a racing pass): the next pass looks again.
          if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return;
          onError(err, name);
        },
      ),
    );
  };
  for (const w of wanted.values()) {
    const current = existing.get(w.name);
    if (current === undefined) {
      const obj = { apiVersion: `${APIREGISTRATION_GROUP}/v1`, kind: 'APIService', metadata: { name: w.name, labels: { [AUTOMANAGED_LABEL]: w.label } }, spec: deepCopy(w.spec) } as unknown as KubeObject;
      write(w.name, () => store.create('', obj, { fieldManager: FIELD_MANAGER, user: AGGREGATOR_USER }));
      continue;
    }
    const label = current.metadata.labels?.[AUTOMANAGED_LABEL];
    if (label === undefined || label === '') continue; // a user's own APIService for this group/version wins
    if (sameSpec(current['spec'] as APIServiceSpec | undefined, w.spec) && label === w.label) continue;
    const revised = deepCopy(current);
    revised['spec'] = deepCopy(w.spec);
    revised.metadata.labels = { ...revised.metadata.labels, [AUTOMANAGED_LABEL]: w.label };
    write(w.name, () => store.update('', w.name, revised, { fieldManager: FIELD_MANAGER, user: AGGREGATOR_USER }));
  }
  for (const [name, current] of existing) {
    const label = current.metadata.labels?.[AUTOMANAGED_LABEL];
    if (wanted.has(name) || (label !== 'onstart' && label !== 'true')) continue;
    write(name, () => store.delete('', name, { preconditions: { uid: current.metadata.uid! } }));
  }
  await Promise.all(writes);
}
