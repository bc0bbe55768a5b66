// `--controllers` of `apiary serve`: which of apiary's in-process controllers
// run, so that upstream's kube-controller-manager can take over where the two
// overlap. The value is `true` (all, the default), `false` (none), or a list
// in kube-controller-manager's own syntax: `*` for the default set, `name` to
// turn one on, `-name` to turn it off, names as kube-controller-manager 1.32
// spells them (or their older aliases), e.g.
//   --controllers='*,-namespace-controller,-garbage-collector-controller'
// What upstream runs inside kube-apiserver itself (the system namespaces,
// CRD cleanup, cluster-info, the kubernetes Service) is not selectable here:
// it runs unless --controllers=false.

import type { ControllerManagerOptions } from '../controllers/manager.js';

type Selectable = 'namespace' | 'resourceQuota' | 'garbageCollector' | 'pvcProtection' | 'serviceAccounts' | 'rootCaPublisher';

/** kube-controller-manager's controller names (and aliases) for the controllers apiary also runs. */
const NAMES: ReadonlyArray<{ name: string; aliases: string[]; key: Selectable }> = [
  { name: 'namespace-controller', aliases: ['namespace'], key: 'namespace' },
  { name: 'resourcequota-controller', aliases: ['resourcequota'], key: 'resourceQuota' },
  { name: 'garbage-collector-controller', aliases: ['garbagecollector'], key: 'garbageCollector' },
  { name: 'persistentvolumeclaim-protection-controller', aliases: ['pvc-protection'], key: 'pvcProtection' },
  { name: 'serviceaccount-controller', aliases: ['serviceaccount'], key: 'serviceAccounts' },
  { name: 'root-ca-certificate-publisher-controller', aliases: ['root-ca-cert-publisher'], key: 'rootCaPublisher' },
];

export const SELECTABLE_CONTROLLERS: readonly string[] = NAMES.map((n) => n.name);

export type ControllerSelection = { run: false } | { run: true; controllers: Partial<Record<Selectable, boolean>> };

/** Parses --controllers; throws an Error naming what is wrong. */
export function parseControllersFlag(value: string): ControllerSelection {
  if (value === 'true') return { run: true, controllers: {} };
  if (value === 'false') return { run: false };
  const items = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (items.length === 0) throw new Error('invalid --controllers "": want true, false or a list of controllers');
  const star = items.includes('*');
  const chosen: Partial<Record<Selectable, boolean>> = {};
  for (const n of NAMES) chosen[n.key] = star;
  for (const item of items) {
    if (item === '*') continue;
    const off = item.startsWith('-');
    const name = off ? item.slice(1) : item;
    const known = NAMES.find((n) => n.name === name || n.aliases.includes(name));
    if (known === undefined) {
      throw new Error(`invalid --controllers: ${JSON.stringify(name)} is not in the list of known controllers (${SELECTABLE_CONTROLLERS.join(', ')})`);
    }
    chosen[known.key] = !off;
  }
  return { run: true, controllers: chosen };
}

/** Applies a selection to the controller manager's switches (namespaceDefaults covers two of them). */
export function applyControllerSelection(
  controllers: NonNullable<ControllerManagerOptions['controllers']>,
  chosen: Partial<Record<Selectable, boolean>>,
): NonNullable<ControllerManagerOptions['controllers']> {
  const out = { ...controllers };
  for (const key of ['namespace', 'resourceQuota', 'garbageCollector', 'pvcProtection', 'serviceAccounts', 'rootCaPublisher'] as const) {
    if (chosen[key] === false) out[key] = false;
  }
  if (out.serviceAccounts === false && out.rootCaPublisher === false) out.namespaceDefaults = false;
  return out;
}
