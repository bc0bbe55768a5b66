// The aggregation layer in one object (kube-aggregator inside kube-apiserver):
// it keeps the local APIServices (local-apiservices.ts), runs the availability
// controller (availability.ts), proxies the requests of a remote APIService's
// group/version to its extension server (proxy.ts: front-proxy headers, proxy
// client certificate, caBundle or insecureSkipTLSVerify, resolver.ts for the
// address) and adds the extension servers' groups to discovery (discovery.ts).
// A remote group/version that is not Available answers 503 "service
// unavailable" as upstream; every other group is served as before.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { KubeObject } from '../../machinery/meta.js';
import type { UserInfo } from '../../machinery/user.js';
import type { RESTStore, ResourceType } from '../../registry/rest.js';
import { availableCondition, isRemote, type APIServiceSpec } from '../../api/apiregistration/v1/types.js';
import { writeText } from '../responses.js';
import { AvailabilityController } from './availability.js';
import { aggregatedVersion, apiGroupDocument, groupsOf } from './discovery.js';
import { syncLocalAPIServices } from './local-apiservices.js';
import { proxyRequest } from './proxy.js';
import { apiServiceResolver } from './resolver.js';
import { ProxyTransports, type ProxyClientCertificate } from './transport.js';

export type { ProxyClientCertificate };

export interface AggregatorOptions {
  /** The served stores as routing sees them (custom resources come and go). */
  registry: { stores: RESTStore[]; storeFor(group: string, resource: string): RESTStore | undefined; generation?(): number };
  logger: Logger;
  now: () => number;
  /** --enable-aggregator-routing: dial the Service's endpoints instead of its cluster IP. */
  endpointRouting?: boolean;
  /** --proxy-client-cert-file / --proxy-client-key-file. */
  proxyClientCertificate?: ProxyClientCertificate;
  /** Keep the local APIServices of the served group/versions (default true). */
  localApiServices?: boolean;
  /** Between the availability controller's full passes (default 30 s). */
  availabilityIntervalMs?: number;
}

/** The user of a request when the server authenticates nobody (security off). */
const ANONYMOUS: UserInfo = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

export class Aggregator {
  private readonly apiServices: RESTStore;
  private readonly transports: ProxyTransports;
  private readonly availability: AvailabilityController;
  private readonly resolve;
  /**
   * The last discovery document of each remote APIService (none yet when
   * every check so far failed), and whether its last check passed.
   */
  private readonly discovered = new Map<string, { document: Record<string, unknown> | undefined; current: boolean; openApiV3URL?: string }>();
  /** The last /openapi/v2 of each remote APIService's server, with a count of downloads (the merge's cache key). */
  private readonly openApiV2 = new Map<string, { spec: Record<string, unknown>; text: string; download: number }>();
  private openApiV2Downloads = 0;
  private generationTimer: NodeJS.Timeout | undefined;
  private syncedGeneration = -1;
  private syncing: Promise<void> | undefined;

  constructor(private readonly options: AggregatorOptions) {
    const storeFor = (resource: string): RESTStore | undefined => options.registry.storeFor('', resource);
    this.apiServices = options.registry.storeFor('apiregistration.k8s.io', 'apiservices')!;
    this.transports = new ProxyTransports(() => options.proxyClientCertificate);
    this.resolve = apiServiceResolver(storeFor, options.endpointRouting === true);
    this.availability = new AvailabilityController({
      apiServices: this.apiServices,
      services: storeFor('services')!,
      endpoints: storeFor('endpoints')!,
      resolve: this.resolve,
      transports: this.transports,
      logger: options.logger,
      now: options.now,
      ...(options.availabilityIntervalMs !== undefined ? { intervalMs: options.availabilityIntervalMs } : {}),
      onDiscovery: (name, document, openApiV3URL) => {
        const known = this.discovered.get(name);
        if (document !== undefined) this.discovered.set(name, { document, current: true, ...(openApiV3URL !== undefined ? { openApiV3URL } : {}) });
        else if (known !== undefined) known.current = false;
        else this.discovered.set(name, { document: undefined, current: false });
      },
      onOpenApiV2: (name, spec) => {
        // The same spec again keeps its key: the merged document (and its Etag) stays as it is.
        const text = JSON.stringify(spec);
        if (this.openApiV2.get(name)?.text !== text) this.openApiV2.set(name, { spec, text, download: ++this.openApiV2Downloads });
      },
    });
  }

