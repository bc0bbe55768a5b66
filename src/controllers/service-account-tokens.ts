// ServiceAccountTokensController: the legacy service account token Secrets
// (upstream's tokens controller, pkg/controller/serviceaccount/tokens_controller.go).
// A Secret of type kubernetes.io/service-account-token names its account in
// the kubernetes.io/service-account.name annotation; this controller
// - fills it: data.token (a non-expiring token signed by `sign`), data.ca.crt
//   (the cluster CA, when known) and data.namespace, and records the account's
//   uid in kubernetes.io/service-account.uid;
// - deletes it when its account is gone (or is another account of the same
//   name: the uid annotation differs), and when an account is deleted, deletes
//   every token Secret that names it.
// The signer is a parameter: the API server's service account key signs, the
// controller never sees it.

import {
  type ClientLogger,
  type KubeObject,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  DeletedFinalStateUnknown,
  ItemExponentialFailureRateLimiter,
  WorkQueue,
  isNotFound,
  runController,
  silentLogger,
} from '../client/index.js';
import { deepCopy } from '../machinery/deep-copy.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

const SECRET_GVR = { group: '', version: 'v1', resource: 'secrets' };
const SA_GVR = { group: '', version: 'v1', resource: 'serviceaccounts' };

/** What a legacy token says: the account and the Secret holding it. */
export interface LegacyTokenClaims {
  namespace: string;
  serviceAccountName: string;
  serviceAccountUid: string;
  secretName: string;
}

export interface ServiceAccountTokensControllerOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  /** Signs a legacy token (the API server's service account key). */
  sign: (claims: LegacyTokenClaims) => Promise<string>;
  /** The cluster CA bundle (PEM) written as ca.crt; omitted when unknown. */
  rootCaData?: string;
  workers?: number;
  logger?: ClientLogger;
}

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

export class ServiceAccountTokensController {
  readonly queue: WorkQueue<string>;
  private readonly secrets: SharedIndexInformer<Secret>;
  private readonly accounts: SharedIndexInformer<KubeObject>;
  private readonly log: ClientLogger;

  constructor(private readonly options: ServiceAccountTokensControllerOptions) {
    this.log = options.logger ?? silentLogger;
    this.queue = new WorkQueue<string>({ name: 'serviceaccount-tokens', rateLimiter: new ItemExponentialFailureRateLimiter<string>(5, 60_000) });
    // Only token Secrets (a Secret's type never changes): the informer does not hold a copy of every Secret.
    this.secrets = options.informers.forResource<Secret>(SECRET_GVR, { fieldSelector: `type=${SERVICE_ACCOUNT_TOKEN_TYPE}` });
    this.accounts = options.informers.forResource<KubeObject>(SA_GVR);
    const enqueueSecret = (s: Secret): void => {
      if (s.type === SERVICE_ACCOUNT_TOKEN_TYPE) this.queue.add(`${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`);
    };
    this.secrets.addEventHandler({ onAdd: enqueueSecret, onUpdate: (_old, s) => enqueueSecret(s) });
    // An account's change or removal: look again at the token Secrets naming it.
    const enqueueTokensOf = (sa: KubeObject): void => {
      const ns = sa.metadata.namespace ?? '';
      for (const s of this.secrets.lister().namespace(ns).list()) {
        if (s.type === SERVICE_ACCOUNT_TOKEN_TYPE && s.metadata.annotations?.[SERVICE_ACCOUNT_NAME_ANNOTATION] === sa.metadata.name) enqueueSecret(s);
      }
    };
    this.accounts.addEventHandler({
      onAdd: enqueueTokensOf,
      onUpdate: (_old, sa) => enqueueTokensOf(sa),
      onDelete: (obj) => {
        const sa = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
        if (sa) enqueueTokensOf(sa);
      },
    });
  }

  run(signal: AbortSignal): Promise<void> {
    return runController<string>({
      name: 'serviceaccount-tokens',
      informers: [this.secrets, this.accounts],
      queue: this.queue,
      workers: Math.max(1, this.options.workers ?? 1),
      signal,
      logger: this.log,
      reconcile: (k) => this.sync(k),
    });
  }

  async sync(k: string): Promise<void> {
    const secret = this.secrets.getIndexer().getByKey(k);
    if (secret === undefined || secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE || secret.metadata.deletionTimestamp !== undefined) return;
    const ns = secret.metadata.namespace ?? '';
    const annotations = secret.metadata.annotations ?? {};
    const saName = annotations[SERVICE_ACCOUNT_NAME_ANNOTATION] ?? '';
    const wantedUid = annotations[SERVICE_ACCOUNT_UID_ANNOTATION] ?? '';
    const account = await this.liveAccount(ns, saName);
    if (account === undefined || (wantedUid !== '' && wantedUid !== account.metadata.uid)) {
      await this.deleteSecret(secret);
      return;
    }
    const data = secret.data ?? {};
    const ca = this.options.rootCaData;
    const caB64 = ca === undefined ? undefined : Buffer.from(ca).toString('base64');
    const nsB64 = Buffer.from(ns).toString('base64');
    const needsToken = (data['token'] ?? '') === '';
    const needsCa = caB64 !== undefined && data['ca.crt'] !== caB64;
    const needsNs = data['namespace'] !== nsB64;
    const needsUid = wantedUid === '';
    if (!needsToken && !needsCa && !needsNs && !needsUid) return;
    const updated = deepCopy(secret);
    const out = (updated.data ??= {});
    if (needsToken) {
      const token = await this.options.sign({ namespace: ns, serviceAccountName: saName, serviceAccountUid: account.metadata.uid ?? '', secretName: secret.metadata.name ?? '' });
      out['token'] = Buffer.from(token).toString('base64');
    }
    if (caB64 !== undefined) out['ca.crt'] = caB64;
    out['namespace'] = nsB64;
    updated.metadata.annotations = { ...annotations, [SERVICE_ACCOUNT_UID_ANNOTATION]: account.metadata.uid ?? '' };
    // A conflict (someone wrote it meanwhile) is retried with the newer object through the queue.
    await this.options.client.resource<Secret>(SECRET_GVR).namespace(ns).update(updated);
    this.log.info({ namespace: ns, name: secret.metadata.name, serviceAccount: saName }, 'filled service account token secret');
  }

  /** The account from the cache, confirmed live when the cache lacks it (it may be a moment old). */
  private async liveAccount(ns: string, name: string): Promise<KubeObject | undefined> {
    if (name === '') return undefined;
    const cached = this.accounts.getIndexer().getByKey(`${ns}/${name}`);
    if (cached !== undefined) return cached;
    try {
      return await this.options.client.resource<KubeObject>(SA_GVR).namespace(ns).get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private async deleteSecret(secret: Secret): Promise<void> {
    const ns = secret.metadata.namespace ?? '';
    try {
      await this.options.client.resource<Secret>(SECRET_GVR).namespace(ns).delete(secret.metadata.name ?? '', { preconditions: { uid: secret.metadata.uid ?? '' } });
      this.log.info({ namespace: ns, name: secret.metadata.name }, 'deleted token secret of a missing service account');
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
