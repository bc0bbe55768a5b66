// What HNC's four resources share as apiary serves them: they behave as the
// custom resources HNC's CRDs make of them on a kube-apiserver (no status
// subresource: a main-resource write carries status too; metadata.generation
// starts at 1 and moves with any change outside metadata).
import type { KubeObject } from '../../machinery/meta.js';
import { sameJSON } from '../../api/core/v1/validation.js';

export function generationOne(obj: KubeObject): void {
  obj.metadata.generation = 1;
}

export function bumpGenerationOnChange(obj: KubeObject, old: KubeObject): void {
  const strip = (o: KubeObject) => {
    const { metadata: _m, ...rest } = o;
    return rest;
  };
  obj.metadata.generation = (old.metadata.generation ?? 1) + (sameJSON(strip(obj), strip(old)) ? 0 : 1);
}
