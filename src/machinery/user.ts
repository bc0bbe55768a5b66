// Who made a request (upstream's k8s.io/apiserver/pkg/authentication/user.Info):
// shared by the authenticators that produce it, the authorizers and admission
// that read it, and the registry that records it.

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const ANONYMOUS_USER = 'system:anonymous';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const SYSTEM_PRIVILEGED_GROUP = 'system:masters';
