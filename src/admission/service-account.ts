// ServiceAccount admission (upstream plugin/pkg/admission/serviceaccount), for
// pod CREATEs (the main resource only; subresources and other kinds pass):
// - admit (mutating): a pod without spec.serviceAccountName gets `default`
//   (and the v1 mirror field spec.serviceAccount with it); the account must
//   exist, else 403 `pods "p" is forbidden: error looking up service account
//   ns/sa: serviceaccount "sa" not found`. Unless automountServiceAccountToken
//   is false (the pod's setting wins over the account's), the pod gets the
//   projected volume `kube-api-access-<5 random>` (a 3607 s bound token at
//   `token`, kube-root-ca.crt's `ca.crt`, the namespace through the downward
//   API; defaultMode 420), mounted read-only at
//   /var/run/secrets/kubernetes.io/serviceaccount in every init container and
//   container that has nothing mounted there yet. An existing volume named
//   `kube-api-access-*` is reused. A pod without imagePullSecrets gets the
//   account's.
// - validate: the account still exists; with the account's annotation
//   `kubernetes.io/enforce-mountable-secrets: "true"`, the pod may reference
//   only secrets the account lists (upstream's messages).
// - Mirror pods (annotation kubernetes.io/config.mirror) are never changed and
//   may not name an account, reference secrets or project tokens.
//
// Where the account is read: this server's watch cache first (upstream's
// lister); when the cache lacks it, a live read, repeated for `default` up to
// 10 times 100–200 ms apart, since the service-account controller makes it
// right after the namespace (upstream waits the same way: a pod created in a
// brand-new namespace succeeds once `default` appears, and fails with the
// not-found message after about 1–2 s if it never does).

import { StatusError, forbidden } from '../machinery/errors.js';
import { generateNameSuffix } from '../machinery/names.js';
import type { Container, Pod, ServiceAccount, Volume } from '../api/core/v1/types.js';
import type { AdmissionAttributes, AdmissionPlugin } from './interface.js';

export const SERVICE_ACCOUNT_PLUGIN = 'ServiceAccount';
export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_VOLUME_PREFIX = 'kube-api-access';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
export const ENFORCE_MOUNTABLE_SECRETS = 'kubernetes.io/enforce-mountable-secrets';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** The projected token's lifetime (upstream's warn-only bound token expiration: 1 h + 7 s). */
const TOKEN_EXPIRATION_SECONDS = 3607;
const DEFAULT_LOOKUP_ATTEMPTS = 10;

export interface ServiceAccountAdmissionOptions {
  /** The account as this server's cache holds it (undefined when it holds none). */
  getCached(namespace: string, name: string): Readonly<ServiceAccount> | undefined;
  /** The account at the latest revision (undefined when not found). */
  getLive(namespace: string, name: string): Promise<ServiceAccount | undefined>;
  /** Volume name suffixes (tests pin them). */
  suffix?: () => string;
  /** Waits between live lookups of `default` (tests shorten it). */
  sleep?: (ms: number) => Promise<void>;
}

function applies(a: AdmissionAttributes): boolean {
  return a.operation === 'CREATE' && a.subresource === '' && a.resource.group === '' && a.resource.resource === 'pods' && a.object !== undefined;
}

/** The projected volume upstream's plugin adds, with its explicit defaults. */
export function tokenVolume(name: string): Volume {
  return {
    name,
    projected: {
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
      defaultMode: 420,
    },
  };
}

export class ServiceAccountAdmission implements AdmissionPlugin {
  readonly name = SERVICE_ACCOUNT_PLUGIN;
  readonly resources: ReadonlySet<string> = new Set(['/pods']);
  private readonly suffix: () => string;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: ServiceAccountAdmissionOptions) {
    this.suffix = options.suffix ?? (() => generateNameSuffix());
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  async admit(a: AdmissionAttributes): Promise<void> {
    if (!applies(a)) return;
    const pod = a.object as Pod;
    if (isMirrorPod(pod)) return;
    const spec = (pod.spec ??= { containers: [] });
    if ((spec.serviceAccountName ?? '') === '') spec.serviceAccountName = DEFAULT_SERVICE_ACCOUNT;
    // The v1 field mirrors serviceAccountName (upstream's conversion sets it on the way out).
    spec.serviceAccount = spec.serviceAccountName;
    const account = await this.lookup(a, spec.serviceAccountName!);
    if (shouldAutomount(account, pod)) this.mountToken(pod);
    if ((spec['imagePullSecrets'] as unknown[] | undefined ?? []).length === 0 && (account.imagePullSecrets ?? []).length > 0) {
      spec['imagePullSecrets'] = account.imagePullSecrets!.map((s) => ({ name: s.name ?? '' }));
    }
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    if (!applies(a)) return;
    const pod = a.object as Pod;
    const spec = pod.spec ?? { containers: [] };
    if (isMirrorPod(pod)) {
      if ((spec.serviceAccountName ?? '') !== '') throw refuse(a, 'a mirror pod may not reference service accounts');
      if (secretNames(pod).length > 0) throw refuse(a, 'a mirror pod may not reference secrets');
      for (const v of spec.volumes ?? []) {
        const sources = (v['projected'] as { sources?: Record<string, unknown>[] } | undefined)?.sources ?? [];
        if (sources.some((s) => s['serviceAccountToken'] !== undefined)) throw refuse(a, 'a mirror pod may not use ServiceAccountToken volume projections');
      }
      return;
    }
    const account = await this.lookup(a, spec.serviceAccountName ?? '');
    // Go's strconv.ParseBool spellings of true.
    if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(account.metadata.annotations?.[ENFORCE_MOUNTABLE_SECRETS] ?? '')) {
      const problem = mountableSecretsProblem(account, pod);
      if (problem !== undefined) throw refuse(a, problem);
    }
  }

  private async lookup(a: AdmissionAttributes, name: string): Promise<Readonly<ServiceAccount>> {
    const { namespace } = a;
    const cached = this.options.getCached(namespace, name);
    if (cached !== undefined) return cached;
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? DEFAULT_LOOKUP_ATTEMPTS : 1;
    const interval = 100 + Math.floor(Math.random() * 100);
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await this.sleep(interval);
      const live = await this.options.getLive(namespace, name);
      if (live !== undefined) return live;
    }
    throw refuse(a, `error looking up service account ${namespace}/${name}: serviceaccount "${name}" not found`);
  }

  private mountToken(pod: Pod): void {
    const spec = pod.spec!;
    const existing = (spec.volumes ?? []).find((v) => v.name.startsWith(`${TOKEN_VOLUME_PREFIX}-`));
    const volumeName = existing?.name ?? `${TOKEN_VOLUME_PREFIX}-${this.suffix()}`;
    let mounted = false;
    const mountInto = (containers: Container[] | undefined): void => {
      for (const c of containers ?? []) {
        if ((c.volumeMounts ?? []).some((m) => m.mountPath === TOKEN_MOUNT_PATH)) continue;
        (c.volumeMounts ??= []).push({ name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH });
        mounted = true;
      }
    };
    mountInto(spec.initContainers);
    mountInto(spec.containers);
    if (existing === undefined && mounted) (spec.volumes ??= []).push(tokenVolume(volumeName));
  }
}

