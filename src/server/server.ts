// The API server process in one function: open the storage backend, build the
// registry on it, listen on node:http (keep-alive), write a kubeconfig that
// points kubectl at us, and stop cleanly (stop accepting, end watches, close
// the registry and the backend, in that order). The compactor runs for every
// backend (--etcd-compaction-interval; on etcd it coordinates with the other
// servers), and writes that expire (events) get the --event-ttl.

import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import type { Clock } from '../machinery/names.js';
import { createRegistry, type Registry } from '../registry/index.js';
import { HierarchyIndex } from '../tenancy/hierarchy-index.js';
import { HRQ_RESOURCE, hierarchicalQuotaAccess } from '../tenancy/hierarchical-quota.js';
import { HNC_GROUP } from '../api/hnc/v1alpha2/types.js';
import { HierarchyReconciler } from '../tenancy/reconciler.js';
import { TenancyAdmission } from '../tenancy/admission.js';
import { PropagationProtection } from '../tenancy/propagation-protection.js';
import { PropagationConflicts } from '../tenancy/propagation-conflicts.js';
import { ManagedMetadata } from '../tenancy/managed-metadata.js';
import { isStatusError } from '../machinery/errors.js';
import type { WatchCacheOptions } from '../storage/cacher/cacher.js';
import type { AdmissionPlugin } from '../admission/interface.js';
import { buildAdmissionChain } from '../admission/chain.js';
import { callWebhook, type ServiceResolver } from '../admission/webhook/client.js';
import { endpointsServiceResolver } from '../admission/webhook/service-resolver.js';
import type { AuthorizeFunction } from '../machinery/cel/library-authz.js';
import { loadResourceQuotaConfiguration } from '../admission/resource-quota-config.js';
import { StorageError, type Backend } from '../storage/interface.js';
import type { IdentityStore } from '../auth/pki/cluster-identity.js';
import { issueClientCertificate } from '../auth/pki/pki.js';
import { openBackend, type OpenBackendOptions } from '../storage/open.js';
import { DEFAULT_COMPACTION_INTERVAL_MS, startCompactor } from '../storage/compactor.js';
import { withEventTtl } from '../storage/event-ttl.js';
import { ServerMetrics, countKeys, instrumentBackend } from './metrics.js';
import { corruptValuesOf } from '../storage/corrupt-values.js';
import { featureEnabled } from './feature-gates.js';
import { responseCompression } from './response-compression.js';
import { LoopbackListener } from './loopback.js';
import { TlsFront, tlsTerminationMode } from './tls-front.js';
import { createApiHandler } from './routes.js';
import { WatchTracker, type WatchLimits } from './watch.js';
import { inProcessReads, type InProcessReads } from './in-process-reads.js';
import { CustomResourceServing, crdCatalogEntry, type ValidationRuleCompiler } from '../apiextensions/index.js';
import { setupSecurity, type SecurityOptions, type SecuritySetup } from './secure-serving.js';
import { SystemObjects, type EndpointReconcilerOptions } from './system-objects.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE } from '../registry/service-ip-allocator.js';
import { startFlowControl, type FlowControlSetup } from './flowcontrol/index.js';
import { Aggregator } from './aggregator/index.js';
import { KubeletClient, type KubeletClientOptions } from './proxy/kubelet.js';
import { acceptUpgrades } from './proxy/upgrade-aware.js';
import { AuthenticationConfigMapPublisher, authenticationConfigMapData } from './aggregator/authentication-configmap.js';
import { setAllowPrivileged } from '../api/core/v1/capabilities.js';

export type { SecurityOptions };

/**
 * Request headers a client may send: Go's http.Server default (MaxHeaderBytes
 * 1 MiB, plus the 4 KiB it allows beyond), which kube-apiserver keeps. Node's
 * default (16 KiB) refuses requests upstream serves, such as large bearer tokens.
 */
const MAX_HEADER_BYTES = (1 << 20) + 4096;

