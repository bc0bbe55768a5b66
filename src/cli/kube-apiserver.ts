// `apiary kube-apiserver` (also installed as the `kube-apiserver` executable):
// apiary started the way controller-runtime's envtest starts kube-apiserver,
// so Go controller tests run against it unchanged (TEST_ASSET_KUBE_APISERVER
// or KUBEBUILDER_ASSETS pointing at it). What envtest relies on:
// - `--help` exits 0 and lists upstream's flag names (envtest probes flags in it);
// - HTTPS on --bind-address:--secure-port with --cert-dir's apiserver.crt/.key
//   (envtest writes them and trusts their CA), /healthz to anonymous clients;
// - client certificates signed by --client-ca-file authenticate (envtest's
//   admin is CN=envtest-admin, O=system:masters);
// - state in the etcd of --etcd-servers (apiary's --storage memory ignores it);
// - service-account tokens signed with --service-account-signing-key-file
//   (envtest's sa-signer.key) and verified with --service-account-key-file, so
//   tokens minted with that key, by TokenRequest or by the test, authenticate;
// - SIGTERM stops it cleanly (exit 0).
// Unlike a bare kube-apiserver it runs apiary's controllers in-process, so
// namespaces finish deleting and owners' dependents are collected.

import { kubeletOptionsFrom } from './kubelet-flags.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { RestClient } from '../client/index.js';
import { startControllerManager, type RunningControllerManager } from '../controllers/manager.js';
import { parseAdmissionPluginFlags } from '../admission/admission-plugins.js';
import { jwsAlgorithm, parsePublicKeysPem } from '../auth/authn/serviceaccount.js';
import { parseIPv4CIDR } from '../registry/service-ip-allocator.js';
import { parsePortRange } from '../registry/service-node-port-allocator.js';
import { startServer, type SecurityOptions, type ServerOptions } from '../server/server.js';
import { collectWhenSettled } from '../storage/startup-gc.js';
import { controllerIdentities } from './controller-identities.js';
import { parseDurationFlag } from './duration.js';
import { KUBE_APISERVER_USAGE, UnknownFlagError, flagTrue, parseKubeApiserverArgs } from './kube-apiserver-flags.js';
import { exitOnSignals, waitAtMost } from './lifecycle.js';
import { resolveLogLevel } from './verbosity.js';

/** A start-up refusal: printed as upstream prints flag errors, exit 1. */
export class KubeApiserverFlagError extends Error {}

function firstServiceIp(cidr: string): string {
  const parts = cidr.split('/')[0]!.split('.').map(Number);
  parts[3] = parts[3]! + 1;
  return parts.join('.');
}

