// The apiary side of the differential test: the server in-process (as
// test/helpers/server.ts starts it: sqlite in a temporary directory, plain
// HTTP on a free port) with apiary's controllers beside it, wired as
// `apiary serve` wires them, less the resource quota controller (as the
// reference's controller manager runs none).

import { RestClient } from '../../../src/client/index.js';
import { startControllerManager } from '../../../src/controllers/manager.js';
import { startTestServer } from '../../helpers/server.js';
import type { Target } from './client.js';

export async function startApiary(): Promise<{ target: Target; stop(): Promise<void> }> {
  const server = await startTestServer();
  const client = new RestClient({ server: server.url });
  // The reference runs no resource quota controller (reference.ts says why); neither does apiary here.
  const controllers = startControllerManager({ client, controllers: { resourceQuota: false } });
  try {
    await controllers.systemNamespacesSynced;
  } catch (err) {
    await controllers.stop();
    await client.close();
    await server.stop();
    throw err;
  }
  return {
    target: { name: 'apiary', base: server.url },
    stop: async () => {
      await controllers.stop();
      await client.close();
      await server.stop();
    },
  };
}