export interface ServerOptions {
  /** Health fails from the first request until awaitSystemNamespaces' promise settles (the controllers start after startServer returns). */
  awaitSystemNamespaces?: boolean;
  /** HNC's --managed-namespace-label regexes: namespace labels set only through HierarchyConfiguration spec.labels. */
  managedNamespaceLabels?: string[];
  /** HNC's --managed-namespace-annotation regexes: the same for annotations. */
  managedNamespaceAnnotations?: string[];
  /** Address to listen on (default 127.0.0.1). */
  bindAddress?: string;
  /** Port (default 6443); 0 picks a free port. */
  port?: number;
  /** Storage backend (default sqlite). */
  storage?: 'memory' | 'sqlite' | 'etcd';
  /** etcd client URLs (--etcd-servers); required when storage is etcd. */
  etcdServers?: string[];
  /**
   * --max-object-size-bytes: the largest object a write may store (key + stored value;
   * default 1.5 MiB, etcd's default --max-request-bytes: kube-apiserver on etcd stores no larger).
   */
  maxObjectSizeBytes?: number;
  /** --etcd-compaction-interval in ms (default 5 minutes); 0 disables compaction. */
  compactionIntervalMs?: number;
  /** --event-ttl in seconds: how long events are kept (default 3600). */
  eventTtlSeconds?: number;
  /** Where the sqlite file and the kubeconfig live (default ./.apiary for sqlite). */
  dataDir?: string;
  /** Key prefix in storage (default /registry). */
  etcdPrefix?: string;
  /** Write DATA_DIR/kubeconfig (default: whenever there is a data dir). */
  writeKubeconfig?: boolean;
  /** pino level: trace, debug, info, warn, error, fatal, silent (default info; request lines at debug). */
  logLevel?: string;
  /** Where the server logs (a pino logger; its level wins over logLevel). Default: stdout at logLevel. */
  logger?: Logger;
  clock?: Clock;
  /** Admission plugins run after the built-in chain (tests use this to make writes fail). */
  admission?: AdmissionPlugin[];
  /** --disable-admission-plugins: built-in plugins to leave out (src/admission/admission-plugins.ts). */
  disableAdmissionPlugins?: string[];
  /** --admission-control-config-file: an AdmissionConfiguration (the ResourceQuota entry's limitedResources are read). */
  admissionControlConfigFile?: string;
  /** Where admission webhooks' service references go (default: the Service's Endpoints addresses). */
  webhookServiceResolver?: ServiceResolver;
  /** Watch cache settings (history size, wait timeout), or false to serve every read from storage (default: on). */
  watchCache?: WatchCacheOptions | false;
  /** Interval of watch BOOKMARK events in ms (default 60 s, as upstream). */
  bookmarkIntervalMs?: number;
  /** --min-request-timeout in seconds: watches without timeoutSeconds end after 1–2× this (default 1800). */
  minRequestTimeoutSeconds?: number;
  /** Unsent bytes a watch may accumulate (beyond its initial events) before it is ended (default 8 MiB). */
  maxWatchBufferedBytes?: number;
  /** --service-cluster-ip-range: the IPv4 CIDR services' cluster IPs come from (default 10.0.0.0/24). */
  serviceClusterIpRange?: string;
  /**
   * --endpoint-reconciler-type: 'lease' keeps the `kubernetes` Service in `default` and its
   * Endpoints/EndpointSlice listing every running server (upstream's default); 'none' (the
   * library's default, so embedded servers start empty) leaves them out. `apiary serve` uses lease.
   */
  endpointReconcilerType?: 'lease' | 'none';
  /**
   * The kube-system objects a kube-apiserver keeps: its identity Lease (APIServerIdentity)
   * and the legacy service-account token tracking ConfigMap. Default false in the library
   * (embedded servers start empty); `apiary serve` turns it on.
   */
  controlPlaneObjects?: boolean;
  /** --advertise-address: the address the `kubernetes` endpoints list for this server (default: see advertiseAddressFor). */
  advertiseAddress?: string;
  /** The lease reconciler's interval and lease TTL (default 10 s and 15 s, as upstream); tests shorten them. */
  endpointReconcileIntervalMs?: number;
  masterLeaseTtlSeconds?: number;
  /** --service-node-port-range: where NodePort and LoadBalancer services' node ports come from (default 30000-32767). */
  serviceNodePortRange?: string;
  /**
   * Compiles CRDs' x-kubernetes-validations (CEL) rules (default: machinery/cel's
   * compileValidationRules).
   */
  validationRuleCompiler?: ValidationRuleCompiler;
  /**
   * --feature-gates: the gates apiary knows (FEATURE_GATES in feature-gates.ts)
   * by name; unset ones take their default.
   */
  featureGates?: Record<string, boolean>;
  /**
   * TLS, authentication (x509, tokens, service accounts, anonymous) and RBAC
   * (see secure-serving.ts). Absent: plain HTTP where every request is allowed,
   * as the library always did; `apiary serve` turns it on by default.
   */
  security?: SecurityOptions;
  /** --enable-priority-and-fairness (default true): API Priority and Fairness (src/server/flowcontrol). */
  enablePriorityAndFairness?: boolean;
  /** kube-apiserver's --allow-privileged: whether containers may be privileged (default false; process-wide, as upstream's). */
  allowPrivileged?: boolean;
  /** --max-requests-inflight and --max-mutating-requests-inflight: their sum is APF's server concurrency limit (default 400 + 200). */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** Between passes of APF's configuration producer (default 60 s, as upstream); tests shorten it. */
  apfConfigIntervalMs?: number;
  /** The longest a request waits in its APF queue before a 429 (default 15 s). */
  apfQueueWaitLimitMs?: number;
  /** --apf-loop-budget: the part of the event loop's time flows with a backlog share while a flow without one wants it (flowcontrol/loop-share.ts; default 0.2, 0 off). */
  apfLoopBudget?: number;
  /** --enable-aggregator-routing: extension servers are dialled at their Service's endpoints, not its cluster IP. */
  enableAggregatorRouting?: boolean;
  /** --proxy-client-cert-file / --proxy-client-key-file: what the aggregator presents to extension servers. */
  proxyClientCertFile?: string;
  proxyClientKeyFile?: string;
  /**
   * Keep the local APIServices of the served group/versions (`v1.`, `v1.apps`, …, and custom
   * resources'), as kube-apiserver does. Default: controlPlaneObjects (embedded servers start
   * empty and fast; `apiary serve` turns it on). Remote APIServices are served either way.
   */
  localApiServices?: boolean;
  /** Between the APIService availability controller's full passes (default 30 s); tests shorten it. */
  apiServiceAvailabilityIntervalMs?: number;
  /**
   * How kubelets are reached for pods/log, exec, attach, port-forward and nodes/proxy
   * (--kubelet-client-certificate, --kubelet-client-key, --kubelet-certificate-authority,
   * --kubelet-preferred-address-types).
   */
  kubelet?: KubeletClientOptions;
}

