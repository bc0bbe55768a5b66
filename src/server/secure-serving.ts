// Puts the security pieces together for one server: the cluster PKI in the
// data directory (or the user's own files), the authenticators, the RBAC
// authorizer fed by the RBAC objects' watches, the bootstrap policy, the
// escalation-checked RBAC stores, the review resources and the TokenRequest /
// OIDC routes. server.ts asks for it only when its options turn security on.

import fs from 'node:fs';
import type { Logger } from 'pino';
import { ensureClusterPki, ensureFrontProxyPki, type ClusterPki } from '../auth/pki/pki.js';
import { DEFAULT_REQUEST_HEADERS, RequestHeaderAuthenticator, type RequestHeaderConfig } from '../auth/authn/request-header.js';
import { ensureSharedClusterPki, type IdentityStore } from '../auth/pki/cluster-identity.js';
import { Authenticator, type AuthenticatorOptions } from '../auth/authn/authenticator.js';
import type { KubeObject } from '../machinery/meta.js';
import { ServiceAccountTokens, type LegacyTokenRequest, type ServiceAccountLookups } from '../auth/authn/serviceaccount.js';
import { loadTokenFile } from '../auth/authn/token-file.js';
import { RbacAuthorizer, alwaysAllow, type Authorizer } from '../auth/authz/rbac.js';
import { StatusError } from '../machinery/errors.js';
import type { RESTStore } from '../registry/rest.js';
import { authRoutes } from './auth-routes.js';
import { AuditLog } from './audit.js';
import { EscalationChecker, guardRbacStores } from './rbac-escalation.js';
import { RbacIndex, syncedRbacStores } from './rbac-index.js';
import { NamespaceVisibility } from './namespace-visibility.js';
import type { Hierarchy } from '../tenancy/hierarchy.js';
import { inheritedBindingScope } from '../tenancy/inherited-bindings.js';
import { reviewStores } from './reviews.js';
import type { RegistryView } from './routes.js';
import type { SecurityFilters } from './security.js';
import type { RequestInfo } from './request-info.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TlsTermination } from './tls-front.js';

export interface SecurityOptions {
  /** Serve HTTPS (default true); false serves plain HTTP, for tests and benchmarks only. */
  tls?: boolean;
  /**
   * --tls-termination: where TLS is done. 'process' is the TLS front
   * (tls-front.ts), 'inline' this process; 'auto' (default) picks the front on
   * Linux with more than one core.
   */
  tlsTermination?: TlsTermination | 'auto';
  /** --tls-cert-file / --tls-private-key-file: the serving certificate to use instead of the generated one. */
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** --client-ca-file: CA bundle client certificates are verified against (default: the cluster CA). */
  clientCaFile?: string;
  /** --tls-sans: more names and IPs for the generated serving certificate. */
  tlsSans?: string[];
  /** --token-auth-file. */
  tokenAuthFile?: string;
  /** --service-account-issuer (default https://kubernetes.default.svc.cluster.local). */
  serviceAccountIssuer?: string;
  /** More --service-account-issuer values: their tokens are accepted, none is issued. */
  serviceAccountAcceptedIssuers?: string[];
  /** --service-account-signing-key-file: signs service account tokens instead of the cluster PKI's key (RSA or ECDSA PEM). */
  serviceAccountSigningKeyFile?: string;
  /** --service-account-key-file (repeatable): more public keys (certificates, public or private keys) tokens verify against. */
  serviceAccountKeyFiles?: string[];
  /** --anonymous-auth (default true). */
  anonymousAuth?: boolean;
  /** --authorization-mode: RBAC (default) or AlwaysAllow. */
  authorizationMode?: 'RBAC' | 'AlwaysAllow';
  /**
   * --namespace-list-filtering (default true): a user refused the cluster-wide
   * list (or watch) of namespaces gets those where RBAC lets them do
   * something instead of a 403 (namespace-visibility.ts). False: the 403, as upstream.
   */
  namespaceListFiltering?: boolean;
  /** The first IP of the service range, put in the serving certificate. */
  serviceIp?: string;
  /** --audit-log-path: a JSON-lines audit log of writes (level Metadata). */
  auditLogPath?: string;
  /** --requestheader-client-ca-file: the CA of front proxies' client certificates (default: the generated front-proxy CA). */
  requestheaderClientCaFile?: string;
  /** --requestheader-allowed-names (empty: any name the CA signed; default with the generated CA: front-proxy-client). */
  requestheaderAllowedNames?: string[];
  /** --requestheader-username-headers, --requestheader-group-headers, --requestheader-extra-headers-prefix (default: kubeadm's X-Remote-User, X-Remote-Group, X-Remote-Extra-). */
  requestheaderUsernameHeaders?: string[];
  requestheaderGroupHeaders?: string[];
  requestheaderExtraHeadersPrefix?: string[];
  /**
   * --token: the cluster token that seals the shared identity in the store
   * (default: DATA_DIR/token, made by the first server). See cluster-identity.ts.
   */
  token?: string;
}

