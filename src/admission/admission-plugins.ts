// --enable-admission-plugins / --disable-admission-plugins as kube-apiserver
// checks them (options/admission.go): every name must be a plugin upstream
// registers, no name in both lists, and the order of the chain never follows
// the flags' order. apiary serves a subset: enabling a plugin it does not
// implement is refused (rather than silently ignored); disabling one is a no-op.

/** Every plugin kube-apiserver 1.32 registers. */
export const UPSTREAM_ADMISSION_PLUGINS: readonly string[] = [
  'AlwaysAdmit', 'AlwaysDeny', 'AlwaysPullImages', 'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction',
  'ClusterTrustBundleAttest', 'DefaultIngressClass', 'DefaultStorageClass', 'DefaultTolerationSeconds', 'DenyServiceExternalIPs',
  'EventRateLimit', 'ExtendedResourceToleration', 'ImagePolicyWebhook', 'LimitPodHardAntiAffinityTopology', 'LimitRanger',
  'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook', 'NamespaceAutoProvision', 'NamespaceExists', 'NamespaceLifecycle',
  'NodeRestriction', 'OwnerReferencesPermissionEnforcement', 'PersistentVolumeClaimResize',
  'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction', 'PodNodeSelector', 'PodSecurity',
  'PodTolerationRestriction', 'Priority', 'ResourceQuota', 'RuntimeClass', 'ServiceAccount', 'StorageObjectInUseProtection',
  'TaintNodesByCondition', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook',
];

/**
 * The plugins apiary implements, all on by default (as upstream's default set
 * has them; ServiceAccount only with security on, see server.ts).
 */
export const IMPLEMENTED_ADMISSION_PLUGINS: readonly string[] = [
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'TaintNodesByCondition', 'DefaultTolerationSeconds', 'StorageObjectInUseProtection', 'Priority',
  'MutatingAdmissionWebhook', 'ValidatingAdmissionWebhook', 'ResourceQuota',
  'PodSecurity', 'ValidatingAdmissionPolicy',
  'DefaultStorageClass', 'RuntimeClass', 'PersistentVolumeClaimResize',
  'CertificateApproval', 'CertificateSigning', 'CertificateSubjectRestriction',
  'DefaultIngressClass',
];

function names(flag: string): string[] {
  return flag.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** Checks both flags; returns the plugins to disable, or throws an Error with upstream's words. */
export function parseAdmissionPluginFlags(enable: string, disable: string): { disabled: string[] } {
  const enabled = names(enable);
  const disabled = names(disable);
  const errors: string[] = [];
  for (const n of enabled) if (!UPSTREAM_ADMISSION_PLUGINS.includes(n)) errors.push(`enable-admission-plugins plugin ${JSON.stringify(n)} is unknown`);
  for (const n of disabled) if (!UPSTREAM_ADMISSION_PLUGINS.includes(n)) errors.push(`disable-admission-plugins plugin ${JSON.stringify(n)} is unknown`);
  const both = [...new Set(enabled.filter((n) => disabled.includes(n)))].sort();
  if (both.length > 0) errors.push(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  for (const n of enabled) {
    if (UPSTREAM_ADMISSION_PLUGINS.includes(n) && !IMPLEMENTED_ADMISSION_PLUGINS.includes(n)) {
      errors.push(`enable-admission-plugins plugin ${JSON.stringify(n)} is not implemented by apiary`);
    }
  }
  if (errors.length > 0) throw new Error(errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`);
  return { disabled };
}
