// The availability controller: keeps every APIService's `Available`
// condition, with kube-aggregator 1.32's reasons and messages:
//
//   local (no spec.service)          True  Local                "Local APIServices are always available"
//   Service missing                  False ServiceNotFound      service/NAME in "NS" is not present
//   ClusterIP Service, port missing  False ServicePortError     service/NAME in "NS" is not listening on port P
//   ClusterIP Service, no Endpoints  False EndpointsNotFound    cannot find endpoints for service/NAME in "NS"
//   Endpoints without an address     False MissingEndpoints     endpoints for service/NAME in "NS" have no addresses with port name "N"
//   discovery GET fails              False FailedDiscoveryCheck failing or missing response from URL: …
//   otherwise                        True  Passed               all checks passed
//
// The discovery check GETs /apis/GROUP/VERSION from the extension server as
// system:kube-aggregator in system:masters (front-proxy headers, proxy client
// certificate), up to 5 s; what it returns is kept for merged discovery.
// A pass runs after any change of APIServices, Services or Endpoints (their
// watches) and every `intervalMs` (upstream resyncs dead APIServices often).
// Status is written only when it changes; lastTransitionTime moves only when
// the condition's status does. This runs inside the API server, as upstream's
// does (it needs the proxy transport), reading and writing through the registry.

