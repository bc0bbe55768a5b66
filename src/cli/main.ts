#!/usr/bin/env node
// The apiary command.
//
//   apiary serve [--data-dir DIR] [--bind-address ADDR] [--secure-port N] [--storage sqlite|memory|etcd]
//                [--etcd-servers URL,...] [--etcd-prefix PREFIX] [--etcd-compaction-interval DUR]
//                [--event-ttl DUR] [--service-cluster-ip-range CIDR] [--service-node-port-range RANGE]
//                [--endpoint-reconciler-type lease|none] [--advertise-address IP]
//                [--log-level LEVEL] [TLS, authentication and authorization flags]
//                [controller and --leader-elect* flags]
//
// Secure by default: HTTPS with the cluster's generated certificates,
// authentication and RBAC; --insecure-serving is plain HTTP with every request
// allowed, for tests only.
//
// `serve` runs the API server until SIGTERM or SIGINT, then shuts down cleanly
// (stop accepting, end watches, flush and close the store) and exits 0.
// Flags mirror kube-apiserver's names where one exists.

import { kubeletOptionsFrom } from './kubelet-flags.js';
import { parseArgs } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { startServer, type SecurityOptions, type ServerOptions } from '../server/server.js';
import { collectWhenSettled } from '../storage/startup-gc.js';
import { parseDurationFlag } from './duration.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, parseIPv4CIDR } from '../registry/service-ip-allocator.js';
import { DEFAULT_SERVICE_NODE_PORT_RANGE, parsePortRange } from '../registry/service-node-port-allocator.js';
import { exitOnSignals, waitAtMost } from './lifecycle.js';
import { normalizeVerbosityArgs, resolveLogLevel } from './verbosity.js';
import { kubeApiserverCommand } from './kube-apiserver.js';
import { RestClient } from '../client/index.js';
import { controllerIdentities } from './controller-identities.js';
import type { RunningControllerManager } from '../controllers/manager.js';
import { applyControllerSelection, parseControllersFlag, type ControllerSelection } from './controller-selection.js';
import { CONTROLLER_FLAGS_USAGE, controllerFlagOptions, controllerManagerCommand, controllerOptionsFromFlags } from './controller-manager.js';
import { parseAdmissionPluginFlags } from '../admission/admission-plugins.js';
import {
  LEADER_ELECTION_FLAGS_USAGE,
  type LeaderElectionSettings,
  leaderElectionFlagOptions,
  leaderElectionFromFlags,
  startLeaderElectedControllers,
} from './leader-elected-controllers.js';

import { parseFeatureGates } from '../server/feature-gates.js';
import { installProcessGuard } from '../server/process-guard.js';