/** ServerOptions (with security) and the controller switch from kube-apiserver's flags; throws KubeApiserverFlagError. */
export function kubeApiserverOptions(
  values: Map<string, string>,
  env: NodeJS.ProcessEnv = process.env,
  arrays: Map<string, string[]> = new Map(),
): { server: ServerOptions; controllers: boolean; logLevel: string } {
  const bad = (message: string): never => {
    throw new KubeApiserverFlagError(message);
  };
  const get = (name: string): string | undefined => values.get(name);
  let logLevel = 'info';
  try {
    logLevel = resolveLogLevel(get('log-level'), get('v'));
  } catch (err) {
    bad((err as Error).message);
  }
  const portText = get('secure-port') ?? '6443';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) bad(`invalid argument ${JSON.stringify(portText)} for "--secure-port" flag`);
  const etcdServers = (get('etcd-servers') ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const storage = get('storage') ?? env['APIARY_STORAGE'] ?? (etcdServers.length > 0 ? 'etcd' : '');
  if (storage === '') bad('--etcd-servers must be specified (or --storage memory|sqlite, apiary\'s own flag)');
  if (storage !== 'etcd' && storage !== 'memory' && storage !== 'sqlite') bad(`invalid --storage ${JSON.stringify(storage)}: want etcd, memory or sqlite`);
  if (storage === 'etcd' && etcdServers.length === 0) bad('--etcd-servers must be specified');
  const certDir = path.resolve(get('cert-dir') ?? '/var/run/kubernetes');
  try {
    fs.mkdirSync(certDir, { recursive: true });
    fs.accessSync(certDir, fs.constants.W_OK);
  } catch (err) {
    bad(`--cert-dir ${certDir} is not a writable directory: ${(err as Error).message}`);
  }
  const modes = (get('authorization-mode') ?? 'AlwaysAllow').split(',').map((s) => s.trim()).filter((s) => s !== '' && s !== 'Node');
  for (const m of modes) if (m !== 'RBAC' && m !== 'AlwaysAllow') bad(`authorization-mode ${JSON.stringify(m)} is not supported by apiary: want RBAC, AlwaysAllow (Node is ignored)`);
  const cidr = get('service-cluster-ip-range') ?? '10.0.0.0/24';
  try {
    parseIPv4CIDR(cidr);
  } catch (err) {
    bad(`invalid --service-cluster-ip-range ${JSON.stringify(cidr)}: ${(err as Error).message}`);
  }
  const nodePorts = get('service-node-port-range') ?? '30000-32767';
  try {
    parsePortRange(nodePorts);
  } catch (err) {
    bad(`invalid --service-node-port-range ${JSON.stringify(nodePorts)}: ${(err as Error).message}`);
  }
  let eventTtlMs = 3_600_000;
  if (get('event-ttl') !== undefined) {
    try {
      eventTtlMs = parseDurationFlag('event-ttl', get('event-ttl')!);
    } catch (err) {
      bad((err as Error).message);
    }
  }
  const reconciler = get('endpoint-reconciler-type') ?? 'lease';
  if (reconciler !== 'lease' && reconciler !== 'none') bad(`invalid --endpoint-reconciler-type ${JSON.stringify(reconciler)}: want lease or none`);
  const security: SecurityOptions = {
    anonymousAuth: flagTrue(get('anonymous-auth'), true),
    // RBAC when listed (system:masters passes it), else every authenticated request is allowed.
    authorizationMode: modes.includes('RBAC') ? 'RBAC' : 'AlwaysAllow',
    serviceIp: firstServiceIp(cidr),
    // envtest's health checks and clients are on this host: TLS in this process starts fastest.
    tlsTermination: 'inline',
  };
  // --tls-cert-file, else the cert dir's apiserver.crt/.key (envtest writes them and trusts their CA).
  let certFile = get('tls-cert-file');
  let keyFile = get('tls-private-key-file');
  if ((certFile === undefined) !== (keyFile === undefined)) bad('--tls-cert-file and --tls-private-key-file must be given together');
  if (certFile === undefined && fs.existsSync(path.join(certDir, 'apiserver.crt')) && fs.existsSync(path.join(certDir, 'apiserver.key'))) {
    certFile = path.join(certDir, 'apiserver.crt');
    keyFile = path.join(certDir, 'apiserver.key');
  }
  if (certFile !== undefined) security.tlsCertFile = certFile;
  if (keyFile !== undefined) security.tlsPrivateKeyFile = keyFile;
  if (get('client-ca-file') !== undefined) security.clientCaFile = get('client-ca-file')!;
  if (get('token-auth-file') !== undefined) security.tokenAuthFile = get('token-auth-file')!;
  const issuers = arrays.get('service-account-issuer') ?? (get('service-account-issuer') !== undefined ? [get('service-account-issuer')!] : []);
  if (issuers.length > 0) security.serviceAccountIssuer = issuers[0]!;
  if (issuers.length > 1) security.serviceAccountAcceptedIssuers = issuers.slice(1);
  // envtest's sa-signer.key signs and its sa-signer.crt verifies: tokens minted with that key authenticate, as upstream.
  const signingKeyFile = get('service-account-signing-key-file');
  if (signingKeyFile !== undefined) {
    try {
      jwsAlgorithm(crypto.createPrivateKey(fs.readFileSync(signingKeyFile, 'utf8')));
    } catch (err) {
      bad(`failed to parse service-account-signing-key-file ${JSON.stringify(signingKeyFile)}: ${(err as Error).message}`);
    }
    security.serviceAccountSigningKeyFile = path.resolve(signingKeyFile);
  }
  const keyFiles = arrays.get('service-account-key-file') ?? (get('service-account-key-file') !== undefined ? [get('service-account-key-file')!] : []);
  for (const file of keyFiles) {
    try {
      for (const key of parsePublicKeysPem(fs.readFileSync(file, 'utf8'))) jwsAlgorithm(key);
    } catch (err) {
      bad(`failed to parse service-account-key-file ${JSON.stringify(file)}: ${(err as Error).message}`);
    }
  }
  if (keyFiles.length > 0) security.serviceAccountKeyFiles = keyFiles.map((f) => path.resolve(f));
  if (get('audit-log-path') !== undefined) security.auditLogPath = path.resolve(get('audit-log-path')!);
  const list = (name: string): string[] | undefined => get(name)?.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (get('requestheader-client-ca-file') !== undefined) security.requestheaderClientCaFile = path.resolve(get('requestheader-client-ca-file')!);
  if (list('requestheader-allowed-names') !== undefined) security.requestheaderAllowedNames = list('requestheader-allowed-names')!;
  if (list('requestheader-username-headers') !== undefined) security.requestheaderUsernameHeaders = list('requestheader-username-headers')!;
  if (list('requestheader-group-headers') !== undefined) security.requestheaderGroupHeaders = list('requestheader-group-headers')!;
  if (list('requestheader-extra-headers-prefix') !== undefined) security.requestheaderExtraHeadersPrefix = list('requestheader-extra-headers-prefix')!;
  if ((get('proxy-client-cert-file') === undefined) !== (get('proxy-client-key-file') === undefined)) bad('--proxy-client-cert-file and --proxy-client-key-file must be given together');
  const server: ServerOptions = {
    bindAddress: get('bind-address') ?? '0.0.0.0',
    port,
    storage: storage as 'etcd' | 'memory' | 'sqlite',
    dataDir: certDir,
    etcdPrefix: get('etcd-prefix') ?? '/registry',
    eventTtlSeconds: Math.max(1, Math.round(eventTtlMs / 1000)),
    logLevel,
    serviceClusterIpRange: cidr,
    serviceNodePortRange: nodePorts,
    endpointReconcilerType: reconciler as 'lease' | 'none',
    controlPlaneObjects: true,
    security,
  };
  if (storage === 'etcd') server.etcdServers = etcdServers;
  if (get('advertise-address') !== undefined) server.advertiseAddress = get('advertise-address')!;
  if (get('proxy-client-cert-file') !== undefined) server.proxyClientCertFile = path.resolve(get('proxy-client-cert-file')!);
  if (get('proxy-client-key-file') !== undefined) server.proxyClientKeyFile = path.resolve(get('proxy-client-key-file')!);
  server.enableAggregatorRouting = flagTrue(get('enable-aggregator-routing'), false);
  server.allowPrivileged = flagTrue(get('allow-privileged'), false);
  server.enablePriorityAndFairness = flagTrue(get('enable-priority-and-fairness'), true);
  const inflight = (flag: 'max-requests-inflight' | 'max-mutating-requests-inflight', fallback: string): number => {
    const text = get(flag) ?? fallback;
    if (!/^\d+$/.test(text)) bad(`invalid argument ${JSON.stringify(text)} for "--${flag}" flag`);
    return Number(text);
  };
  server.maxRequestsInflight = inflight('max-requests-inflight', '400');
  server.maxMutatingRequestsInflight = inflight('max-mutating-requests-inflight', '200');
  // Upstream's options validation: with priority and fairness on, the seats they share may not be zero.
  if (server.enablePriorityAndFairness && server.maxRequestsInflight + server.maxMutatingRequestsInflight === 0) {
    bad('--max-requests-inflight plus --max-mutating-requests-inflight must be positive with priority and fairness enabled');
  }
  const kubelet = kubeletOptionsFrom(get, bad);
  if (kubelet !== undefined) server.kubelet = kubelet;
  if (get('admission-control-config-file') !== undefined) server.admissionControlConfigFile = path.resolve(get('admission-control-config-file')!);
  try {
    const { disabled } = parseAdmissionPluginFlags(get('enable-admission-plugins') ?? '', get('disable-admission-plugins') ?? '');
    if (disabled.length > 0) server.disableAdmissionPlugins = disabled;
  } catch (err) {
    bad((err as Error).message);
  }
  return { server, controllers: flagTrue(get('controllers'), true), logLevel };
}