/** How a client reaches this server as the cluster admin (for in-process controllers). */
export interface AdminCredentials {
  server: string;
  caData?: string;
  certData?: string;
  keyData?: string;
  /** The loopback listener's socket (loopback.ts), with bearerToken. */
  socketPath?: string;
  bearerToken?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  dataDir?: string;
  kubeconfigPath?: string;
  /** The admin's connection settings (CA and client certificate when security is on). */
  admin: AdminCredentials;
  registry: Registry;
  /** The namespace tree (hnc.x-k8s.io HierarchyConfigurations and subnamespaces), kept from the stores. */
  hierarchy: HierarchyIndex;
  /**
   * Client credentials for another identity (CN = user, O = groups), issued by
   * the cluster CA; only with security on. apiary's controllers use them.
   */
  clientCredentials?(user: string, groups: string[]): Promise<AdminCredentials>;
  /**
   * Credentials for an in-process client on the loopback listener (plain HTTP
   * on a local socket, an in-memory token; see loopback.ts); only with
   * security on, on Linux. Preferred over clientCredentials where present.
   */
  loopbackCredentials?(user: string, groups: string[]): AdminCredentials;
  /** With security on: signs legacy service account tokens with the server's key (the tokens controller's signer). */
  signLegacyToken?: SecuritySetup['signLegacyToken'];
  /**
   * /healthz and /readyz fail their system-namespaces check until `created`
   * settles (the controller manager's systemNamespacesSynced), so a client that
   * waits for health finds kube-system, kube-public and default.
   */
  awaitSystemNamespaces(created: Promise<unknown>): void;
  /** Lists and watches for the controllers in this process, without HTTP (in-process-reads.ts). */
  inProcessReads: InProcessReads;
  /** For diagnostics (a test that waited in vain for a CRD to be established): the CRD controller's state. */
  describeCustomResources(): Record<string, unknown>;
  stop(): Promise<void>;
}

