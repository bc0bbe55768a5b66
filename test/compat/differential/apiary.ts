// The apiary side of the differential test: the server in-process (as
// test/helpers/server.ts starts it: sqlite in a temporary directory, plain
// HTTP on a free port, token authentication and RBAC) with apiary's controllers beside it, wired as
// `apiary serve` wires them, less the resource quota controller (as the
// reference's controller manager runs none).

import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { RestClient } from '../../../src/client/index.js';
import { CachedObjectStore } from '../../../src/storage/cacher/cacher.js';
import { startControllerManager } from '../../../src/controllers/manager.js';
import { startTestServer } from '../../helpers/server.js';
import type { Target } from './client.js';

/** The resources whose watch caches a failed case reports (the in-process informers' and controllers'). */
const DIAGNOSED: [string, string][] = [
  ['apiextensions.k8s.io', 'customresourcedefinitions'],
  ['', 'namespaces'],
  ['admissionregistration.k8s.io', 'validatingadmissionpolicies'],
  ['admissionregistration.k8s.io', 'validatingadmissionpolicybindings'],
];

export interface ApiaryUnderTest {
  target: Target;
  /** The server's warnings so far (its controllers' failures, say): a failed case prints them. */
  warnings(): string[];
  /** The watch caches of the resources in-process consumers follow (CRDs, namespaces, admission policies): how far each has got. */
  diagnose(): Promise<string>;
  stop(): Promise<void>;
}

export async function startApiary(): Promise<ApiaryUnderTest> {
  // Authentication and RBAC on, as the reference: the runner is a system:masters token user (plain HTTP
  // keeps the runner's client simple; TLS is covered by test/security), so impersonating steps are authorized.
  const token = randomBytes(24).toString('hex');
  const tokenDir = mkdtempSync(join(tmpdir(), 'apiary-diff-tokens-'));
  writeFileSync(join(tokenDir, 'tokens.csv'), `${token},differential,differential-uid,"system:masters"\n`, { mode: 0o600 });
  // Warnings (not the requests' errors, which many cases ask for) go to a file the test prints on failure.
  const logDir = mkdtempSync(join(tmpdir(), 'apiary-diff-log-'));
  const logFile = join(logDir, 'server.log');
  const logger = pino({ level: 'warn' }, pino.destination({ dest: logFile, sync: true }));
  const warnings = (): string[] =>
    existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter((line) => line.startsWith('{"level":40')) : [];
  // The kubernetes Service, its endpoints and the kube-system objects, as `apiary serve` keeps them.
  const server = await startTestServer({
    security: { tls: false, tokenAuthFile: join(tokenDir, 'tokens.csv') },
    endpointReconcilerType: 'lease',
    controlPlaneObjects: true,
    logger,
  });
  rmSync(tokenDir, { recursive: true, force: true });
  const client = new RestClient({ server: server.url, bearerToken: token });
  // The reference runs no resource quota controller (reference.ts says why); neither does apiary here.
  // Every namespace gets its `default` service account, as the reference's serviceaccount controller makes
  // it; no kube-root-ca.crt (the reference runs no root-ca-cert-publisher).
  const controllers = startControllerManager({ client, controllers: { resourceQuota: false, namespaceDefaults: true } });
  try {
    await controllers.systemNamespacesSynced;
  } catch (err) {
    await controllers.stop();
    await client.close();
    await server.stop();
    rmSync(logDir, { recursive: true, force: true });
    throw err;
  }
  return {
    target: { name: 'apiary', base: server.url, token },
    warnings,
    diagnose: async () => {
      const lines: string[] = [];
      for (const [group, resource] of DIAGNOSED) {
        const storage = (server.registry.storeFor(group, resource) as unknown as { storage?: unknown } | undefined)?.storage;
        if (!(storage instanceof CachedObjectStore)) continue;
        lines.push(`${resource}: ${JSON.stringify(storage.describe())}, backend at ${await storage.currentResourceVersion()}`);
      }
      lines.push(`the CRD controller: ${JSON.stringify(server.describeCustomResources())}`);
      return lines.join('\n');
    },
    stop: async () => {
      await controllers.stop();
      await client.close();
      await server.stop();
      rmSync(logDir, { recursive: true, force: true });
    },
  };
}