export async function kubeApiserverCommand(argv: string[]): Promise<void> {
  let parsed: ReturnType<typeof parseKubeApiserverArgs>;
  let options: ReturnType<typeof kubeApiserverOptions>;
  try {
    parsed = parseKubeApiserverArgs(argv);
    if (parsed.help) {
      process.stdout.write(KUBE_APISERVER_USAGE);
      return;
    }
    options = kubeApiserverOptions(parsed.values, process.env, parsed.arrays);
  } catch (err) {
    if (err instanceof UnknownFlagError || err instanceof KubeApiserverFlagError || err instanceof Error) {
      // pflag's wording, then where to look.
      process.stderr.write(`Error: ${err.message}\nRun 'kube-apiserver --help' for the flags apiary accepts.\n`);
      process.exit(1);
    }
    throw err;
  }
  const server = await startServer({ ...options.server, ...(options.controllers ? { awaitSystemNamespaces: true } : {}) });
  let controllers: { manager: RunningControllerManager; close(): Promise<void> } | undefined;
  if (options.controllers) {
    const userAgent = 'apiary-controller-manager';
    const loopback = server.loopbackCredentials;
    const issue = loopback !== undefined ? async (user: string, groups: string[]) => loopback(user, groups) : server.clientCredentials;
    const apiserverIdentity = loopback?.('system:apiserver', ['system:masters']) ?? server.admin;
    const identities = issue !== undefined ? await controllerIdentities(apiserverIdentity, issue, userAgent) : undefined;
    const client = identities?.client ?? new RestClient({ ...server.admin, userAgent });
    const manager = startControllerManager({
      client,
      ...(identities !== undefined ? { clients: identities.clients } : {}),
      // Tests wait for deletions: empty a deleted namespace at once.
      namespaceDeletionGracePeriodMs: 0,
      finalizerEstimateSeconds: 1,
      gcDiscoveryPeriodMs: 5_000,
      inProcessReads: server.inProcessReads,
      controllers: { namespace: true, systemNamespaces: true, namespaceDefaults: true, ...(server.admin.caData !== undefined ? {} : { rootCaPublisher: false }) },
      ...(server.admin.caData !== undefined ? { rootCaData: server.admin.caData } : {}),
      logger: pino({ level: options.logLevel, base: { component: 'controller-manager' } }),
    });
    controllers = { manager, close: async () => (identities !== undefined ? identities.close() : client.close()) };
    // envtest's first requests expect default and kube-public to exist as
    // soon as /healthz is ok (at most 10 s); health fails from the start until then.
    const created = waitAtMost(manager.systemNamespacesSynced, 10_000);
    server.awaitSystemNamespaces(created);
    await created;
  }
  collectWhenSettled();
  process.stdout.write(`apiary kube-apiserver listening on ${server.url}\n`);
  exitOnSignals(async () => {
    if (controllers !== undefined) {
      await controllers.manager.stop();
      await controllers.close();
    }
    await server.stop();
  });
}
