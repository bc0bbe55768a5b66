// kube-system/extension-apiserver-authentication: how extension API servers
// learn to authenticate our requests (kube-apiserver's
// ClusterAuthenticationTrustController): the client CA, and the request-header
// CA, allowed names and header names, each list as a JSON array. Written once
// kube-system exists and put back if changed or deleted (checked every
// `intervalMs`).

import type { Logger } from 'pino';
import { StatusError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { RESTStore } from '../../registry/rest.js';
import type { RequestHeaderConfig } from '../../auth/authn/request-header.js';
import { AGGREGATOR_USER } from './local-apiservices.js';

export const AUTHENTICATION_CONFIGMAP = 'extension-apiserver-authentication';

export function authenticationConfigMapData(clientCaPem: string, requestHeader: RequestHeaderConfig | undefined): Record<string, string> {
  const data: Record<string, string> = { 'client-ca-file': clientCaPem };
  if (requestHeader !== undefined) {
    data['requestheader-client-ca-file'] = requestHeader.caPem;
    data['requestheader-allowed-names'] = JSON.stringify(requestHeader.allowedNames);
    data['requestheader-username-headers'] = JSON.stringify(requestHeader.usernameHeaders);
    data['requestheader-group-headers'] = JSON.stringify(requestHeader.groupHeaders);
    data['requestheader-extra-headers-prefix'] = JSON.stringify(requestHeader.extraHeaderPrefixes);
  }
  return data;
}

export class AuthenticationConfigMapPublisher {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly configMaps: RESTStore,
    private readonly data: Record<string, string>,
    private readonly logger: Logger,
    private readonly intervalMs = 5000,
  ) {}

  start(): void {
    const tick = (): void => {
      if (this.running !== undefined) return;
      this.running = this.publish()
        .catch((err: unknown) => this.logger.warn({ err }, `keeping kube-system/${AUTHENTICATION_CONFIGMAP} failed`))
        .finally(() => {
          this.running = undefined;
        });
    };
    tick();
    this.timer = setInterval(tick, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.running;
  }

  private async publish(): Promise<void> {
    let current: KubeObject | undefined;
    try {
      current = await this.configMaps.get('kube-system', AUTHENTICATION_CONFIGMAP, {});
    } catch (err) {
      if (!(err instanceof StatusError && err.code === 404)) throw err;
    }
    const options = { fieldManager: 'kube-apiserver', user: AGGREGATOR_USER };
    try {
      if (current === undefined) {
        const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: AUTHENTICATION_CONFIGMAP, namespace: 'kube-system' }, data: { ...this.data } } as unknown as KubeObject;
        await this.configMaps.create('kube-system', obj, options);
        return;
      }
      if (JSON.stringify(current['data'] ?? {}) === JSON.stringify(this.data)) return;
      await this.configMaps.update('kube-system', AUTHENTICATION_CONFIGMAP, { ...current, data: { ...this.data } } as KubeObject, options);
    } catch (err) {
      // kube-system not made yet, or another server wrote first: the next tick tries again.
      if (err instanceof StatusError && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
