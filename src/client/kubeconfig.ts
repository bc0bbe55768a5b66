// Kubeconfig loading: turns a kubeconfig file (clusters, users, contexts,
// current-context) into the ClientConfig the RestClient needs. Supported:
// server URL (http or https), certificate-authority(-data),
// insecure-skip-tls-verify, bearer token / token-file, basic auth, client
// certificate and key (file or -data), and the context's default namespace.
// File paths inside the kubeconfig are relative to the file's directory, as
// kubectl resolves them. Exec and auth-provider plugins are not supported.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

/** Everything the REST client needs to reach and authenticate to a server. */
export interface ClientConfig {
  /** Base URL, e.g. "http://127.0.0.1:6443". */
  server: string;
  bearerToken?: string;
  username?: string;
  password?: string;
  /** PEM CA bundle to trust for https. */
  caData?: string;
  certData?: string;
  keyData?: string;
  insecureSkipTLSVerify?: boolean;
  /** Connect through this Unix socket instead of the server URL's host and port (apiary's loopback listener). */
  socketPath?: string;
  /** The kubeconfig context's namespace ("default" when unset). */
  namespace?: string;
  userAgent?: string;
  /** Act as this user (Impersonate-User, Impersonate-Group headers, as client-go's rest.ImpersonationConfig). */
  impersonate?: { user: string; groups?: string[] };
}

interface NamedEntry<V> {
  name: string;
  [field: string]: unknown;
  cluster?: V;
  user?: V;
  context?: V;
}

type Fields = Record<string, unknown>;

export interface LoadKubeconfigOptions {
  /** Context to use instead of current-context. */
  context?: string;
}

/** The file kubectl would read: $KUBECONFIG's first entry, else ~/.kube/config. */
export function defaultKubeconfigPath(): string {
  const env = process.env.KUBECONFIG;
  if (env) return env.split(process.platform === 'win32' ? ';' : ':')[0] as string;
  return join(homedir(), '.kube', 'config');
}

export function loadKubeconfig(path: string = defaultKubeconfigPath(), options: LoadKubeconfigOptions = {}): ClientConfig {
  return kubeconfigFromText(readFileSync(path, 'utf8'), dirname(path), options);
}

/** Parses kubeconfig YAML; baseDir resolves relative file references. */
export function kubeconfigFromText(text: string, baseDir: string, options: LoadKubeconfigOptions = {}): ClientConfig {
  const doc = (parse(text) ?? {}) as Fields;
  const contextName = options.context ?? str(doc['current-context']);
  if (!contextName) throw new Error('kubeconfig: no current-context is set and no context was requested');
  const context = findNamed(doc.contexts, contextName, 'context', 'context');
  const cluster = findNamed(doc.clusters, str(context.cluster) ?? '', 'cluster', 'cluster');
  const user = context.user === undefined ? {} : findNamed(doc.users, str(context.user) ?? '', 'user', 'user');

  const server = str(cluster.server);
  if (!server) throw new Error(`kubeconfig: cluster ${JSON.stringify(context.cluster)} has no server`);
  const read = (p: string): string => readFileSync(isAbsolute(p) ? p : join(baseDir, p), 'utf8');
  const dataOrFile = (fields: Fields, name: string): string | undefined => {
    const data = str(fields[`${name}-data`]);
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    const file = str(fields[name]);
    return file ? read(file) : undefined;
  };

  const config: ClientConfig = { server: server.replace(/\/+$/, ''), namespace: str(context.namespace) ?? 'default' };
  const ca = dataOrFile(cluster, 'certificate-authority');
  if (ca) config.caData = ca;
  if (cluster['insecure-skip-tls-verify'] === true) config.insecureSkipTLSVerify = true;
  const token = str(user.token) ?? (str(user.tokenFile) ? read(str(user.tokenFile) as string).trim() : undefined);
  if (token) config.bearerToken = token;
  if (str(user.username)) config.username = str(user.username);
  if (str(user.password)) config.password = str(user.password);
  const cert = dataOrFile(user, 'client-certificate');
  if (cert) config.certData = cert;
  const key = dataOrFile(user, 'client-key');
  if (key) config.keyData = key;
  return config;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function findNamed(list: unknown, name: string, what: string, field: 'cluster' | 'user' | 'context'): Fields {
  const entries = Array.isArray(list) ? (list as NamedEntry<Fields>[]) : [];
  const entry = entries.find((e) => e?.name === name);
  if (entry === undefined) throw new Error(`kubeconfig: ${what} ${JSON.stringify(name)} not found`);
  return entry[field] ?? {};
}
