// Shared pieces of the namespace lifecycle tests: a real server (sqlite in a
// temporary directory, real HTTP on 127.0.0.1) with apiary's controllers
// connected through the client library, exactly as `apiary serve` wires them,
// but with short timings so that a deletion takes well under a second.

import { RestClient, type KubeObject } from '../../src/client/index.js';
import { type ControllerManagerOptions, type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import type { ServerOptions } from '../../src/server/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export interface Cluster {
  server: TestServer;
  client: RestClient;
  controllers: RunningControllerManager | undefined;
  stop(): Promise<void>;
}

export const FAST_CONTROLLERS: Omit<ControllerManagerOptions, 'client'> = {
  concurrentNamespaceSyncs: 4,
  namespaceDeletionGracePeriodMs: 100,
  finalizerEstimateSeconds: 1,
  systemNamespacesIntervalMs: 60_000,
};

export async function startCluster(
  options: {
    server?: Partial<ServerOptions>;
    controllers?: Omit<ControllerManagerOptions, 'client'> | false;
    /** Give the controllers the server's in-process reads, as `apiary serve` does. */
    inProcessReads?: boolean;
  } = {},
): Promise<Cluster> {
  const server = await startTestServer(options.server ?? {});
  const client = new RestClient({ server: server.url });
  let controllers: RunningControllerManager | undefined;
  if (options.controllers !== false) {
    const reads = options.inProcessReads === true ? { inProcessReads: server.inProcessReads } : {};
    controllers = startControllerManager({ ...FAST_CONTROLLERS, ...(options.controllers ?? {}), ...reads, client });
    await controllers.systemNamespacesSynced;
  }
  return {
    server,
    client,
    controllers,
    stop: async () => {
      await controllers?.stop();
      await client.close();
      await server.stop();
    },
  };
}

/** Polls fn until it returns a value other than undefined, or fails after timeoutMs. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once the namespace is gone (404). */
export async function waitGone(client: RestClient, name: string, timeoutMs = 10_000): Promise<void> {
  await waitFor(
    `namespace ${name} to be gone`,
    async () => {
      try {
        await client.namespaces().get(name);
        return undefined;
      } catch (err) {
        if ((err as { code?: number }).code === 404) return true;
        throw err;
      }
    },
    timeoutMs,
  );
}

export function ns(name: string, finalizers?: string[]): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...(finalizers ? { spec: { finalizers } } : {}) };
}

export function cm(name: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { k: 'v' } };
}
