// Shared pieces of the multi-server tests: apiary servers on one etcd, a
// watch that collects its events in the background (polling: ../helpers/wait.ts).
// Every request goes through a RestClient whose calls carry a timeout, so a
// hung server fails the test instead of stalling it.

import type { KubeObject } from '../../src/machinery/meta.js';
import { RestClient } from '../../src/client/rest-client.js';
import type { Watch, WatchEvent } from '../../src/client/watch.js';
import { isAlreadyExists } from '../../src/machinery/errors.js';
import type { ServerOptions } from '../../src/server/server.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export interface ApiaryOnEtcd {
  server: TestServer;
  client: RestClient;
  stop(): Promise<void>;
}

/** One apiary server on the given etcd endpoints, with a client. */
export async function startApiaryOnEtcd(endpoints: string[], options: Partial<ServerOptions> = {}): Promise<ApiaryOnEtcd> {
  const server = await startTestServer({ storage: 'etcd', etcdServers: endpoints, ...options });
  const client = new RestClient({ server: server.url });
  return {
    server,
    client,
    stop: async () => {
      await client.close();
      await server.stop();
    },
  };
}

export async function ensureNamespace(client: RestClient, name: string): Promise<void> {
  try {
    await client.namespaces().create({ metadata: { name } }, { signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
}

/** A watch whose events accumulate in `events`; `ended` resolves when the stream ends. */
export interface CollectedWatch<T extends KubeObject = KubeObject> {
  events: WatchEvent<T>[];
  ended: Promise<void>;
  stop(): void;
}

export function collect<T extends KubeObject>(watch: Watch<T>): CollectedWatch<T> {
  const events: WatchEvent<T>[] = [];
  const ended = (async () => {
    for await (const event of watch) events.push(event);
  })();
  return { events, ended, stop: () => watch.stop() };
}

/** "TYPE name rv" lines for the non-bookmark events, for comparing streams. */
export function summary(events: WatchEvent[]): string[] {
  return events
    .filter((e) => e.type !== 'BOOKMARK')
    .map((e) => (e.type === 'ERROR' ? `ERROR ${e.object.code}` : `${e.type} ${e.object.metadata?.name} ${e.object.metadata?.resourceVersion}`));
}
