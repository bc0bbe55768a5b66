// The conversion the CRD webhook-conversion tests' webhook performs (both the
// end-to-end test and the differential case, where kube-apiserver calls it):
// v1 spec.fullName "A B" ⇄ v2 spec.firstName "A", spec.lastName "B"; the rest is copied.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- objects built field by field

export function convertName(obj: Json, desiredApiVersion: string): Json {
  const out: Json = structuredClone(obj);
  out.apiVersion = desiredApiVersion;
  const spec = (out.spec ??= {});
  if (desiredApiVersion.endsWith('/v2')) {
    const [first, ...rest] = String(spec.fullName ?? '').split(' ');
    delete spec.fullName;
    spec.firstName = first;
    spec.lastName = rest.join(' ');
  } else {
    spec.fullName = [spec.firstName, spec.lastName].filter((s) => s !== undefined && s !== '').join(' ');
    delete spec.firstName;
    delete spec.lastName;
  }
  return out;
}
