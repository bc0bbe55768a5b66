// Which stored values a custom resource's storage takes as its objects, as
// kube-apiserver 1.32's unstructured storage codec and CR converter decide it
// (measured by writing such values into its etcd;
// test/faults/corrupt-values-reference.test.ts):
//
// - a value without kind: `Object 'Kind' is missing in '<the stored value>'`;
// - an apiVersion of another group (or none): `other.example.com/v1,
//   Kind=Gadget is unstructured and is not suitable for converting to "<group>/<version>"`;
// - a version the CRD does not list: `request to convert CR from an invalid
//   group/version: <apiVersion>`;
// - any version the CRD lists (served or not) is converted as usual, and a
//   wrong kind in the right group is served as stored, as upstream does.
//
// Upstream names the version the request asked for in the second message;
// the storage is shared by every served version, so apiary names the
// storage version (the same for a request at the storage version).

import type { KubeObject } from '../machinery/meta.js';
import type { StoredTypeCheck } from '../storage/corrupt-values.js';
import type { CustomResourceDefinition } from './types.js';

/** The check of one CRD's storage, kept current as the CRD changes (the storage outlives a CRD update). */
export class CustomResourceTypeCheck {
  private group = '';
  private storageApiVersion = '';
  private versions = new Set<string>();

  constructor(crd: CustomResourceDefinition) {
    this.update(crd);
  }

  update(crd: CustomResourceDefinition): void {
    this.group = crd.spec.group ?? '';
    const versions = crd.spec.versions ?? [];
    this.versions = new Set(versions.map((v) => v.name ?? ''));
    this.storageApiVersion = `${this.group}/${versions.find((v) => v.storage === true)?.name ?? versions[0]?.name ?? ''}`;
  }

  readonly check: StoredTypeCheck = (obj: KubeObject, value: string): string | undefined => {
    if (typeof obj.kind !== 'string' || obj.kind === '') return `Object 'Kind' is missing in '${value}'`;
    const apiVersion = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
    const slash = apiVersion.lastIndexOf('/');
    const group = slash < 0 ? '' : apiVersion.slice(0, slash);
    const version = apiVersion.slice(slash + 1);
    if (group !== this.group) {
      return `${group}/${version}, Kind=${obj.kind} is unstructured and is not suitable for converting to "${this.storageApiVersion}"`;
    }
    if (!this.versions.has(version)) return `request to convert CR from an invalid group/version: ${apiVersion}`;
    return undefined;
  };
}
