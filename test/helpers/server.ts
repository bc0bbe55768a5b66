// Starts a real apiary server for a test: 127.0.0.1, a free port, quiet logs,
// a fresh temporary data directory (sqlite by default) that stop() removes.
// Always pair with t.after(() => server.stop()) or after(...).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, type RunningServer, type ServerOptions } from '../../src/server/server.js';

export type TestServer = RunningServer & { kubeconfigPath: string; dataDir: string };

export async function startTestServer(options: Partial<ServerOptions> = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-test-'));
  const ownsDataDir = options.dataDir === undefined;
  let server: RunningServer;
  try {
    server = await startServer({
      bindAddress: '127.0.0.1',
      port: 0,
      logLevel: process.env['APIARY_TEST_LOG_LEVEL'] ?? 'silent',
      ...options,
      dataDir,
      writeKubeconfig: true,
    });
  } catch (err) {
    if (ownsDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const stop = async (): Promise<void> => {
    try {
      await server.stop();
    } finally {
      if (ownsDataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    }
  };
  return { ...server, dataDir, kubeconfigPath: server.kubeconfigPath!, stop };
}