import https from 'node:https';
import type { Logger } from 'pino';
import { deepCopy } from '../../machinery/deep-copy.js';
import { StatusError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { RESTStore, Watcher } from '../../registry/rest.js';
import type { APIServiceCondition, APIServiceSpec } from '../../api/apiregistration/v1/types.js';
import type { ApiServiceResolver } from './resolver.js';
import type { ProxyTransports } from './transport.js';
import { frontProxyHeaders } from './proxy.js';
import { goNetErrorText } from './go-errors.js';
import { AGGREGATOR_USER } from './local-apiservices.js';

const CHECK_TIMEOUT_MS = 5000;
const CHECK_ATTEMPTS = 3;

export interface AvailabilityOptions {
  apiServices: RESTStore;
  services: RESTStore;
  endpoints: RESTStore;
  resolve: ApiServiceResolver;
  transports: ProxyTransports;
  logger: Logger;
  now: () => number;
  /** Between full passes (default 30 s). */
  intervalMs?: number;
  /**
   * A remote group/version's discovery document and its OpenAPI v3 entry (the
   * extension's serverRelativeURL of that group/version, when it serves one),
   * or undefined when its check failed.
   */
  onDiscovery(name: string, document: Record<string, unknown> | undefined, openApiV3URL?: string): void;
  /** A remote group/version's server's /openapi/v2, downloaded after a passed check at most once a minute (as upstream's). */
  onOpenApiV2?(name: string, spec: Record<string, unknown>): void;
}

/** How often an available extension server's /openapi/v2 is downloaded again (upstream's aggregator: every minute). */
const OPENAPI_V2_REFRESH_MS = 60_000;

type Verdict = Pick<APIServiceCondition, 'status' | 'reason' | 'message'>;

interface ServiceObject {
  spec?: { type?: string; ports?: { name?: string; port?: number }[] };
}
interface EndpointsObject {
  subsets?: { addresses?: unknown[]; ports?: { name?: string }[] }[];
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

async function getOrUndefined(store: RESTStore, namespace: string, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(namespace, name, {});
  } catch (err) {
    if (err instanceof StatusError && err.code === 404) return undefined;
    throw err;
  }
}

export class AvailabilityController {
  private readonly watchers: Watcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private again = false;
  /** When each APIService's /openapi/v2 was last downloaded. */
  private readonly openApiV2At = new Map<string, number>();

  constructor(private readonly options: AvailabilityOptions) {}

  async start(): Promise<void> {
    for (const store of [this.options.apiServices, this.options.services, this.options.endpoints]) {
      const watch = async (): Promise<void> => {
        if (this.stopped) return;
        const w = await store.watch('', { resourceVersion: '0', timeoutSeconds: 3600 }, {
          event: () => this.trigger(),
          events: () => this.trigger(),
          done: () => void setTimeout(() => void watch().catch((err: unknown) => this.options.logger.warn({ err }, 'APIService availability watch failed')), 100).unref(),
        });
        if (this.stopped) w.stop();
        else this.watchers.push(w);
      };
      await watch();
    }
    this.trigger();
    await this.running;
    const interval = this.options.intervalMs ?? 30_000;
    this.timer = setInterval(() => this.trigger(), interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    for (const w of this.watchers) w.stop();
    this.watchers.length = 0;
    await this.running;
  }

  /** Runs a pass and resolves once no pass is running or asked for (start: the local conditions are written before the server is ready). */
  async settle(): Promise<void> {
    this.trigger();
    while (this.running !== undefined) await this.running;
  }

  /** Runs a pass now, or right after the one running (changes coalesce). */
  trigger(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch((err: unknown) => this.options.logger.warn({ err }, 'APIService availability pass failed'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.trigger();
        }
      });
  }

  private async pass(): Promise<void> {
    const list = await this.options.apiServices.list('', {});
    await Promise.all(list.items.map((svc) => this.check(svc).catch((err: unknown) => this.options.logger.warn({ err, name: svc.metadata.name }, 'APIService availability check failed'))));
  }

  private async check(apiService: KubeObject): Promise<void> {
    const verdict = await this.verdict(apiService);
    if (this.stopped) return;
    const name = apiService.metadata.name!;
    const conditions = ((apiService['status'] as { conditions?: APIServiceCondition[] } | undefined)?.conditions ?? []).slice();
    const index = conditions.findIndex((c) => c.type === 'Available');
    const old = index >= 0 ? conditions[index] : undefined;
    if (old !== undefined && old.status === verdict.status && old.reason === verdict.reason && old.message === verdict.message) return;
    const condition: APIServiceCondition = {
      type: 'Available',
      status: verdict.status,
      lastTransitionTime: old !== undefined && old.status === verdict.status && old.lastTransitionTime !== undefined ? old.lastTransitionTime : rfc3339(this.options.now()),
      reason: verdict.reason!,
      message: verdict.message!,
    };
    if (index >= 0) conditions[index] = condition;
    else conditions.push(condition);
    const revised = deepCopy(apiService);
    revised['status'] = { ...(revised['status'] as object | undefined), conditions };
    if (old?.status !== verdict.status) {
      // Upstream logs this at -v=2: debug here, so a fresh serve stays quiet.
      this.options.logger.debug({ name, status: verdict.status, reason: verdict.reason, message: verdict.message }, 'changing APIService availability');
    }
    try {
      await this.options.apiServices.update('', name, revised, { subresource: 'status', fieldManager: 'kube-apiserver', user: AGGREGATOR_USER });
    } catch (err) {
      // Changed or deleted meanwhile: its watch event brings another pass.
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) return;
      throw err;
    }
  }

  private async verdict(apiService: KubeObject): Promise<Verdict> {
    const name = apiService.metadata.name!;
    const spec = (apiService['spec'] ?? {}) as APIServiceSpec;
    const ref = spec.service;
    if (ref === undefined || ref === null) return { status: 'True', reason: 'Local', message: 'Local APIServices are always available' };
    const namespace = ref.namespace ?? '';
    const serviceName = ref.name ?? '';
    const port = ref.port ?? 443;
    const where = `service/${serviceName} in ${JSON.stringify(namespace)}`;
    const unavailable = (reason: string, message: string): Verdict => {
      this.options.onDiscovery(name, undefined);
      this.openApiV2At.delete(name);
      return { status: 'False', reason, message };
    };
    const service = (await getOrUndefined(this.options.services, namespace, serviceName)) as ServiceObject | undefined;
    if (service === undefined) return unavailable('ServiceNotFound', `${where} is not present`);
    if ((service.spec?.type ?? 'ClusterIP') === 'ClusterIP') {
      const servicePort = (service.spec?.ports ?? []).find((p) => p.port === port);
      if (servicePort === undefined) return unavailable('ServicePortError', `${where} is not listening on port ${port}`);
      const portName = servicePort.name ?? '';
      const endpoints = (await getOrUndefined(this.options.endpoints, namespace, serviceName)) as EndpointsObject | undefined;
      if (endpoints === undefined) return unavailable('EndpointsNotFound', `cannot find endpoints for ${where}`);
      const served = (endpoints.subsets ?? []).some((s) => (s.addresses ?? []).length > 0 && (s.ports ?? []).some((p) => (p.name ?? '') === portName));
      if (!served) return unavailable('MissingEndpoints', `endpoints for ${where} have no addresses with port name ${JSON.stringify(portName)}`);
    }
    const path = name === 'v1.' ? `/api/${spec.version ?? ''}` : `/apis/${spec.group ?? ''}/${spec.version ?? ''}`;
    // Several attempts at once, as upstream: one success is enough, and a hanging server costs one timeout, not several.
    const attempts = Array.from({ length: CHECK_ATTEMPTS }, () => this.discover(spec, namespace, serviceName, port, path));
    let lastError = '';
    try {
      const document = await Promise.any(attempts);
      // Best effort: where the extension serves this group/version's OpenAPI v3 (kubectl explain, client-side validation).
      let openApiV3URL: string | undefined;
      try {
        const v3 = (await this.discover(spec, namespace, serviceName, port, '/openapi/v3')) as { paths?: Record<string, { serverRelativeURL?: string }> };
        openApiV3URL = v3.paths?.[path.slice(1)]?.serverRelativeURL;
      } catch {
        openApiV3URL = undefined;
      }
      this.options.onDiscovery(name, document, openApiV3URL);
      const last = this.openApiV2At.get(name);
      if (this.options.onOpenApiV2 !== undefined && (last === undefined || this.options.now() - last >= OPENAPI_V2_REFRESH_MS)) {
        try {
          const v2 = await this.discover(spec, namespace, serviceName, port, '/openapi/v2');
          this.openApiV2At.set(name, this.options.now());
          this.options.onOpenApiV2(name, v2);
        } catch (err) {
          this.options.logger.debug({ err, apiService: name }, 'downloading /openapi/v2 failed');
        }
      }
      return { status: 'True', reason: 'Passed', message: 'all checks passed' };
    } catch (err) {
      const errors = err instanceof AggregateError ? err.errors : [err];
      lastError = (errors.at(-1) as Error).message;
    }
    return unavailable('FailedDiscoveryCheck', lastError);
  }

  /** One discovery GET; throws with upstream's wording when it fails. */
  private async discover(spec: APIServiceSpec, namespace: string, name: string, port: number, path: string): Promise<Record<string, unknown>> {
    let url = `https://${name}.${namespace}.svc:${port}${path}`;
    try {
      const target = await this.options.resolve(namespace, name, port);
      const host = target.host.includes(':') ? `[${target.host}]` : target.host;
      url = `https://${host}:${target.port}${path}`;
      // The check only asks "is it there": the serving certificate is not verified (as upstream's check).
      const agent = this.options.transports.agentFor({ ...spec, insecureSkipTLSVerify: true, caBundle: '' });
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = https.request(
          { host: target.host, port: target.port, path, method: 'GET', agent, headers: { accept: 'application/json', ...frontProxyHeaders({ name: 'system:kube-aggregator', groups: ['system:masters'] }) }, timeout: CHECK_TIMEOUT_MS },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`Get "${url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)));
        req.on('error', (err) => reject((err as { code?: string }).code !== undefined ? new Error(`Get ${JSON.stringify(url)}: ${goNetErrorText(err)}`) : err));
        req.end();
      });
      if (status < 200 || status >= 300) throw new Error(`bad status from ${url}: ${status}`);
      try {
        return JSON.parse(body) as Record<string, unknown>;
      } catch {
        return {};
      }
    } catch (err) {
      throw new Error(`failing or missing response from ${url}: ${(err as Error).message}`);
    }
  }
}