const USAGE = `Usage: apiary serve [flags]
       apiary controller-manager --kubeconfig FILE [flags]
       apiary kube-apiserver [kube-apiserver's flags]   (see apiary kube-apiserver --help)

Flags:
  --data-dir DIR          where the sqlite store and kubeconfig live (default ./.apiary)
  --bind-address ADDR     address to listen on (default 127.0.0.1)
  --secure-port N         HTTPS port to listen on; 0 picks a free one (default 6443)
  --port N                the same as --secure-port (kept for existing scripts)
  --storage KIND          sqlite | memory | etcd (default sqlite)
  --etcd-servers URLS     etcd client URLs, comma-separated (with --storage etcd)
  --etcd-prefix PREFIX    key prefix in storage (default /registry)
  --etcd-compaction-interval DUR
                          how often old revisions are compacted; 0 disables (default 5m)
  --event-ttl DUR         how long events are kept (default 1h)
  --max-object-size-bytes N
                          the largest object a write may store (default 1572864, etcd's request limit)
  --service-cluster-ip-range CIDR
                          the IPv4 range services' cluster IPs come from (default 10.0.0.0/24)
  --service-node-port-range RANGE
                          the ports NodePort services get (default 30000-32767)
  --endpoint-reconciler-type TYPE
                          lease: keep the kubernetes Service and its endpoints listing every running
                          server (default); none: leave them out
  --advertise-address IP  the address the kubernetes endpoints list for this server (default: the
                          bind address, or the host's first non-loopback IPv4 address)
  --feature-gates GATES   A=true,B=false: kube-apiserver feature gates apiary honours
                          (AllowUnsafeMalformedObjectDeletion, default false)
  --allow-privileged BOOL  whether containers may run privileged (default false, as kube-apiserver)
  --enable-priority-and-fairness BOOL
                          API Priority and Fairness: classify requests by FlowSchema, limit them per
                          priority level, queue fairly (default true)
  --max-requests-inflight N
  --max-mutating-requests-inflight N
                          their sum is the concurrency limit APF shares among priority levels
                          (defaults 400 and 200)
  --apf-loop-budget FRACTION
                          apiary's own: while a flow without a backlog wants the event loop, flows
                          with a backlog are held to their parts of this fraction of its time
                          (default 0.2; 0: off, flows share the loop by requests in flight only)
  --log-level LEVEL       trace | debug | info | warn | error | silent (default info: start, stop,
                          warnings and errors; one line per request at debug)
  -v, --v N               kube-apiserver's verbosity: 0-2 info, 3-5 debug (request lines), 6+ trace
  --admission-control-config-file FILE
                          an AdmissionConfiguration (ResourceQuota's limitedResources)
  --enable-admission-plugins NAMES
                          admission plugins to enable besides the default ones (all of apiary's
                          are on by default: NamespaceLifecycle, LimitRanger, ServiceAccount,
                          TaintNodesByCondition, PodSecurity, Priority, DefaultTolerationSeconds,
                          DefaultStorageClass, StorageObjectInUseProtection, PersistentVolumeClaimResize,
                          RuntimeClass, CertificateApproval, CertificateSigning,
                          CertificateSubjectRestriction, DefaultIngressClass, MutatingAdmissionWebhook,
                          ValidatingAdmissionPolicy, ValidatingAdmissionWebhook, ResourceQuota)
  --disable-admission-plugins NAMES
                          admission plugins to turn off (any name kube-apiserver knows)
  --controllers LIST      true (default), false, or kube-controller-manager's syntax to leave some to it:
                          '*,-namespace-controller,-garbage-collector-controller' (selectable: namespace,
                          resourcequota, garbage-collector, persistentvolumeclaim-protection, serviceaccount,
                          root-ca-certificate-publisher, each with the -controller suffix)

Security (kube-apiserver's flags):
  --tls-cert-file FILE, --tls-private-key-file FILE
                          serving certificate and key (default: generated in DATA_DIR/pki from the cluster CA)
  --tls-sans LIST         more DNS names and IPs for the generated serving certificate, comma-separated
  --tls-termination MODE  where TLS is done: process (a front process on another core), inline (in the
                          apiserver's thread) or auto (default: process on Linux with more than one core)
  --client-ca-file FILE   CA bundle client certificates are checked against (besides the cluster CA)
  --token-auth-file FILE  static bearer tokens: CSV token,user,uid[,"group1,group2"]
  --service-account-issuer URL
                          iss of service-account tokens (default https://kubernetes.default.svc.cluster.local)
  --anonymous-auth BOOL   requests without credentials are system:anonymous (default true)
  --authorization-mode M  RBAC | AlwaysAllow (default RBAC)
  --namespace-list-filtering BOOL
                          a user without the cluster-wide right to list namespaces lists and watches the
                          namespaces where RBAC lets them do something, instead of a 403 (default true;
                          false answers 403 as kube-apiserver)
  --managed-namespace-label REGEX
                          labels on namespaces that only HierarchyConfiguration (or anchor) spec.labels set,
                          copied to every descendant (HNC's flag; implicitly ^...$; repeatable)
  --managed-namespace-annotation REGEX
                          the same for annotations (spec.annotations)
  --audit-log-path FILE   append an audit.k8s.io/v1 event (level Metadata) per write, one JSON line each
  --token TOKEN           the cluster token: servers on one store share one identity (CA, service-account
                          keys) sealed with it; the first server makes it and keeps it in DATA_DIR/token,
                          the others need it (a missing or wrong token stops the start)
  --insecure-serving      plain HTTP, no authentication, every request allowed: for tests only, never in production

Aggregation (kube-apiserver's flags):
  --proxy-client-cert-file FILE, --proxy-client-key-file FILE
                          the client certificate presented to extension API servers (default: the
                          front-proxy-client made in DATA_DIR/pki, as kubeadm lays it out)
  --requestheader-client-ca-file FILE
                          front proxies' CA: their X-Remote-* headers name the user (default: the
                          generated front-proxy CA, unless a proxy client certificate is given)
  --requestheader-allowed-names LIST
                          common names a front proxy's certificate may have (empty: any)
  --requestheader-username-headers LIST, --requestheader-group-headers LIST,
  --requestheader-extra-headers-prefix LIST
                          the headers read (default X-Remote-User, X-Remote-Group, X-Remote-Extra-)
  --enable-aggregator-routing BOOL
                          dial extension servers at their Service's endpoints, not its cluster IP
                          (default false; an ExternalName Service is dialled at its name)

Kubelets (pods/log, exec, attach, port-forward, nodes/proxy; kube-apiserver's flags):
  --kubelet-client-certificate FILE, --kubelet-client-key FILE
                          the client certificate presented to kubelets
  --kubelet-certificate-authority FILE
                          the CA kubelets' serving certificates are verified against (unset: not verified)
  --kubelet-preferred-address-types LIST
                          which node address to dial (default Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP)
${CONTROLLER_FLAGS_USAGE}${LEADER_ELECTION_FLAGS_USAGE}`;

