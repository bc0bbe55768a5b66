// Managed labels and annotations (HNC v1.1's --managed-namespace-label and
// --managed-namespace-annotation, apiary flags of the same names): regexes,
// each implicitly wrapped in ^…$, naming the namespace labels and annotations
// that only HierarchyConfiguration spec.labels / spec.annotations (or a
// SubnamespaceAnchor's, copied into its subnamespace's `hierarchy`) may set.
// A namespace carries those of its own `hierarchy` and of every ancestor's
// (the root's value wins a key set twice, as HNC's walk up the tree writes it
// last); any other managed key on it is removed. With no pattern given (the
// default) nothing is managed and no namespace is touched.

import { fieldErrors, type FieldError } from '../machinery/field-errors.js';
import { isQualifiedName, isValidLabelValue } from '../machinery/validation.js';
import { HNC_GROUP, type MetaKVP } from '../api/hnc/v1alpha2/types.js';

export class ManagedMetadata {
  private constructor(
    private readonly labelPatterns: readonly RegExp[],
    private readonly annotationPatterns: readonly RegExp[],
  ) {}

  /** Compiles the flags' patterns; throws HNC's message for a bad one. */
  static parse(labels: readonly string[] = [], annotations: readonly string[] = []): ManagedMetadata {
    const compile = (patterns: readonly string[], option: string): RegExp[] =>
      patterns.map((p) => {
        let r: RegExp;
        try {
          r = new RegExp(`^(?:${p})$`);
        } catch (err) {
          throw new Error(`illegal value for ${option} ${JSON.stringify(p)}: ${(err as Error).message}`);
        }
        if (r.test(HNC_GROUP)) throw new Error(`illegal value for ${option} ${JSON.stringify(p)}: cannot specify a pattern that matches ${JSON.stringify(HNC_GROUP)}`);
        return r;
      });
    return new ManagedMetadata(compile(labels, '--managed-namespace-label'), compile(annotations, '--managed-namespace-annotation'));
  }

  /** True when some pattern is set (else nothing is managed). */
  get any(): boolean {
    return this.labelPatterns.length > 0 || this.annotationPatterns.length > 0;
  }

  isManagedLabel(key: string): boolean {
    return this.labelPatterns.some((r) => r.test(key));
  }

  isManagedAnnotation(key: string): boolean {
    return this.annotationPatterns.some((r) => r.test(key));
  }

  /** HNC's ValidateManagedLabels and ValidateManagedAnnotations, for a spec of a HierarchyConfiguration or an anchor. */
  validate(spec: { labels?: MetaKVP[]; annotations?: MetaKVP[] } | undefined): FieldError[] {
    const errs: FieldError[] = [];
    for (const l of spec?.labels ?? []) {
      const keyErrs = isQualifiedName(l.key ?? '');
      if (keyErrs.length > 0) errs.push(fieldErrors.invalid('spec.labels', l.key, keyErrs.join('; ')));
      else if (!this.isManagedLabel(l.key)) errs.push(fieldErrors.invalid('spec.labels', l.key, 'not a managed label and cannot be configured'));
      const valueErrs = isValidLabelValue(l.value ?? '');
      if (valueErrs.length > 0) errs.push(fieldErrors.invalid(`spec.labels[${l.key}]`, l.value, valueErrs.join('; ')));
    }
    for (const a of spec?.annotations ?? []) {
      const keyErrs = isQualifiedName(a.key ?? '');
      if (keyErrs.length > 0) errs.push(fieldErrors.invalid('spec.annotations', a.key, keyErrs.join('; ')));
      else if (!this.isManagedAnnotation(a.key)) errs.push(fieldErrors.invalid('spec.annotations', a.key, 'not a managed annotation and cannot be configured'));
    }
    return errs;
  }
}

/** Nothing managed: the default. */
export const NO_MANAGED_METADATA = ManagedMetadata.parse();

/** `current` with its managed keys replaced by `wanted`; undefined when nothing changes. */
export function withManagedKeys(
  current: Readonly<Record<string, string>> | undefined,
  wanted: Readonly<Record<string, string>>,
  isManaged: (key: string) => boolean,
): Record<string, string> | undefined {
  const next: Record<string, string> = {};
  let changed = false;
  for (const [key, value] of Object.entries(current ?? {})) {
    if (isManaged(key) && wanted[key] !== value) {
      changed = true;
      continue;
    }
    next[key] = value;
  }
  for (const [key, value] of Object.entries(wanted)) {
    if (next[key] !== value) {
      next[key] = value;
      changed = true;
    }
  }
  return changed ? next : undefined;
}