  /** Registers the local APIServices, then starts the availability controller. */
  async start(): Promise<void> {
    await this.availability.start();
    if (this.options.localApiServices === false) return;
    await this.syncLocal();
    await this.availability.settle();
    // Custom resource group/versions come and go: their APIServices follow.
    this.generationTimer = setInterval(() => {
      if ((this.options.registry.generation?.() ?? 0) !== this.syncedGeneration) void this.syncLocal();
    }, 500);
    this.generationTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.generationTimer !== undefined) clearInterval(this.generationTimer);
    await this.syncing;
    await this.availability.stop();
    this.transports.close();
  }

  private syncLocal(): Promise<void> {
    if (this.syncing !== undefined) return this.syncing;
    const generation = this.options.registry.generation?.() ?? 0;
    const types = this.options.registry.stores.map((s) => s.type);
    this.syncing = syncLocalAPIServices(this.apiServices, types, (err, name) => this.options.logger.warn({ err, name }, 'keeping a local APIService failed'))
      .then(() => {
        this.syncedGeneration = generation;
      })
      .catch((err: unknown) => this.options.logger.warn({ err }, 'listing APIServices failed'))
      .finally(() => {
        this.syncing = undefined;
      });
    return this.syncing;
  }

  private cachedApiServices(): Readonly<KubeObject>[] {
    return this.apiServices.listCached?.('') ?? [];
  }

  /** The remote APIService for a group/version, if one is registered. */
  remoteFor(group: string, version: string): Readonly<KubeObject> | undefined {
    const svc = this.apiServices.getCached('', `${version}.${group}`);
    return svc !== undefined && isRemote(svc) ? svc : undefined;
  }

  /**
   * Proxies a request under /apis/GROUP/VERSION/… (or its OpenAPI v3 document,
   * /openapi/v3/apis/GROUP/VERSION) when an extension server owns that
   * group/version; false when it is ours to serve.
   */
  async serve(req: IncomingMessage, res: ServerResponse, path: string, user: UserInfo | undefined): Promise<boolean> {
    const segments = path.startsWith('/openapi/v3/apis/') ? path.slice('/openapi/v3'.length).split('/') : path.split('/');
    // ['', 'apis', group, version, …]
    if (segments[1] !== 'apis' || segments.length < 4 || segments[2] === '' || segments[3] === '') return false;
    const apiService = this.remoteFor(segments[2]!, segments[3]!);
    if (apiService === undefined) return false;
    if (availableCondition(apiService)?.status !== 'True') {
      writeText(req, res, 503, 'service unavailable\n');
      return true;
    }
    const spec = apiService['spec'] as APIServiceSpec;
    let target;
    try {
      target = await this.resolve(spec.service!.namespace ?? '', spec.service!.name ?? '', spec.service!.port ?? 443);
    } catch (err) {
      this.options.logger.warn({ err, apiService: apiService.metadata.name }, 'resolving an APIService failed');
      writeText(req, res, 503, 'service unavailable\n');
      return true;
    }
    await proxyRequest(req, res, { ...target, agent: this.transports.agentFor(spec) }, user ?? ANONYMOUS);
    return true;
  }

  /** The groups only extension servers serve, as /apis lists them (after ours). */
  remoteGroups(localTypes: readonly ResourceType[]): Record<string, unknown>[] {
    const local = new Set(localTypes.map((t) => t.group));
    return groupsOf(this.cachedApiServices().filter((s) => isRemote(s) && !local.has(((s['spec'] ?? {}) as APIServiceSpec).group ?? ''))).map(apiGroupDocument);
  }

  /** /apis/GROUP for a group only extension servers serve. */
  remoteGroup(group: string, localTypes: readonly ResourceType[]): Record<string, unknown> | undefined {
    if (localTypes.some((t) => t.group === group)) return undefined;
    const g = groupsOf(this.cachedApiServices().filter((s) => isRemote(s) && ((s['spec'] ?? {}) as APIServiceSpec).group === group))[0];
    return g === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...apiGroupDocument(g) };
  }

  /** The OpenAPI v3 discovery entries of the extension servers' available group/versions (their own URLs, proxied). */
  openApiV3Paths(): Record<string, { serverRelativeURL: string }> {
    const paths: Record<string, { serverRelativeURL: string }> = {};
    for (const svc of this.cachedApiServices()) {
      if (!isRemote(svc) || availableCondition(svc)?.status !== 'True') continue;
      const known = this.discovered.get(svc.metadata.name ?? '');
      const spec = svc['spec'] as APIServiceSpec;
      if (known?.openApiV3URL !== undefined) paths[`apis/${spec.group ?? ''}/${spec.version ?? ''}`] = { serverRelativeURL: known.openApiV3URL };
    }
    return paths;
  }

  /**
   * The /openapi/v2 specs of the available remote APIServices, in priority
   * order (group, then version), for the merge (openapi-v2.ts); `key` changes
   * whenever the list or a spec does.
   */
  openApiV2Specs(): { key: string; specs: Record<string, unknown>[] } {
    const specs: Record<string, unknown>[] = [];
    const keys: string[] = [];
    for (const g of groupsOf(this.cachedApiServices().filter((s) => isRemote(s) && availableCondition(s)?.status === 'True'))) {
      for (const v of g.versions) {
        const known = this.openApiV2.get(v.name);
        if (known === undefined) continue;
        specs.push(known.spec);
        keys.push(`${v.name}#${known.download}`);
      }
    }
    return { key: keys.join(','), specs };
  }

  /** Aggregated discovery entries of the extension servers' groups (those checked at least once). */
  aggregatedItems(localTypes: readonly ResourceType[]): Record<string, unknown>[] {
    const local = new Set(localTypes.map((t) => t.group));
    const items: Record<string, unknown>[] = [];
    for (const g of groupsOf(this.cachedApiServices().filter(isRemote))) {
      if (local.has(g.group)) continue;
      const versions: Record<string, unknown>[] = [];
      for (const v of g.versions) {
        const known = this.discovered.get(v.name);
        if (known === undefined) continue;
        // A version whose server never answered is listed Stale with no resources, as kube-aggregator lists it.
        versions.push(known.document === undefined ? { version: v.version, freshness: 'Stale' } : aggregatedVersion(v.version, known.document, known.current ? 'Current' : 'Stale'));
      }
      if (versions.length > 0) items.push({ metadata: { name: g.group, creationTimestamp: null }, versions });
    }
    return items;
  }
}