function fail(message: string): never {
  process.stderr.write(`apiary: ${message}\n\n${USAGE}`);
  process.exit(2);
}

/** The first usable IP of the service range (the `kubernetes` service's, a SAN of the serving certificate). */
function firstServiceIp(cidr: string): string {
  const [base] = cidr.split('/');
  const parts = base!.split('.').map(Number);
  parts[3] = parts[3]! + 1;
  return parts.join('.');
}

async function serve(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: normalizeVerbosityArgs(argv),
      options: {
        'data-dir': { type: 'string', default: './.apiary' },
        'bind-address': { type: 'string', default: '127.0.0.1' },
        port: { type: 'string' },
        'secure-port': { type: 'string' },
        'tls-cert-file': { type: 'string' },
        'tls-private-key-file': { type: 'string' },
        'tls-sans': { type: 'string', default: '' },
        'tls-termination': { type: 'string', default: 'auto' },
        'client-ca-file': { type: 'string' },
        'token-auth-file': { type: 'string' },
        'service-account-issuer': { type: 'string' },
        'anonymous-auth': { type: 'string', default: 'true' },
        'authorization-mode': { type: 'string', default: 'RBAC' },
        'namespace-list-filtering': { type: 'string', default: 'true' },
        'managed-namespace-label': { type: 'string', multiple: true, default: [] },
        'managed-namespace-annotation': { type: 'string', multiple: true, default: [] },
        'insecure-serving': { type: 'boolean', default: false },
        'proxy-client-cert-file': { type: 'string' },
        'proxy-client-key-file': { type: 'string' },
        'requestheader-client-ca-file': { type: 'string' },
        'requestheader-allowed-names': { type: 'string' },
        'requestheader-username-headers': { type: 'string' },
        'requestheader-group-headers': { type: 'string' },
        'requestheader-extra-headers-prefix': { type: 'string' },
        'enable-aggregator-routing': { type: 'string', default: 'false' },
        'kubelet-client-certificate': { type: 'string' },
        'kubelet-client-key': { type: 'string' },
        'kubelet-certificate-authority': { type: 'string' },
        'kubelet-preferred-address-types': { type: 'string' },
        'audit-log-path': { type: 'string' },
        token: { type: 'string' },
        storage: { type: 'string', default: 'sqlite' },
        'etcd-servers': { type: 'string', default: '' },
        'etcd-prefix': { type: 'string', default: '/registry' },
        'etcd-compaction-interval': { type: 'string', default: '5m' },
        'event-ttl': { type: 'string', default: '1h' },
        'max-object-size-bytes': { type: 'string' },
        'service-cluster-ip-range': { type: 'string', default: DEFAULT_SERVICE_CLUSTER_IP_RANGE },
        'service-node-port-range': { type: 'string', default: DEFAULT_SERVICE_NODE_PORT_RANGE },
        'endpoint-reconciler-type': { type: 'string', default: 'lease' },
        'advertise-address': { type: 'string' },
        'log-level': { type: 'string' },
        v: { type: 'string' },
        'feature-gates': { type: 'string', default: '' },
        'enable-priority-and-fairness': { type: 'string', default: 'true' },
        'allow-privileged': { type: 'string', default: 'false' },
        'max-requests-inflight': { type: 'string', default: '400' },
        'max-mutating-requests-inflight': { type: 'string', default: '200' },
        'apf-loop-budget': { type: 'string', default: '0.2' },
        'admission-control-config-file': { type: 'string', default: '' },
        'disable-admission-plugins': { type: 'string', default: '' },
        'enable-admission-plugins': { type: 'string', default: '' },
        controllers: { type: 'string', default: 'true' },
        ...controllerFlagOptions,
        ...leaderElectionFlagOptions,
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  let logLevel = 'info';
  try {
    logLevel = resolveLogLevel(values['log-level'], values.v);
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.port !== undefined && values['secure-port'] !== undefined && values.port !== values['secure-port']) {
    fail('--port is an alias of --secure-port: give one of them');
  }
  const portText = values['secure-port'] ?? values.port ?? '6443';
  const port = Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --secure-port ${JSON.stringify(portText)}`);
  const authorizationMode = values['authorization-mode'];
  if (authorizationMode !== 'RBAC' && authorizationMode !== 'AlwaysAllow') fail(`invalid --authorization-mode ${JSON.stringify(authorizationMode)}: want RBAC or AlwaysAllow`);
  if (values['namespace-list-filtering'] !== 'true' && values['namespace-list-filtering'] !== 'false') {
    fail(`invalid --namespace-list-filtering ${JSON.stringify(values['namespace-list-filtering'])}: want true or false`);
  }
  if (values['anonymous-auth'] !== 'true' && values['anonymous-auth'] !== 'false') fail(`invalid --anonymous-auth ${JSON.stringify(values['anonymous-auth'])}: want true or false`);
  const storage = values.storage;
  if (storage !== 'sqlite' && storage !== 'memory' && storage !== 'etcd') {
    fail(`invalid --storage ${JSON.stringify(storage)}: want sqlite, memory or etcd`);
  }
  const etcdServers = values['etcd-servers'].split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (storage === 'etcd' && etcdServers.length === 0) fail('--storage etcd needs --etcd-servers');
  const duration = (flag: string, text: string): number => {
    try {
      return parseDurationFlag(flag, text);
    } catch (err) {
      fail(err instanceof Error ? err.message : String(err));
    }
  };
  const compactionIntervalMs = duration('etcd-compaction-interval', values['etcd-compaction-interval']);
  const eventTtlMs = duration('event-ttl', values['event-ttl']);
  if (eventTtlMs < 1000) fail(`invalid --event-ttl ${JSON.stringify(values['event-ttl'])}: must be at least 1s`);

  try {
    parseIPv4CIDR(values['service-cluster-ip-range']);
  } catch (err) {
    fail(`invalid --service-cluster-ip-range ${JSON.stringify(values['service-cluster-ip-range'])}: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    parsePortRange(values['service-node-port-range']);
  } catch (err) {
    fail(`invalid --service-node-port-range ${JSON.stringify(values['service-node-port-range'])}: ${err instanceof Error ? err.message : String(err)}`);
  }

  let featureGates: Record<string, boolean> = {};
  try {
    featureGates = parseFeatureGates(values['feature-gates']);
  } catch (err) {
    fail(`invalid argument ${JSON.stringify(values['feature-gates'])} for "--feature-gates" flag: ${(err as Error).message}`);
  }

  const options: ServerOptions = {
    featureGates,
    bindAddress: values['bind-address'],
    port,
    storage,
    dataDir: path.resolve(values['data-dir']),
    etcdPrefix: values['etcd-prefix'],
    compactionIntervalMs,
    eventTtlSeconds: Math.round(eventTtlMs / 1000),
    logLevel,
    serviceClusterIpRange: values['service-cluster-ip-range'],
    serviceNodePortRange: values['service-node-port-range'],
  };
  const maxObjectSize = values['max-object-size-bytes'];
  if (maxObjectSize !== undefined) {
    const bytes = Number(maxObjectSize);
    if (!/^\d+$/.test(maxObjectSize) || !Number.isSafeInteger(bytes) || bytes < 1) fail(`invalid --max-object-size-bytes ${JSON.stringify(maxObjectSize)}: want a positive number of bytes`);
    options.maxObjectSizeBytes = bytes;
  }
  const apf = values['enable-priority-and-fairness'];
  if (apf !== 'true' && apf !== 'false') fail(`invalid --enable-priority-and-fairness ${JSON.stringify(apf)}: want true or false`);
  options.enablePriorityAndFairness = apf === 'true';
  const privileged = values['allow-privileged'];
  if (privileged !== 'true' && privileged !== 'false') fail(`invalid --allow-privileged ${JSON.stringify(privileged)}: want true or false`);
  options.allowPrivileged = privileged === 'true';
  for (const flag of ['max-requests-inflight', 'max-mutating-requests-inflight'] as const) {
    const n = Number(values[flag]);
    if (!Number.isInteger(n) || n < 0) fail(`invalid --${flag} ${JSON.stringify(values[flag])}: want a non-negative integer`);
    if (flag === 'max-requests-inflight') options.maxRequestsInflight = n;
    else options.maxMutatingRequestsInflight = n;
  }
  const loopBudget = Number(values['apf-loop-budget']);
  if (!/^\d*\.?\d+$/.test(values['apf-loop-budget']) || !(loopBudget >= 0 && loopBudget <= 1)) fail(`invalid --apf-loop-budget ${JSON.stringify(values['apf-loop-budget'])}: want a fraction from 0 (off) to 1`);
  options.apfLoopBudget = loopBudget;
  if ((options.maxRequestsInflight ?? 0) + (options.maxMutatingRequestsInflight ?? 0) === 0 && options.enablePriorityAndFairness) {
    fail('--max-requests-inflight plus --max-mutating-requests-inflight must be positive with priority and fairness enabled');
  }
  const reconciler = values['endpoint-reconciler-type'];
  if (reconciler !== 'lease' && reconciler !== 'none') fail(`invalid --endpoint-reconciler-type ${JSON.stringify(reconciler)}: want lease or none`);
  options.endpointReconcilerType = reconciler;
  // The kube-system objects a control plane keeps (identity lease, token tracking).
  options.controlPlaneObjects = true;
  if (values['advertise-address'] !== undefined) options.advertiseAddress = values['advertise-address'];
  if (etcdServers.length > 0) options.etcdServers = etcdServers;
  if (values['managed-namespace-label'].length > 0) options.managedNamespaceLabels = values['managed-namespace-label'];
  if (values['managed-namespace-annotation'].length > 0) options.managedNamespaceAnnotations = values['managed-namespace-annotation'];
  if (values['admission-control-config-file'] !== '') options.admissionControlConfigFile = path.resolve(values['admission-control-config-file']);
  let disabled: string[] = [];
  try {
    disabled = parseAdmissionPluginFlags(values['enable-admission-plugins'], values['disable-admission-plugins']).disabled;
  } catch (err) {
    fail((err as Error).message);
  }
  if (disabled.length > 0) options.disableAdmissionPlugins = disabled;
  if (!values['insecure-serving']) {
    const security: SecurityOptions = {
      tlsSans: values['tls-sans'].split(',').map((s) => s.trim()).filter((s) => s !== ''),
      anonymousAuth: values['anonymous-auth'] === 'true',
      authorizationMode,
      namespaceListFiltering: values['namespace-list-filtering'] === 'true',
      serviceIp: firstServiceIp(values['service-cluster-ip-range']),
    };
    const termination = values['tls-termination'];
    if (termination !== 'auto' && termination !== 'process' && termination !== 'inline') fail(`invalid --tls-termination ${JSON.stringify(termination)}: auto, process or inline`);
    security.tlsTermination = termination;
    if (values['tls-cert-file'] !== undefined) security.tlsCertFile = values['tls-cert-file'];
    if (values['tls-private-key-file'] !== undefined) security.tlsPrivateKeyFile = values['tls-private-key-file'];
    if ((security.tlsCertFile === undefined) !== (security.tlsPrivateKeyFile === undefined)) fail('--tls-cert-file and --tls-private-key-file must be given together');
    if (values['client-ca-file'] !== undefined) security.clientCaFile = values['client-ca-file'];
    if (values['token-auth-file'] !== undefined) security.tokenAuthFile = values['token-auth-file'];
    if (values['service-account-issuer'] !== undefined) security.serviceAccountIssuer = values['service-account-issuer'];
    if (values['audit-log-path'] !== undefined) security.auditLogPath = path.resolve(values['audit-log-path']);
    if (values.token !== undefined) security.token = values.token;
    const list = (v: string): string[] => v.split(',').map((s) => s.trim()).filter((s) => s !== '');
    if (values['requestheader-client-ca-file'] !== undefined) security.requestheaderClientCaFile = values['requestheader-client-ca-file'];
    if (values['requestheader-allowed-names'] !== undefined) security.requestheaderAllowedNames = list(values['requestheader-allowed-names']);
    if (values['requestheader-username-headers'] !== undefined) security.requestheaderUsernameHeaders = list(values['requestheader-username-headers']);
    if (values['requestheader-group-headers'] !== undefined) security.requestheaderGroupHeaders = list(values['requestheader-group-headers']);
    if (values['requestheader-extra-headers-prefix'] !== undefined) security.requestheaderExtraHeadersPrefix = list(values['requestheader-extra-headers-prefix']);
    options.security = security;
  }
  if ((values['proxy-client-cert-file'] === undefined) !== (values['proxy-client-key-file'] === undefined)) fail('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  if (values['proxy-client-cert-file'] !== undefined) options.proxyClientCertFile = path.resolve(values['proxy-client-cert-file']);
  if (values['proxy-client-key-file'] !== undefined) options.proxyClientKeyFile = path.resolve(values['proxy-client-key-file']);
  const aggregatorRouting = values['enable-aggregator-routing'];
  if (aggregatorRouting !== 'true' && aggregatorRouting !== 'false') fail(`invalid --enable-aggregator-routing ${JSON.stringify(aggregatorRouting)}: want true or false`);
  options.enableAggregatorRouting = aggregatorRouting === 'true';
  const kubelet = kubeletOptionsFrom((name) => values[name as 'kubelet-client-key'], fail);
  if (kubelet !== undefined) options.kubelet = kubelet;
  let selection: ControllerSelection = { run: false };
  try {
    selection = parseControllersFlag(values.controllers);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  let controllerOptions: ReturnType<typeof controllerOptionsFromFlags> | undefined;
  let election: LeaderElectionSettings | undefined;
  try {
    if (selection.run) {
      controllerOptions = controllerOptionsFromFlags(values);
      election = leaderElectionFromFlags(values);
    }
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const server = await startServer(options);
  // The controllers reach the server over loopback HTTP, as kube-controller-manager does.
  let controllers: { manager: RunningControllerManager; close(): Promise<void> } | undefined;
  if (controllerOptions !== undefined && election !== undefined) {
    const userAgent = 'apiary-controller-manager';
    // With security on, each controller acts as its own least-privilege identity (controller-identities.ts).
    // On the loopback listener when the server has one (plain HTTP in-process, src/server/loopback.ts), else certificates over TLS.
    const loopback = server.loopbackCredentials;
    const issue = loopback !== undefined ? async (user: string, groups: string[]) => loopback(user, groups) : server.clientCredentials;
    const apiserverIdentity = loopback?.('system:apiserver', ['system:masters']) ?? server.admin;
    const identities = issue !== undefined ? await controllerIdentities(apiserverIdentity, issue, userAgent) : undefined;
    const client = identities?.client ?? new RestClient({ ...server.admin, userAgent });
    // Several servers may share one store (etcd): the namespace controller runs only on the Lease holder.
    const managerOptions: Parameters<typeof startLeaderElectedControllers>[0] = { ...controllerOptions, client, logger: pino({ level: logLevel, base: { component: 'controller-manager' } }) };
    if (identities !== undefined) managerOptions.clients = identities.clients;
    managerOptions.inProcessReads = server.inProcessReads;
    // With security on, every namespace gets its `default` service account and the kube-root-ca.crt ConfigMap,
    // and kube-public the cluster-info ConfigMap anyone may read.
    if (server.admin.caData !== undefined) {
      managerOptions.controllers = { ...managerOptions.controllers, namespace: true, systemNamespaces: true, namespaceDefaults: true, clusterInfo: true };
      managerOptions.rootCaData = server.admin.caData;
      // The tokens controller: kubernetes.io/service-account-token Secrets, signed with the server's key.
      if (server.signLegacyToken !== undefined) managerOptions.signLegacyToken = server.signLegacyToken;
      managerOptions.clusterInfo = { server: server.url, caData: server.admin.caData };
    }
    if (selection.run) managerOptions.controllers = applyControllerSelection(managerOptions.controllers ?? {}, selection.controllers);
    const manager = startLeaderElectedControllers(managerOptions, election);
    controllers = { manager, close: async () => (identities !== undefined ? identities.close() : client.close()) };
    // Serve once the system namespaces exist (or after 10 s).
    await waitAtMost(manager.systemNamespacesSynced, 10_000);
  }
  // Start-up's garbage (the caches' and informers' first lists) collected once it is over (storage/startup-gc.ts).
  collectWhenSettled();
  process.stdout.write(`apiary listening on ${server.url}\n`);
  if (server.kubeconfigPath !== undefined) process.stdout.write(`kubeconfig: ${server.kubeconfigPath}\n`);
  // The cluster token other servers on the same store need (--token); the file, never the secret, is printed.
  const tokenFile = path.join(options.dataDir!, 'token');
  if (options.security !== undefined && fs.existsSync(tokenFile)) process.stdout.write(`cluster token: ${tokenFile}\n`);

  exitOnSignals(async () => {
    if (controllers !== undefined) {
      await controllers.manager.stop();
      await controllers.close();
    }
    await server.stop();
  });
}

/** Unhandled rejections and exceptions are logged, counted and survived (server/process-guard.ts). */
function guardProcess(): void {
  installProcessGuard({ logger: pino({ base: { component: 'process' } }) });
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      guardProcess();
      await serve(rest);
      return;
    case 'controller-manager':
      guardProcess();
      await controllerManagerCommand(rest);
      return;
    case 'kube-apiserver':
      await kubeApiserverCommand(rest);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      fail(`unknown command ${JSON.stringify(command)}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  // A refusal the operator must fix (cluster token) is one clear line.
  if (err instanceof Error && err.name === 'ClusterIdentityError') {
    process.stderr.write(`apiary: ${err.message}\n`);
    process.exit(1);
  }
  process.stderr.write(`apiary: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
