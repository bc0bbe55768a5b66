// Kubernetes' version ordering (upstream's version.CompareKubeAwareVersionStrings):
// v2 > v1 > v1beta2 > v1beta1 > v1alpha1 > anything not of that shape, which
// sorts alphabetically among itself.

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

function rank(v: string): [number, number, number] | undefined {
  const m = KUBE_VERSION.exec(v);
  if (m === null) return undefined;
  const stability = m[2] === undefined ? 2 : m[2] === 'beta' ? 1 : 0;
  return [stability, Number(m[1]), Number(m[3] ?? 0)];
}

/** Negative when a sorts before b (a is older), positive when after, 0 when equal. */
export function compareKubeAwareVersions(a: string, b: string): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra === undefined && rb === undefined) return a < b ? 1 : a > b ? -1 : 0;
  if (ra === undefined) return -1;
  if (rb === undefined) return 1;
  for (let i = 0; i < 3; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  return 0;
}