/** What /version reports: kubectl reads major, minor and gitVersion. */
export function versionInfo(): Record<string, string> {
  const arch = process.arch === 'x64' ? 'amd64' : process.arch;
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-apiary',
    gitCommit: '',
    gitTreeState: 'clean',
    buildDate: '1970-01-01T00:00:00Z',
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${arch}`,
  };
}

export function kubeconfigYaml(serverUrl: string, credentials: Omit<AdminCredentials, 'server'> = {}): string {
  const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: apiary',
    '  cluster:',
    `    server: ${serverUrl}`,
    ...(credentials.caData !== undefined ? [`    certificate-authority-data: ${b64(credentials.caData)}`] : []),
    // Plain HTTP has no certificate to check; @kubernetes/client-node refuses an
    // http:// cluster unless this is set, kubectl and client-go ignore it there.
    ...(serverUrl.startsWith('http://') ? ['    insecure-skip-tls-verify: true'] : []),
    'contexts:',
    '- name: apiary',
    '  context:',
    '    cluster: apiary',
    '    user: apiary',
    '    namespace: default',
    'current-context: apiary',
    'users:',
    '- name: apiary',
    ...(credentials.certData !== undefined && credentials.keyData !== undefined
      ? ['  user:', `    client-certificate-data: ${b64(credentials.certData)}`, `    client-key-data: ${b64(credentials.keyData)}`]
      : ['  user: {}']),
    'preferences: {}',
    '',
  ].join('\n');
}

/**
 * The address the `kubernetes` endpoints list for this server: --advertise-address,
 * else the bind address when it is a specific non-loopback one, else the host's first
 * non-internal IPv4 address (upstream's ChooseHostInterface, simplified). Undefined when
 * there is none: endpoints may not hold loopback addresses.
 */
export function advertiseAddressFor(bindAddress: string, advertise?: string): string | undefined {
  if (advertise !== undefined && advertise !== '') return advertise;
  const special = bindAddress === '0.0.0.0' || bindAddress === '::' || bindAddress === '' || bindAddress.startsWith('127.') || bindAddress === '::1';
  if (!special) return bindAddress;
  for (const infos of Object.values(os.networkInterfaces())) {
    for (const info of infos ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  }
  return undefined;
}

function urlHost(address: string): string {
  if (address === '0.0.0.0' || address === '') return '127.0.0.1';
  if (address === '::') return '[::1]';
  return address.includes(':') ? `[${address}]` : address;
}

export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const storage = options.storage ?? 'sqlite';
  const dataDir = options.dataDir ?? (storage === 'sqlite' ? path.resolve('.apiary') : undefined);
  const prefix = options.etcdPrefix ?? '/registry';
  // Read before anything is opened: a bad file fails the start cleanly.
  const quotaConfig =
    options.admissionControlConfigFile !== undefined ? loadResourceQuotaConfiguration(options.admissionControlConfigFile) : undefined;
  // The kubelet client's certificate files, likewise.
  const kubelet = new KubeletClient(options.kubelet ?? {});
  const logger: Logger = options.logger?.child({ component: 'apiserver' }) ?? pino({ level: options.logLevel ?? 'info', base: { component: 'apiserver' } });
  // HNC's managed label and annotation patterns: bad ones fail the start (before anything is opened), with HNC's message.
  const managedMetadata = ManagedMetadata.parse(options.managedNamespaceLabels, options.managedNamespaceAnnotations);

  let registryRef: Registry | undefined;
  const metrics = new ServerMetrics(async () => {
    const registry = registryRef;
    if (registry === undefined) return [];
    // Resources of the groups stored under their group's key (CRDs, custom resources) are counted
    // there and labelled resource.group, as upstream labels them.
    const keyed = new Map<string, string>();
    for (const s of registry.stores) {
      if (s.type.unstored === true) continue;
      const { group, resource } = s.type;
      if (group === '' || group === 'apps' || group === 'coordination.k8s.io' || group === 'events.k8s.io') keyed.set(resource, resource);
      else keyed.set(`${resource}.${group}`, `${group}/${resource}`);
    }
    return Promise.all([...keyed].map(async ([resource, key]) => ({ resource, count: await countKeys(backend, prefix, key) })));
  });
  const openOptions: OpenBackendOptions = { kind: storage };
  if (storage === 'sqlite' && dataDir !== undefined) openOptions.dataDir = dataDir;
  if (options.etcdServers !== undefined) openOptions.etcdServers = options.etcdServers;
  const rawBackend: Backend = await openBackend(openOptions);
  const compactionIntervalMs = options.compactionIntervalMs ?? DEFAULT_COMPACTION_INTERVAL_MS;
  const compactor =
    compactionIntervalMs > 0
      ? startCompactor(rawBackend, { intervalMs: compactionIntervalMs, onError: (err) => logger.warn({ err }, 'compaction failed') })
      : undefined;
  const backend = instrumentBackend(withEventTtl(rawBackend, options.eventTtlSeconds ?? 3600), metrics, prefix);
  // Stored values that cannot be decoded: counted per resource, logged once per key and revision.
  const corruptValues = corruptValuesOf(backend);
  corruptValues.unsafeDeletion = featureEnabled(options.featureGates, 'AllowUnsafeMalformedObjectDeletion');
  // One setting per process (responses are written by module functions): the server started last decides.
  responseCompression.enabled = featureEnabled(options.featureGates, 'APIResponseCompression');
  corruptValues.onFirstFailure(({ resource, key, revision, cause }) =>
    logger.error({ resource, key, revision, err: cause }, 'stored value cannot be decoded'),
  );
  metrics.countDecodeErrors(() => corruptValues.failures());
  if (options.maxObjectSizeBytes !== undefined) backend.maxObjectSizeBytes = options.maxObjectSizeBytes;
  // The admission chain (src/admission/chain.ts) reads through the registry it guards (in-process).
  // ServiceAccount admission needs what security brings (the `default` accounts its
  // controller makes, the token volume's kube-root-ca.crt): without security it is off.
  const disabledPlugins = [...(options.disableAdmissionPlugins ?? []), ...(options.security === undefined ? ['ServiceAccount'] : [])];
  // The authorizer exists once security is set up (below); policies ask it through this reference.
  let authorizeRef: AuthorizeFunction | undefined;
  // Admission webhooks and CRD conversion webhooks resolve `service` references the same way.
  // The namespace tree (hierarchical namespaces, src/tenancy/): one index shared by admission,
  // authorization and the tenancy hooks; it reads the registry built below and starts once it serves.
  const hierarchySource = { storeFor: (group: string, resource: string) => registry.storeFor(group, resource) };
  const hierarchy = new HierarchyIndex(hierarchySource, logger);
  const hierarchyReconciler = new HierarchyReconciler(hierarchySource, hierarchy, options.clock, logger, managedMetadata);
  const tenancyAdmission = new TenancyAdmission({
    hierarchy,
    authorize: () => authorizeRef,
    namespace: async (name) => {
      const namespaces = registry.storeFor('', 'namespaces')!;
      const cached = namespaces.getCached('', name);
      if (cached !== undefined) return cached;
      try {
        return await namespaces.get('', name, {});
      } catch (err) {
        if (isStatusError(err) && err.code === 404) return undefined;
        throw err;
      }
    },
    anchor: (namespace, name) => registry.storeFor('hnc.x-k8s.io', 'subnamespaceanchors')?.getCached(namespace, name),
    reparentConflicts: (namespace, newParent) => propagationConflicts.reparentConflicts(namespace, newParent),
    managed: managedMetadata,
  });
  // Propagated copies (hnc.x-k8s.io/inherited-from) are the propagation controller's alone.
  const propagationProtection = new PropagationProtection({ namespace: (name) => registry.storeFor('', 'namespaces')?.getCached('', name) });
  // A new or changed source that would overwrite a local object in a descendant: HNC's 409.
  const propagationConflicts = new PropagationConflicts({
    hierarchy: () => hierarchy,
    config: () => registry.storeFor(HNC_GROUP, 'hncconfigurations')?.getCached('', 'config'),
    namespace: (name) => registry.storeFor('', 'namespaces')?.getCached('', name),
    object: (group, resource, namespace, name) => registry.storeFor(group, resource)?.getCached(namespace, name),
    objects: (group, resource, namespace) => registry.storeFor(group, resource)?.listCached?.(namespace) ?? [],
    namespaceNames: () => (registry.storeFor('', 'namespaces')?.listCached?.('') ?? []).map((ns) => ns.metadata.name!),
    kindOf: (group, resource) => {
      const type = registry.storeFor(group, resource)?.type;
      return type === undefined ? undefined : { version: type.version, kind: type.kind };
    },
  });
  const webhookServiceResolver: ServiceResolver = options.webhookServiceResolver ?? endpointsServiceResolver((resource) => registry.storeFor('', resource));
  const admission = buildAdmissionChain(() => registry, {
    authorize: () => authorizeRef,
    disable: disabledPlugins,
    ...(quotaConfig !== undefined ? { resourceQuota: quotaConfig } : {}),
    // HierarchicalResourceQuotas are charged by the ResourceQuota plugin with each namespace's own quotas.
    hierarchicalQuota: hierarchicalQuotaAccess(() => registry.storeFor(HNC_GROUP, HRQ_RESOURCE), () => hierarchy),
    // The hierarchy's rules (src/tenancy/admission.ts) run before quota; the embedder's plugins after everything.
    tenancy: [tenancyAdmission, propagationProtection, propagationConflicts],
    extra: options.admission ?? [],
    webhookServiceResolver,
  });
  const crdOptions = {
    compiler: options.validationRuleCompiler,
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  };
  const registryOptions: Parameters<typeof createRegistry>[0] = {
    backend,
    prefix,
    admission,
    extraEntries: [crdCatalogEntry(crdOptions)],
  };
  if (options.clock !== undefined) registryOptions.clock = options.clock;
  if (options.watchCache !== undefined) registryOptions.watchCache = options.watchCache;
  if (options.bookmarkIntervalMs !== undefined) registryOptions.bookmarkIntervalMs = options.bookmarkIntervalMs;
  if (options.serviceClusterIpRange !== undefined) registryOptions.serviceClusterIpRange = options.serviceClusterIpRange;
  if (options.serviceNodePortRange !== undefined) registryOptions.serviceNodePortRange = options.serviceNodePortRange;
  setAllowPrivileged(options.allowPrivileged === true);
  const registry = createRegistry(registryOptions);
  registryRef = registry;
  // Serve once every watch cache holds its resource (reads fall back to storage until then anyway).
  await registry.ready;
  try {
    await hierarchy.start();
    await hierarchyReconciler.start();
  } catch (err) {
    hierarchyReconciler.stop();
    hierarchy.stop();
    await registry.close();
    await rawBackend.close();
    throw err;
  }
  // Custom resources of the CRDs already stored are served from the start.
  const customResources = new CustomResourceServing({
    registry,
    crdStore: registry.storeFor('apiextensions.k8s.io', 'customresourcedefinitions')!,
    compiler: crdOptions.compiler,
    logger,
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
    // Conversion webhooks go through the admission webhook client (caBundle, service references, timeouts).
    callConversionWebhook: (clientConfig, review, timeoutSeconds) =>
      callWebhook(clientConfig, review, { timeoutSeconds, resolveService: webhookServiceResolver }),
  });
  await customResources.start();
  // Admission plugins' informers (policies and their bindings) start once the registry serves.
  for (const p of admission) p.start?.();

  let security: SecuritySetup | undefined;
  // A start that fails past this point releases what it had started, in reverse order.
  const abandonStart = async (): Promise<void> => {
    security?.stop();
    compactor?.stop();
    customResources.stop();
    for (const p of admission) p.stop?.();
    hierarchyReconciler.stop();
    hierarchy.stop();
    await registry.close();
    await rawBackend.close();
  };
  if ((options.proxyClientCertFile === undefined) !== (options.proxyClientKeyFile === undefined)) {
    await abandonStart();
    throw new Error('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  }
  const proxyClient =
    options.proxyClientCertFile !== undefined && options.proxyClientKeyFile !== undefined
      ? { cert: fs.readFileSync(options.proxyClientCertFile, 'utf8'), key: fs.readFileSync(options.proxyClientKeyFile, 'utf8') }
      : undefined;
  if (options.security !== undefined) {
    const clock = options.clock;
    const securityDataDir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-pki-'));
    try {
      // The cluster identity is shared through the store, beside (not under) the resources' prefix.
      const identityKey = `/apiary-bootstrap${prefix}/identity`;
      const identityStore: IdentityStore = {
        read: async () => (await rawBackend.get(identityKey)).kv?.value,
        create: async (sealed) => {
          try {
            await rawBackend.create(identityKey, sealed);
            return true;
          } catch (err) {
            if (err instanceof StorageError && err.code === 'KeyExists') return false;
            throw err;
          }
        },
      };
      security = await setupSecurity(options.security, registry, securityDataDir, logger, () => (clock !== undefined ? clock().getTime() : Date.now()), identityStore, proxyClient);
      await security.start();
      // RoleBindings of ancestors apply in their descendants (hierarchical namespaces).
      security.useHierarchy(hierarchy);
      const authorizer = security.filters.authorizer;
      authorizeRef = (a) => authorizer.authorize(a);
    } catch (err) {
      await abandonStart();
      throw err;
    }
  }

  let flowControl: FlowControlSetup | undefined;
  if (options.enablePriorityAndFairness !== false) {
    try {
      flowControl = await startFlowControl({
        storeFor: (group, resource) => registry.storeFor(group, resource),
        metricsRegistry: metrics.registry,
        logger,
        ...(options.maxRequestsInflight !== undefined ? { maxRequestsInflight: options.maxRequestsInflight } : {}),
        ...(options.maxMutatingRequestsInflight !== undefined ? { maxMutatingRequestsInflight: options.maxMutatingRequestsInflight } : {}),
        ...(options.apfConfigIntervalMs !== undefined ? { configIntervalMs: options.apfConfigIntervalMs } : {}),
        ...(options.apfQueueWaitLimitMs !== undefined ? { queueWaitLimitMs: options.apfQueueWaitLimitMs } : {}),
        ...(options.apfLoopBudget !== undefined ? { loopBudget: options.apfLoopBudget } : {}),
      });
    } catch (err) {
      await abandonStart();
      throw err;
    }
  }

  const frontProxyClient = security?.frontProxy.proxyClient ?? proxyClient;
  const aggregator = new Aggregator({
    registry: security?.registryView ?? registry,
    logger,
    now: () => (options.clock !== undefined ? options.clock().getTime() : Date.now()),
    endpointRouting: options.enableAggregatorRouting === true,
    localApiServices: options.localApiServices ?? options.controlPlaneObjects === true,
    ...(frontProxyClient !== undefined ? { proxyClientCertificate: frontProxyClient } : {}),
    ...(options.apiServiceAvailabilityIntervalMs !== undefined ? { availabilityIntervalMs: options.apiServiceAvailabilityIntervalMs } : {}),
  });
  try {
    await aggregator.start();
  } catch (err) {
    await aggregator.stop();
    await flowControl?.stop();
    await abandonStart();
    throw err;
  }

  const watchLimits: WatchLimits = {};
  if (options.minRequestTimeoutSeconds !== undefined) watchLimits.minRequestTimeoutSeconds = options.minRequestTimeoutSeconds;
  if (options.maxWatchBufferedBytes !== undefined) watchLimits.maxBufferedBytes = options.maxWatchBufferedBytes;
  const watches = new WatchTracker(watchLimits);
  let ready = false;
  let systemNamespacesReady = options.awaitSystemNamespaces !== true;
  let address = '127.0.0.1:0';
  const loopback = security !== undefined ? new LoopbackListener() : undefined;
  const handler = createApiHandler({
    registry: security?.registryView ?? registry,
    ...(security !== undefined ? { security: { ...security.filters, loopback }, extraRoutes: security.extraRoutes } : {}),
    watches,
    metrics,
    logger,
    ...(flowControl !== undefined ? { flowControl: flowControl.filter } : {}),
    aggregator,
    serverAddress: () => address,
    isReady: () => ready,
    systemNamespacesReady: () => systemNamespacesReady,
    storageHealth: async () => {
      await backend.currentRevision();
    },
    version: versionInfo(),
    allowUnsafeMalformedObjectDeletion: corruptValues.unsafeDeletion,
    kubelet,
  });
  const tls = security?.tls;
  const termination = tls !== undefined ? tlsTerminationMode(options.security?.tlsTermination) : undefined;
  // Watches are long-running: node's default 5-minute request timeout must not cut them.
  // Client certificates are asked for but not required: a request without one is authenticated otherwise (or anonymous).
  const server =
    tls !== undefined && termination === 'inline'
      ? https.createServer({ keepAlive: true, requestTimeout: 0, maxHeaderSize: MAX_HEADER_BYTES, key: tls.key, cert: tls.cert, ca: tls.ca, requestCert: true, rejectUnauthorized: false }, handler)
      : http.createServer({ keepAlive: true, requestTimeout: 0, maxHeaderSize: MAX_HEADER_BYTES }, handler);
  server.keepAliveTimeout = 65_000;
  // exec, attach and port-forward (and upgrades to extension servers) come as upgrade requests.
  const upgrades = acceptUpgrades(server, handler);

  const bindAddress = options.bindAddress ?? '127.0.0.1';
  let front: TlsFront | undefined;
  let port: number;
  try {
    if (tls !== undefined && termination === 'process') {
      front = await TlsFront.start(server, { host: bindAddress, port: options.port ?? 6443, tls, logger });
      port = front.port;
    } else {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 6443, bindAddress, () => {
          server.off('error', reject);
          resolve();
        });
      });
      port = (server.address() as AddressInfo).port;
    }
  } catch (err) {
    await aggregator.stop();
    await flowControl?.stop();
    await abandonStart();
    throw err;
  }
  const url = `${tls !== undefined ? 'https' : 'http'}://${urlHost(bindAddress)}:${port}`;
  const loopbackListening = loopback !== undefined && (await loopback.listen(handler));
  const admin: AdminCredentials = { server: url };
  if (security !== undefined) {
    admin.caData = security.pki.caCertPem;
    admin.certData = security.pki.adminCertPem;
    admin.keyData = security.pki.adminKeyPem;
  }
  address = `${urlHost(bindAddress)}:${port}`;

  let kubeconfigPath: string | undefined;
  if (dataDir !== undefined && options.writeKubeconfig !== false) {
    fs.mkdirSync(dataDir, { recursive: true });
    kubeconfigPath = path.join(dataDir, 'kubeconfig');
    fs.writeFileSync(kubeconfigPath, kubeconfigYaml(url, tls !== undefined ? admin : {}), { mode: 0o600 });
  }
  // What a kube-apiserver keeps in place itself: the system priority classes and, with the
  // lease reconciler, the kubernetes Service and its endpoints.
  let endpoints: EndpointReconcilerOptions | undefined;
  if ((options.endpointReconcilerType ?? 'none') === 'lease') {
    const advertised = advertiseAddressFor(bindAddress, options.advertiseAddress);
    if (advertised === undefined) logger.warn({ bindAddress }, 'no address to advertise: the kubernetes service gets no endpoints (set --advertise-address)');
    else {
      endpoints = { advertiseAddress: advertised, port, serviceClusterIpRange: options.serviceClusterIpRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE };
      if (options.masterLeaseTtlSeconds !== undefined) endpoints.leaseTtlSeconds = options.masterLeaseTtlSeconds;
    }
  }
  const systemObjects = new SystemObjects({
    registry,
    backend: rawBackend,
    prefix,
    logger,
    identity: options.controlPlaneObjects === true,
    ...(endpoints !== undefined ? { endpoints } : {}),
    ...(options.endpointReconcileIntervalMs !== undefined ? { intervalMs: options.endpointReconcileIntervalMs } : {}),
  });
  await systemObjects.start();
  // How extension servers authenticate us: published once kube-system exists (its controller makes it).
  const authenticationConfigMap =
    security !== undefined
      ? new AuthenticationConfigMapPublisher(registry.storeFor('', 'configmaps')!, authenticationConfigMapData(security.frontProxy.clientCaPem, security.frontProxy.requestHeader), logger)
      : undefined;
  authenticationConfigMap?.start();

  ready = true;
  logger.info({ url, storage, dataDir }, 'apiserver listening');

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      ready = false;
      front?.stopAccepting();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      watches.endAll();
      server.closeIdleConnections();
      // Requests in flight get a moment to finish; then every connection goes.
      const grace = setTimeout(() => {
        server.closeAllConnections();
        // Upgraded connections (exec sessions, port-forwards) are no longer the HTTP server's to close.
        upgrades.closeAll();
      }, 2000);
      grace.unref();
      await closed;
      clearTimeout(grace);
      await front?.close();
      await loopback?.close();
      await systemObjects.stop();
      await authenticationConfigMap?.stop();
      await aggregator.stop();
      kubelet.close();
      await flowControl?.stop();
      security?.stop();
      compactor?.stop();
      customResources.stop();
      // Plugins with work of their own (the webhook configuration watches).
      for (const plugin of admission) (plugin as { stop?: () => void }).stop?.();
      hierarchyReconciler.stop();
      hierarchy.stop();
      await registry.close();
      await rawBackend.close();
      logger.info('apiserver stopped');
    })());

  const awaitSystemNamespaces = (created: Promise<unknown>): void => {
    systemNamespacesReady = false;
    const settle = (): void => {
      systemNamespacesReady = true;
    };
    created.then(settle, settle);
  };
  const running: RunningServer = {
    url,
    port,
    registry,
    hierarchy,
    admin,
    awaitSystemNamespaces,
    inProcessReads: inProcessReads(security?.registryView ?? registry, watches, { remote: (g, v) => aggregator.remoteFor(g, v) !== undefined }),
    describeCustomResources: () => customResources.describe(),
    stop,
  };
  if (security !== undefined) {
    const pki = security.pki;
    running.clientCredentials = async (user, groups) => {
      const issued = await issueClientCertificate({ certPem: pki.caCertPem, keyPem: pki.caKeyPem }, user, groups);
      return { server: url, caData: pki.caCertPem, certData: issued.certPem, keyData: issued.keyPem };
    };
    if (loopbackListening) running.loopbackCredentials = (user, groups) => loopback!.credentials(user, groups)!;
    running.signLegacyToken = security.signLegacyToken;
  }
  if (dataDir !== undefined) running.dataDir = dataDir;
  if (kubeconfigPath !== undefined) running.kubeconfigPath = kubeconfigPath;
  return running;
}
