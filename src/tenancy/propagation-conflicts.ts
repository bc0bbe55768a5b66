// Sources that would overwrite local objects (HNC's object validator,
// in-process): creating or updating an object of a propagated kind in a
// namespace is refused, 409 Conflict in HNC's words, when a descendant to
// which it would be copied holds an object of the same name that is not a
// propagated copy. So a local object is never shadowed by a new ancestor
// object. (HNC evaluates the exception annotations against the source's own
// namespace; this evaluates them per descendant, as the copies are made.)
// Conflicts that arise otherwise (a kind switched to Propagate over existing
// objects) are left to the propagation controller, which keeps the local
// object and reports it. Runs in the mutating phase, so nothing is charged.
// reparentConflicts() gives the hierarchy rules (hierarchy-config.ts) HNC's
// other check: a move that would make new ancestors' objects overwrite local
// objects of the moved subtree.

import { conflict } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../registry/admission.js';
import { ENFORCED_TYPES, LABEL_INHERITED_FROM, type HNCConfiguration, type SynchronizationMode } from '../api/hnc/v1alpha2/types.js';
import { sourcePropagatesTo } from '../api/hnc/v1alpha2/propagation.js';
import type { Hierarchy } from './hierarchy.js';

export const PROPAGATION_CONFLICTS_PLUGIN = 'HierarchicalNamespacesPropagationConflicts';

export interface PropagationConflictsView {
  hierarchy(): Hierarchy;
  /** The HNCConfiguration `config` as the watch cache holds it. */
  config(): Readonly<KubeObject> | undefined;
  /** A namespace as the watch cache holds it. */
  namespace(name: string): Readonly<KubeObject> | undefined;
  /** An object as the watch cache of its resource holds it. */
  object(group: string, resource: string, namespace: string, name: string): Readonly<KubeObject> | undefined;
  /** A namespace's objects of a resource, from the watch cache. */
  objects(group: string, resource: string, namespace: string): readonly Readonly<KubeObject>[];
  /** The served version and kind of a resource (undefined when not served). */
  kindOf(group: string, resource: string): { version: string; kind: string } | undefined;
}

export class PropagationConflicts implements AdmissionPlugin {
  readonly name = PROPAGATION_CONFLICTS_PLUGIN;

  constructor(private readonly view: PropagationConflictsView) {}

  /** The kind's mode: Roles and RoleBindings always propagate; other kinds as `config` names them. */
  private modeOf(group: string, resource: string): SynchronizationMode {
    if (ENFORCED_TYPES.some((t) => t.group === group && t.resource === resource)) return 'Propagate';
    const spec = (this.view.config() as Readonly<HNCConfiguration> | undefined)?.spec?.resources?.find((r) => (r.group ?? '') === group && r.resource === resource);
    return spec === undefined ? 'Ignore' : (spec.mode ?? 'Propagate');
  }

  /** The kinds that propagate now: Roles and RoleBindings, and those `config` sets to Propagate or AllowPropagate. */
  private propagatingKinds(): { group: string; resource: string; mode: SynchronizationMode }[] {
    const kinds: { group: string; resource: string; mode: SynchronizationMode }[] = ENFORCED_TYPES.map((t) => ({ group: t.group, resource: t.resource, mode: 'Propagate' }));
    for (const r of (this.view.config() as Readonly<HNCConfiguration> | undefined)?.spec?.resources ?? []) {
      const group = r.group ?? '';
      const mode = r.mode ?? 'Propagate';
      if ((mode === 'Propagate' || mode === 'AllowPropagate') && !kinds.some((k) => k.group === group && k.resource === r.resource)) kinds.push({ group, resource: r.resource, mode });
    }
    return kinds;
  }

  /**
   * The local objects in `namespace` and its descendants that an object of
   * `newParent` or one of its ancestors would overwrite were `namespace` moved
   * under `newParent`, in HNC's words (the hierarchy validator's list).
   */
  reparentConflicts(namespace: string, newParent: string): string[] {
    const hierarchy = this.view.hierarchy();
    const newAncestors = [newParent, ...hierarchy.ancestorsOf(newParent)];
    // As HNC lists them: the descendants, then the namespace itself.
    const moved = [...hierarchy.descendantsOf(namespace), namespace];
    const out: string[] = [];
    for (const kind of this.propagatingKinds()) {
      const served = this.view.kindOf(kind.group, kind.resource);
      if (served === undefined) continue;
      const sources = new Map<string, Readonly<KubeObject>[]>();
      for (const ancestor of newAncestors) {
        for (const o of this.view.objects(kind.group, kind.resource, ancestor)) {
          if (o.metadata.labels?.[LABEL_INHERITED_FROM] !== undefined) continue;
          const list = sources.get(o.metadata.name!);
          if (list === undefined) sources.set(o.metadata.name!, [o]);
          else list.push(o);
        }
      }
      if (sources.size === 0) continue;
      for (const destination of moved) {
        // The destination's tree after the move: its chain up to `namespace`, then the new ancestors.
        const chain = [destination, ...hierarchy.ancestorsOf(destination)];
        const tree = new Set([...chain.slice(0, chain.indexOf(namespace) + 1), ...newAncestors]);
        const labels = this.view.namespace(destination)?.metadata.labels ?? {};
        for (const local of this.view.objects(kind.group, kind.resource, destination)) {
          if (local.metadata.labels?.[LABEL_INHERITED_FROM] !== undefined) continue;
          const name = local.metadata.name!;
          if (!(sources.get(name) ?? []).some((source) => sourcePropagatesTo(source, kind, labels, tree))) continue;
          out.push(`Namespace ${JSON.stringify(destination)}: ${name} (${kind.group}/${served.version}, Kind=${served.kind})`);
        }
      }
    }
    return out;
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || a.subresource !== '' || a.namespace === '' || a.object === undefined) return;
    // Copies (old or new) are the protection plugin's business.
    if (a.object.metadata.labels?.[LABEL_INHERITED_FROM] !== undefined || a.oldObject?.metadata.labels?.[LABEL_INHERITED_FROM] !== undefined) return;
    const { group, resource } = a.resource;
    const mode = this.modeOf(group, resource);
    if (mode !== 'Propagate' && mode !== 'AllowPropagate') return;
    const hierarchy = this.view.hierarchy();
    const descendants = hierarchy.descendantsOf(a.namespace);
    if (descendants.length === 0) return;
    const name = a.object.metadata.name || a.name;
    const conflicting: string[] = [];
    for (const descendant of descendants) {
      const local = this.view.object(group, resource, descendant, name);
      if (local === undefined || local.metadata.labels?.[LABEL_INHERITED_FROM] !== undefined) continue;
      const tree = new Set([descendant, ...hierarchy.ancestorsOf(descendant)]);
      const labels = this.view.namespace(descendant)?.metadata.labels ?? {};
      if (sourcePropagatesTo(a.object, { group, resource, mode }, labels, tree)) conflicting.push(descendant);
    }
    if (conflicting.length === 0) return;
    throw conflict(
      { group, resource },
      name,
      `would overwrite objects in the following descendant namespace(s): ${conflicting.join(',')}. To fix this, choose a different name for the object, or remove the conflicting objects from the listed namespaces`,
    );
  }
}
