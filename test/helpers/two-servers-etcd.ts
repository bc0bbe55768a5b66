// Two apiary servers on one etcd 3.5 with apiary's controllers run once,
// against the first: the fixture of the multi-server tenancy tests. Needs etcd
// 3.5 (test/compat/etcd-3.5/bin/etcd, built by scripts/run-tests.mjs) or
// $ETCD_BIN; `etcd35Binary` is undefined without one, and the tests skip.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RestClient } from '../../src/client/index.js';
import { type ControllerManagerOptions, type RunningControllerManager, startControllerManager } from '../../src/controllers/manager.js';
import { startEtcd, type EtcdCluster } from './etcd.js';
import { startTestServer, type TestServer } from './server.js';

export const ETCD_35_PATH = fileURLToPath(new URL('../compat/etcd-3.5/bin/etcd', import.meta.url));
export const etcd35Binary = process.env.ETCD_BIN ?? (existsSync(ETCD_35_PATH) ? ETCD_35_PATH : undefined);

export interface TwoServers {
  a: TestServer;
  b: TestServer;
  /** A client of server a (the controllers' too). */
  client: RestClient;
  stop(): Promise<void>;
}

export async function startTwoServersOnEtcd(binary: string, controllers: ControllerManagerOptions['controllers']): Promise<TwoServers> {
  let etcd: EtcdCluster | undefined;
  let a: TestServer | undefined;
  let b: TestServer | undefined;
  let client: RestClient | undefined;
  let running: RunningControllerManager | undefined;
  const stop = async (): Promise<void> => {
    await running?.stop();
    await client?.close();
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await etcd?.stop();
  };
  try {
    etcd = await startEtcd({ binary });
    a = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
    b = await startTestServer({ storage: 'etcd', etcdServers: etcd.endpoints });
    client = new RestClient({ server: a.url });
    running = startControllerManager({ client, controllers });
    return { a, b, client, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
