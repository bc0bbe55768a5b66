// Sources that would overwrite local objects (HNC's object validator,
// in-process): creating or updating an object of a propagated kind in a
// namespace is refused, 409 Conflict in HNC's words, when a descendant to
// which it would be copied holds an object of the same name that is not a
// propagated copy. So a local object is never shadowed by a new ancestor
// object. (HNC evaluates the exception annotations against the source's own
// namespace; this evaluates them per descendant, as the copies are made.)
// An HNCConfiguration that switches a kind to Propagate or AllowPropagate over
// such objects is refused too (409, HNC's words, configConflicts()). What
// still slips through (a namespace label that a `select` exception now
// matches) is left to the propagation controller, which keeps the local
// object and reports it. Runs in the mutating phase, so nothing is charged.
// reparentConflicts() gives the hierarchy rules (hierarchy-config.ts) HNC's
// other check: a move that would make new ancestors' objects overwrite local
// objects of the moved subtree.

import { conflict } from '../machinery/errors.js';
import type { KubeObject } from '../machinery/meta.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../registry/admission.js';
import { ENFORCED_TYPES, HNC_GROUP, LABEL_INHERITED_FROM, type HNCConfiguration, type SynchronizationMode } from '../api/hnc/v1alpha2/types.js';
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
  /** Every namespace's name (the watch cache's). */
  namespaceNames(): Iterable<string>;
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

  /**
   * HNC's HNCConfiguration check: the kinds `next` newly sets to Propagate or
   * AllowPropagate (from another mode, or from not named) must not make an
   * ancestor's object overwrite a local one; the lines in HNC's words, by kind.
   */
  configConflicts(next: Readonly<HNCConfiguration>, previous: Readonly<HNCConfiguration> | undefined): { kind: string; lines: string[] }[] {
    const propagating = (mode: SynchronizationMode | undefined): boolean => (mode ?? 'Propagate') === 'Propagate' || mode === 'AllowPropagate';
    const out: { kind: string; lines: string[] }[] = [];
    const hierarchy = this.view.hierarchy();
    for (const r of next.spec?.resources ?? []) {
      const group = r.group ?? '';
      if (!propagating(r.mode) || ENFORCED_TYPES.some((t) => t.group === group && t.resource === r.resource)) continue;
      const before = previous?.spec?.resources?.find((p) => (p.group ?? '') === group && p.resource === r.resource);
      if (before !== undefined && propagating(before.mode)) continue;
      const served = this.view.kindOf(group, r.resource);
      if (served === undefined) continue;
      const kind = { group, resource: r.resource, mode: r.mode ?? 'Propagate' };
      const lines: string[] = [];
      // Top down from each root, as HNC walks its forest: each namespace's local objects against its ancestors' of the same name.
      const visit = (ns: string, above: ReadonlyMap<string, readonly Readonly<KubeObject>[]>): void => {
        const here = new Map(above);
        const labels = this.view.namespace(ns)?.metadata.labels ?? {};
        const tree = new Set([ns, ...hierarchy.ancestorsOf(ns)]);
        const locals = this.view.objects(group, r.resource, ns).filter((o) => o.metadata.labels?.[LABEL_INHERITED_FROM] === undefined);
        for (const local of [...locals].sort((x, y) => x.metadata.name!.localeCompare(y.metadata.name!))) {
          const name = local.metadata.name!;
          for (const source of above.get(name) ?? []) {
            if (sourcePropagatesTo(source, kind, labels, tree)) {
              lines.push(`  Object ${JSON.stringify(name)} in namespace ${JSON.stringify(source.metadata.namespace)} would overwrite the one in ${JSON.stringify(ns)}`);
            }
          }
          here.set(name, [...(here.get(name) ?? []), local]);
        }
        for (const child of hierarchy.childrenOf(ns)) visit(child, here);
      };
      const roots = new Set<string>();
      for (const ns of this.view.namespaceNames()) {
        const ancestors = hierarchy.ancestorsOf(ns);
        roots.add(ancestors.length === 0 ? ns : ancestors[ancestors.length - 1]!);
      }
      for (const root of [...roots].sort()) if (hierarchy.parentOf(root) === undefined) visit(root, new Map());
      if (lines.length > 0) out.push({ kind: `${group}/${served.version}, Kind=${served.kind}`, lines });
    }
    return out;
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (a.resource.group === HNC_GROUP && a.resource.resource === 'hncconfigurations') return this.admitConfig(a);
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

  private admitConfig(a: AdmissionAttributes): void {
    if ((a.operation !== 'CREATE' && a.operation !== 'UPDATE') || a.subresource !== '' || a.object === undefined || a.request === undefined) return;
    const [first] = this.configConflicts(a.object as HNCConfiguration, a.oldObject as HNCConfiguration | undefined);
    if (first === undefined) return;
    throw conflict(
      { group: HNC_GROUP, resource: 'hncconfigurations' },
      a.name,
      `Cannot update configuration because setting type ${JSON.stringify(first.kind)} to 'Propagate' mode or 'AllowPropagate' mode would overwrite user-created object(s):\n${first.lines.join('\n')}\nTo fix this, please rename or remove the conflicting objects first.`,
    );
  }
}