function isMirrorPod(pod: Pod): boolean {
  return pod.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined;
}

function shouldAutomount(account: Readonly<ServiceAccount>, pod: Pod): boolean {
  const own = pod.spec?.['automountServiceAccountToken'];
  if (typeof own === 'boolean') return own;
  if (typeof account.automountServiceAccountToken === 'boolean') return account.automountServiceAccountToken;
  return true;
}

function refuse(a: AdmissionAttributes, message: string): StatusError {
  return forbidden({ group: a.resource.group, resource: a.resource.resource }, a.name, message);
}

type EnvEntry = { name?: string; valueFrom?: { secretKeyRef?: { name?: string } } };

/** Every secret name a pod references (volumes, env, envFrom, image pull secrets), for the mirror pod check. */
function secretNames(pod: Pod): string[] {
  const spec = pod.spec ?? { containers: [] };
  const names: string[] = [];
  for (const s of (spec['imagePullSecrets'] as { name?: string }[] | undefined) ?? []) names.push(s.name ?? '');
  for (const c of [...(spec.initContainers ?? []), ...spec.containers, ...((spec['ephemeralContainers'] as Container[] | undefined) ?? [])]) {
    for (const e of (c['envFrom'] as { secretRef?: { name?: string } }[] | undefined) ?? []) if (e.secretRef !== undefined) names.push(e.secretRef.name ?? '');
    for (const e of (c.env as EnvEntry[] | undefined) ?? []) if (e.valueFrom?.secretKeyRef !== undefined) names.push(e.valueFrom.secretKeyRef.name ?? '');
  }
  for (const v of spec.volumes ?? []) {
    const secret = v['secret'] as { secretName?: string } | undefined;
    if (secret !== undefined) names.push(secret.secretName ?? '');
    const projected = v['projected'] as { sources?: { secret?: { name?: string } }[] } | undefined;
    for (const s of projected?.sources ?? []) if (s.secret !== undefined) names.push(s.secret.name ?? '');
    for (const key of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos', 'csi']) {
      const source = v[key] as { secretName?: string; secretRef?: { name?: string }; nodePublishSecretRef?: { name?: string } } | undefined;
      if (source === undefined) continue;
      const name = source.secretName ?? source.secretRef?.name ?? source.nodePublishSecretRef?.name;
      if (name !== undefined) names.push(name);
    }
  }
  return names;
}

/** Upstream's limitSecretReferences: the first reference the account does not allow, worded as upstream. */
function mountableSecretsProblem(account: Readonly<ServiceAccount>, pod: Pod): string | undefined {
  const spec = pod.spec ?? { containers: [] };
  const mountable = new Set((account.secrets ?? []).map((s) => s.name));
  const sa = account.metadata.name;
  for (const v of spec.volumes ?? []) {
    const secret = v['secret'] as { secretName?: string } | undefined;
    if (secret !== undefined && !mountable.has(secret.secretName ?? '')) {
      return `volume with secret.secretName="${secret.secretName ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
    }
  }
  for (const [label, containers] of [['init container', spec.initContainers ?? []], ['container', spec.containers]] as const) {
    for (const c of containers) {
      for (const e of (c.env as EnvEntry[] | undefined) ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref !== undefined && !mountable.has(ref.name ?? '')) {
          return `${label} ${c.name} with envVar ${e.name ?? ''} referencing secret.secretName="${ref.name ?? ''}" is not allowed because service account ${sa} does not reference that secret`;
        }
      }
    }
  }
  const pullable = new Set((account.imagePullSecrets ?? []).map((s) => s.name));
  const pulls = (spec['imagePullSecrets'] as { name?: string }[] | undefined) ?? [];
  for (let i = 0; i < pulls.length; i++) {
    if (!pullable.has(pulls[i]!.name)) {
      return `imagePullSecrets[${i}].name="${pulls[i]!.name ?? ''}" is not allowed because service account ${sa} does not reference that imagePullSecret`;
    }
  }
  return undefined;
}
