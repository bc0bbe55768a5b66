// What the cluster's policy allows containers to ask for: kube-apiserver's
// --allow-privileged. Upstream keeps it process-wide (its capabilities
// package) and its validation of every pod spec (pods, templates, ephemeral
// containers) reads it; apiary does the same, so one process serves one policy.

let allowPrivileged = false;

/** Sets --allow-privileged for this process (default false, as kube-apiserver). */
export function setAllowPrivileged(allow: boolean): void {
  allowPrivileged = allow;
}

export function privilegedAllowed(): boolean {
  return allowPrivileged;
}
