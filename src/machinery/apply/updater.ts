/**
 * Ownership bookkeeping of one write (structured-merge-diff's merge.Updater),
 * for objects of one API version.
 *
 * - `update`: a non-apply write (create, update, patch). The writer takes every
 *   field it added or changed; others lose what it changed or removed. Never
 *   conflicts.
 * - `apply`: merges an applied configuration into the live object. The applier
 *   owns exactly the configuration's fields; fields it applied last time and
 *   no longer applies are removed from the object unless another manager owns
 *   them; changing a field another manager owns is a conflict unless forced
 *   (then the other manager loses it).
 *
 * Managers are keyed by an identity string (see field-manager.ts); the maps
 * passed in are not changed: results are new maps sharing unchanged sets.
 */
import { FieldSet } from './fieldset.js';
import type { TypeNode } from './schema.js';
import { compare, deepEqual, merge, removeItems, toFieldSet, withNamedFieldsAsMembers, type Comparison } from './typed.js';

export interface ManagerSet {
  set: FieldSet;
  /** The set came from an apply (operation Apply). */
  applied: boolean;
}

export type Managers = Map<string, ManagerSet>;

export interface Conflict {
  manager: string;
  path: string[];
}

/** Thrown by apply when the configuration changes fields other managers own. */
export class ConflictsError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
  }
}

export class Updater {
  constructor(
    private readonly root: TypeNode,
    /** Paths (with their subtrees) nobody owns in this (sub)resource: upstream's reset fields. */
    private readonly ignored: FieldSet,
    /** Paths (exactly these, not their subtrees) never recorded for a writer: upstream's stripped metadata. */
    private readonly stripped: FieldSet,
    /** Children emptied by the prune stay as null (unstructured objects; see removeItems). */
    private readonly emptiedAsNull = false,
  ) {}

  /**
   * A non-apply write from `live` to `next` by `manager`. `changed` tells
   * whether the write took any field (upstream then updates the entry's time).
   */
  update(live: unknown, next: unknown, managers: Managers, manager: string): { managers: Managers; changed: boolean } {
    const { managers: out, comparison } = this.reassign(live, next, managers, manager, true);
    const taken = comparison.modified.union(comparison.added).difference(this.stripped);
    const previous = out.get(manager)?.set;
    if (taken.isEmpty()) {
      // The write's own changes are nothing; what it removed is still gone from its entry.
      if (previous !== undefined) {
        const set = previous.difference(comparison.removed);
        if (set.isEmpty()) out.delete(manager);
        else out.set(manager, { set, applied: false });
      }
      return { managers: out, changed: false };
    }
    const set = previous === undefined ? taken : previous.difference(comparison.removed).union(taken);
    out.set(manager, { set, applied: false });
    return { managers: out, changed: true };
  }

  /**
   * Applies `config` to `live` (null when creating). Returns the new object
   * (undefined when nothing changed) and the managers.
   */
  apply(live: unknown, config: unknown, managers: Managers, manager: string, force: boolean): { object: unknown; managers: Managers } {
    const working = new Map(managers);
    // The configuration's own checks (duplicate keys, with their path) come before the merge, as upstream's conversion to a typed value.
    const configSet = toFieldSet(config, this.root, false, false);
    const merged = merge(live, config, this.root);
    const lastSet = working.get(manager)?.set;
    const set = this.ignored.isEmpty() ? configSet : configSet.withoutPrefixes(this.ignored);
    working.set(manager, { set, applied: true });
    const pruned = this.prune(merged, working, lastSet, set);
    const { managers: out } = this.reassign(live, pruned, working, manager, force);
    const own = set.difference(this.stripped);
    if (own.isEmpty()) out.delete(manager);
    else out.set(manager, { set: own, applied: true });
    return { object: deepEqual(live, pruned) ? undefined : pruned, managers: out };
  }

  /**
   * Removes what the applier owned before and does not apply now, unless some
   * manager (the applier's new configuration included) owns it; fields nobody
   * owned before are left alone (upstream's prune, addBackOwnedItems and
   * addBackDanglingItems for one version).
   */
  private prune(merged: unknown, managers: Managers, lastSet: FieldSet | undefined, applied: FieldSet): unknown {
    if (lastSet === undefined || lastSet.isEmpty()) return merged;
    // The usual re-apply: every path applied last time is applied again, so nothing can go.
    if (lastSet.difference(applied).isEmpty()) return merged;
    const t = this.root;
    const last = withNamedFieldsAsMembers(lastSet, t);
    const firstPass = removeItems(merged, last, t, this.emptiedAsNull);
    let managed = FieldSet.empty();
    for (const m of managers.values()) managed = managed.union(m.set);
    managed = withNamedFieldsAsMembers(managed, t);
    const mergedSet = withNamedFieldsAsMembers(toFieldSet(merged, t, true), t);
    const firstSet = withNamedFieldsAsMembers(toFieldSet(firstPass, t, true), t);
    const ownedBack = removeItems(merged, mergedSet.difference(firstSet.union(managed)), t, this.emptiedAsNull);
    const ownedSet = withNamedFieldsAsMembers(toFieldSet(ownedBack, t, true), t);
    return removeItems(merged, mergedSet.difference(ownedSet).intersection(last), t, this.emptiedAsNull);
  }

  /** Other managers lose what this write changed (conflicts unless forced) and what it removed. */
  private reassign(live: unknown, next: unknown, managers: Managers, writer: string, force: boolean): { managers: Managers; comparison: Comparison } {
    const raw = compare(live, next, this.root);
    const comparison: Comparison = this.ignored.isEmpty()
      ? raw
      : {
          added: raw.added.withoutPrefixes(this.ignored),
          modified: raw.modified.withoutPrefixes(this.ignored),
          removed: raw.removed.withoutPrefixes(this.ignored),
        };
    const changed = comparison.modified.union(comparison.added);
    const conflicts = new Map<string, FieldSet>();
    for (const [name, m] of managers) {
      if (name === writer) continue;
      const c = m.set.intersection(changed);
      if (!c.isEmpty()) conflicts.set(name, c);
    }
    if (!force && conflicts.size > 0) {
      const list: Conflict[] = [];
      for (const name of [...conflicts.keys()].sort()) for (const path of conflicts.get(name)!.paths()) list.push({ manager: name, path });
      throw new ConflictsError(list);
    }
    const out: Managers = new Map();
    const removedAny = !comparison.removed.isEmpty();
    for (const [name, m] of managers) {
      if (name === writer) {
        out.set(name, m);
        continue;
      }
      let set = m.set;
      const c = conflicts.get(name);
      if (c !== undefined) set = set.difference(c);
      if (removedAny) set = set.difference(comparison.removed);
      if (!set.isEmpty()) out.set(name, set === m.set ? m : { set, applied: m.applied });
    }
    return { managers: out, comparison };
  }
}