export interface SecuritySetup {
  pki: ClusterPki;
  /** The cluster token (when the identity is shared through the store). */
  token?: string;
  filters: SecurityFilters;
  registryView: RegistryView;
  extraRoutes: (req: IncomingMessage, res: ServerResponse, info: RequestInfo) => Promise<boolean>;
  /**
   * The front proxy: the aggregator's client certificate (--proxy-client-cert-file, else the generated
   * front-proxy-client) and the request-header configuration (published in extension-apiserver-authentication).
   */
  frontProxy: { proxyClient?: { cert: string; key: string }; requestHeader?: RequestHeaderConfig; clientCaPem: string };
  /** Signs a legacy service account token (for the tokens controller's Secrets). */
  signLegacyToken(request: LegacyTokenRequest): Promise<string>;
  tls?: { key: string; cert: string; ca: string };
  /** Starts following RBAC objects and reconciles the bootstrap policy (after the registry is ready). */
  start(): Promise<void>;
  /**
   * Hierarchical namespaces: from now on the RoleBindings of a namespace's
   * ancestors apply in it too (propagated copies granting nothing of their
   * own), and every change of the tree drops RBAC's cached decisions.
   */
  useHierarchy(hierarchy: Hierarchy): void;
  stop(): void;
}

export async function setupSecurity(
  options: SecurityOptions,
  registry: RegistryView,
  dataDir: string,
  logger: Logger,
  now: () => number,
  identityStore?: IdentityStore,
  /** --proxy-client-cert-file / --proxy-client-key-file (read by the caller). */
  proxyClient?: { cert: string; key: string },
): Promise<SecuritySetup> {
  const pkiOptions: Parameters<typeof ensureClusterPki>[1] = { extraSans: options.tlsSans ?? [] };
  if (options.serviceIp !== undefined) pkiOptions.serviceIp = options.serviceIp;
  let pki: ClusterPki;
  let clusterToken: string | undefined;
  if (identityStore !== undefined) {
    ({ pki, token: clusterToken } = await ensureSharedClusterPki(dataDir, identityStore, options.token, pkiOptions));
  } else {
    pki = await ensureClusterPki(dataDir, pkiOptions);
  }
  const signingKeyPem = options.serviceAccountSigningKeyFile !== undefined ? fs.readFileSync(options.serviceAccountSigningKeyFile, 'utf8') : pki.serviceAccountKeyPem;
  const tokens = new ServiceAccountTokens({
    privateKeyPem: signingKeyPem,
    // As upstream, the key files replace the default verification key (the signing key's own is always kept).
    publicKeyPem: options.serviceAccountKeyFiles !== undefined && options.serviceAccountKeyFiles.length > 0 ? options.serviceAccountKeyFiles.map((f) => fs.readFileSync(f, 'utf8')).join('\n') : pki.serviceAccountPublicKeyPem,
    ...(options.serviceAccountIssuer !== undefined ? { issuer: options.serviceAccountIssuer } : {}),
    ...(options.serviceAccountAcceptedIssuers !== undefined ? { acceptedIssuers: options.serviceAccountAcceptedIssuers } : {}),
  });
  const uidOf = async (resource: string, namespace: string, name: string): Promise<string | undefined> => {
    const store = registry.storeFor('', resource)!;
    // The watch cache first (every request with a token comes here); storage when the cache lacks it.
    const cached = store.getCached(namespace, name);
    if (cached !== undefined) return cached.metadata.uid;
    try {
      return (await store.get(namespace, name, {})).metadata.uid;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return undefined;
      throw err;
    }
  };
  const lookups: ServiceAccountLookups = {
    serviceAccountUid: (ns, name) => uidOf('serviceaccounts', ns, name),
    podUid: (ns, name) => uidOf('pods', ns, name),
    secretUid: (ns, name) => uidOf('secrets', ns, name),
    secretToken: async (ns, name) => {
      const store = registry.storeFor('', 'secrets')!;
      const tokenOf = (secret: Readonly<KubeObject> | undefined): string | undefined => {
        const data = (secret as { data?: Record<string, string> } | undefined)?.data?.['token'];
        return secret === undefined || secret.metadata.deletionTimestamp !== undefined || data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
      };
      // The cache may not hold the controller's last write yet: storage settles a miss.
      const cached = tokenOf(store.getCached(ns, name));
      if (cached !== undefined) return cached;
      try {
        return tokenOf(await store.get(ns, name, {}));
      } catch (err) {
        if (err instanceof StatusError && err.code === 404) return undefined;
        throw err;
      }
    },
  };
  const authnOptions: AuthenticatorOptions = { serviceAccounts: { tokens, lookups }, anonymous: options.anonymousAuth !== false, now };
  // The front proxy: the given request-header CA, or (with no proxy client certificate given either) kubeadm's layout made here.
  const read = (file: string): string => fs.readFileSync(file, 'utf8');
  let requestHeader: RequestHeaderConfig | undefined;
  let frontProxyClient = proxyClient;
  const headers = {
    usernameHeaders: options.requestheaderUsernameHeaders ?? DEFAULT_REQUEST_HEADERS.usernameHeaders,
    groupHeaders: options.requestheaderGroupHeaders ?? DEFAULT_REQUEST_HEADERS.groupHeaders,
    extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix ?? DEFAULT_REQUEST_HEADERS.extraHeaderPrefixes,
  };
  if (options.requestheaderClientCaFile !== undefined) {
    requestHeader = { caPem: read(options.requestheaderClientCaFile), allowedNames: options.requestheaderAllowedNames ?? [], ...headers };
  } else if (proxyClient === undefined) {
    const generated = await ensureFrontProxyPki(pki.dir);
    requestHeader = { caPem: generated.caCertPem, allowedNames: options.requestheaderAllowedNames ?? ['front-proxy-client'], ...headers };
    frontProxyClient = { cert: generated.clientCertPem, key: generated.clientKeyPem };
  }
  if (requestHeader !== undefined) authnOptions.requestHeader = new RequestHeaderAuthenticator(requestHeader);
  if (options.tokenAuthFile !== undefined) authnOptions.tokens = loadTokenFile(options.tokenAuthFile);
  const authenticator = new Authenticator(authnOptions);

  const index = new RbacIndex(registry, logger);
  const rbac = new RbacAuthorizer(index);
  index.onChange.push(() => rbac.invalidate());
  const authorizer: Authorizer = options.authorizationMode === 'AlwaysAllow' ? alwaysAllow : rbac;
  let stopFollowingHierarchy: (() => void) | undefined;

  // The view the router serves: the registry's stores (custom resources come and go
  // at run time), with the RBAC stores guarded against escalation and the review
  // resources added.
  const keyOf = (s: RESTStore): string => `${s.type.group}/${s.type.resource}`;
  const reviews = reviewStores({ authorizer, rbac, authenticator });
  const overrides = new Map<string, RESTStore>(reviews.map((s) => [keyOf(s), s]));
  // RBAC writes return once the index holds them (guarded against escalation first).
  for (const s of guardRbacStores(syncedRbacStores(registry.stores, index), new EscalationChecker(authorizer, rbac))) {
    if (!registry.stores.includes(s)) overrides.set(keyOf(s), s);
  }
  const generation = (): number => registry.generation?.() ?? 0;
  let served: { generation: number; stores: RESTStore[] } | undefined;
  const registryView: RegistryView = {
    get stores() {
      if (served?.generation !== generation()) {
        served = { generation: generation(), stores: [...registry.stores.map((s) => overrides.get(keyOf(s)) ?? s), ...reviews] };
      }
      return served.stores;
    },
    storeFor: (group, resource, version) => overrides.get(`${group}/${resource}`) ?? registry.storeFor(group, resource, version),
    generation,
  };

  const audit = options.auditLogPath !== undefined ? new AuditLog(options.auditLogPath) : undefined;
  const setup: SecuritySetup = {
    pki,
    ...(clusterToken !== undefined ? { token: clusterToken } : {}),
    filters: {
      authenticator,
      authorizer,
      ...(audit !== undefined ? { audit } : {}),
      requestHeaders: requestHeader !== undefined,
      ...(options.namespaceListFiltering !== false && authorizer === rbac
        ? { namespaceVisibility: new NamespaceVisibility(rbac, { generation, resources: () => registryView.stores.map((s) => s.type) }) }
        : {}),
    },
    frontProxy: {
      ...(frontProxyClient !== undefined ? { proxyClient: frontProxyClient } : {}),
      ...(requestHeader !== undefined ? { requestHeader } : {}),
      clientCaPem: options.clientCaFile !== undefined ? `${read(options.clientCaFile)}\n${pki.caCertPem}` : pki.caCertPem,
    },
    registryView,
    extraRoutes: authRoutes(registry, tokens, now),
    signLegacyToken: (request) => tokens.issueLegacy(request),
    async start() {
      await index.start();
      await index.reconcileBootstrapPolicy();
    },
    useHierarchy(hierarchy) {
      stopFollowingHierarchy?.();
      rbac.setBindingScope(inheritedBindingScope(hierarchy));
      stopFollowingHierarchy = hierarchy.onChange(() => rbac.invalidate());
    },
    stop: () => {
      stopFollowingHierarchy?.();
      index.stop();
      void audit?.close();
    },
  };
  if (options.tls !== false) {
    const cert = options.tlsCertFile !== undefined ? read(options.tlsCertFile) : pki.servingCertPem;
    const key = options.tlsPrivateKeyFile !== undefined ? read(options.tlsPrivateKeyFile) : pki.servingKeyPem;
    if ((options.tlsCertFile === undefined) !== (options.tlsPrivateKeyFile === undefined)) {
      throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    }
    // The cluster CA stays trusted beside --client-ca-file, so the generated admin kubeconfig keeps working.
    // Front proxies' certificates are verified in the handshake too; the authenticator tells them apart.
    const ca = [setup.frontProxy.clientCaPem, ...(requestHeader !== undefined ? [requestHeader.caPem] : [])].join('\n');
    setup.tls = { key, cert, ca };
  }
  return setup;
}
