// The apiary side of the chart pass: as the differential pass starts it
// (../differential/apiary.ts: sqlite in a temporary directory, apiary's
// controllers beside it, less the resource quota controller), but served over
// TLS, since kubectl and Helm send no bearer token over plain HTTP: they use
// the admin kubeconfig the server writes (a client certificate of
// system:masters).

import { RestClient, loadKubeconfig } from '../../../src/client/index.js';
import { startControllerManager } from '../../../src/controllers/manager.js';
import { startTestServer } from '../../helpers/server.js';

export async function startApiaryTls(): Promise<{ kubeconfig: string; stop(): Promise<void> }> {
  const server = await startTestServer({ endpointReconcilerType: 'lease', controlPlaneObjects: true });
  const client = new RestClient(loadKubeconfig(server.kubeconfigPath));
  const controllers = startControllerManager({ client, controllers: { resourceQuota: false, namespaceDefaults: true } });
  try {
    await controllers.systemNamespacesSynced;
  } catch (err) {
    await controllers.stop();
    await client.close();
    await server.stop();
    throw err;
  }
  return {
    kubeconfig: server.kubeconfigPath,
    stop: async () => {
      await controllers.stop();
      await client.close();
      await server.stop();
    },
  };
}
