// startTestServer: an API server for a test, in the test's own process, as
// envtest is for Go controllers but without binaries to download or a second
// process. Plain HTTP on 127.0.0.1 and a free port (any number run in
// parallel in one process), every request allowed, storage in memory (or
// SQLite in a temporary folder), apiary's controllers on (namespace deletion,
// garbage collection, quota) unless turned off, CRDs installed from folders.
//
// stop() leaves nothing behind: the listener, every connection and watch, the
// controllers' informers and timers, the store and the temporary folder all
// go, so a test process exits by itself once its tests are done.

import fs from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import type { KubeConfig } from '@kubernetes/client-node';
import { RestClient, isAlreadyExists } from '../client/index.js';
import { SYSTEM_NAMESPACES } from '../controllers/system-namespaces.js';
import { startControllerManager, type RunningControllerManager } from '../controllers/manager.js';
import { startServer, type RunningServer, type ServerOptions } from '../server/server.js';
import { installCrds, readCrdFiles } from './crds.js';

export interface TestServerOptions {
  /** Where objects live: 'memory' (default, fastest) or 'sqlite' (a file in a temporary folder). */
  storage?: 'memory' | 'sqlite';
  /**
   * Run apiary's controllers (namespace deletion, garbage collector, resource
   * quota, CRD cleanup, PVC protection, system namespaces): default true.
   * A deleted namespace is emptied and removed at once (no grace period).
   */
  controllers?: boolean;
  /** Folders (or files) of YAML/JSON holding CustomResourceDefinitions to install before the server is handed over. */
  crdDirectoryPaths?: string[];
  /** How long to wait for the CRDs to be Established and served (default 10 s). */
  crdInstallTimeoutMs?: number;
  /**
   * Load @kubernetes/client-node for `kubeConfig` (default true; it is an
   * optional peer dependency, and nothing fails when it is missing until
   * `kubeConfig` is read). false skips the import.
   */
  kubeConfig?: boolean;
  /**
   * Where the server and its controllers log: a pino logger (its level decides;
   * request lines are at debug). Default: nothing is logged.
   */
  logger?: Logger;
}

/** A kubeconfig as an object (the same content as the file at kubeconfigPath). */
export interface KubeconfigObject {
  apiVersion: 'v1';
  kind: 'Config';
  clusters: Array<{ name: string; cluster: { server: string; 'insecure-skip-tls-verify': boolean } }>;
  contexts: Array<{ name: string; context: { cluster: string; user: string; namespace: string } }>;
  'current-context': string;
  users: Array<{ name: string; user: Record<string, never> }>;
  preferences: Record<string, never>;
}

export interface TestServer {
  /** The server's URL (http://127.0.0.1:PORT). */
  readonly url: string;
  /** A kubeconfig file for kubectl, client-go or any client (removed by stop()). */
  readonly kubeconfigPath: string;
  /** The same kubeconfig as an object. */
  readonly kubeconfig: KubeconfigObject;
  /**
   * A @kubernetes/client-node KubeConfig for this server, from the caller's own
   * @kubernetes/client-node (an optional peer dependency: only tests that read
   * this need it installed; reading it without throws saying so).
   */
  readonly kubeConfig: KubeConfig;
  /** Stops the controllers and the server and removes the temporary folder; resolves when all is gone. */
  stop(): Promise<void>;
}

const CONTEXT = 'apiary';

function kubeconfigObject(url: string): KubeconfigObject {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: CONTEXT, cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    contexts: [{ name: CONTEXT, context: { cluster: CONTEXT, user: CONTEXT, namespace: 'default' } }],
    'current-context': CONTEXT,
    users: [{ name: CONTEXT, user: {} }],
    preferences: {},
  };
}

type ClientNode = { KubeConfig: new () => KubeConfig };

/**
 * @kubernetes/client-node, imported the way the caller's code imports it (a
 * dynamic import goes through the same loader: Node's, Jest's or Vitest's, so
 * `server.kubeConfig instanceof KubeConfig` holds in the test). Free when the
 * test already imported it; once per process otherwise. Resolves with the
 * import's error when it is not installed (only server.kubeConfig reports it).
 */
function importClientNode(): Promise<ClientNode | Error> {
  const specifier = '@kubernetes/client-node';
  return (import(specifier) as Promise<ClientNode>).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
}

/** Starts a test API server; see TestServerOptions. Always pair with stop() (after/afterAll). */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const storage = options.storage ?? 'memory';
  if (storage !== 'memory' && storage !== 'sqlite') throw new Error(`startTestServer: storage must be 'memory' or 'sqlite', not ${JSON.stringify(storage)}`);
  const logger = options.logger ?? pino({ level: 'silent' });
  // Read the CRDs first: a bad path or file fails before anything runs.
  const crds = options.crdDirectoryPaths !== undefined ? await readCrdFiles(options.crdDirectoryPaths) : [];
  // Loaded beside the server's start, so it costs no time when the test has it already.
  const clientNode = options.kubeConfig !== false ? importClientNode() : Promise.resolve(new Error('startTestServer was called with kubeConfig: false'));
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'apiary-testing-'));
  let server: RunningServer | undefined;
  let controllers: RunningControllerManager | undefined;
  let client: RestClient | undefined;
  const teardown = async (): Promise<void> => {
    try {
      await controllers?.stop();
      await client?.close();
      await server?.stop();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  };
  try {
    // Privileged containers are allowed, as envtest starts kube-apiserver (--allow-privileged=true).
    const serverOptions: ServerOptions = { bindAddress: '127.0.0.1', port: 0, storage, dataDir, writeKubeconfig: true, logger, allowPrivileged: true };
    server = await startServer(serverOptions);
    client = new RestClient({ server: server.url, userAgent: 'apiary-testing' });
    if (options.controllers !== false) {
      // `default`, kube-system, kube-public and kube-node-lease exist before the server is handed
      // over: made here at once (the system namespaces controller, which polls its informer, would
      // take a few hundred ms), kept by that controller afterwards.
      const made = client;
      await Promise.all(
        SYSTEM_NAMESPACES.map((name) =>
          made
            .namespaces()
            .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } })
            .catch((err: unknown) => {
              if (!isAlreadyExists(err)) throw err;
            }),
        ),
      );
      controllers = startControllerManager({
        client,
        namespaceDeletionGracePeriodMs: 0,
        // Finalizers set by the test's own controllers are looked at again soon.
        finalizerEstimateSeconds: 1,
        gcDiscoveryPeriodMs: 5_000,
        inProcessReads: server.inProcessReads,
        logger: logger.child({ component: 'controller-manager' }),
      });
    }
    if (crds.length > 0) await installCrds(client, crds, options.crdInstallTimeoutMs ?? 10_000);
  } catch (err) {
    await teardown();
    throw err;
  }
  const url = server.url;
  const kubeconfigPath = server.kubeconfigPath!;
  const lib = await clientNode;
  let kubeConfig: KubeConfig | undefined;
  let stopping: Promise<void> | undefined;
  return {
    url,
    kubeconfigPath,
    kubeconfig: kubeconfigObject(url),
    get kubeConfig(): KubeConfig {
      if (kubeConfig === undefined) {
        if (lib instanceof Error) {
          throw new Error(`server.kubeConfig needs @kubernetes/client-node installed beside apiary (npm install --save-dev @kubernetes/client-node): ${lib.message}`);
        }
        kubeConfig = new lib.KubeConfig();
        kubeConfig.loadFromString(fs.readFileSync(kubeconfigPath, 'utf8'));
      }
      return kubeConfig;
    },
    stop: () => (stopping ??= teardown()),
  };
}
