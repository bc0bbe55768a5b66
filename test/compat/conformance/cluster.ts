// The two simulated clusters the conformance pass runs upstream's specs on,
// built alike so that only the API server differs:
//
// - apiary: `apiary serve` (TLS, authentication, RBAC, SQLite; its own
//   namespace, garbage collector, quota, service account, token, root CA and
//   PVC protection controllers) as a child process;
// - reference: kube-apiserver 1.32.4 on etcd 3.5 with a kube-controller-manager
//   running the same controllers apiary runs itself (test/compat/differential/
//   reference.ts, with the controller list below);
//
// and beside each, from test/compat/controlplane/cluster.ts: a second
// kube-controller-manager with every other default controller (`*` minus the
// ones above: deployments, replica sets, endpoints, jobs, CSR approval…),
// kube-scheduler and kwok, plus NODES kwok nodes. Logs go to files in the
// side's directory; stop() ends everything it started.

import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { freePort } from '../../helpers/free-port.js';
import { join } from 'node:path';
import { spawnApiary } from '../../helpers/apiary-process.js';
import { runKubectl } from '../../helpers/kubectl.js';
import { until } from '../../helpers/wait.js';
import { kwokNode, missingBinaries as missingControlPlaneBinaries, startUpstreamControllers } from '../controlplane/cluster.js';
import { referenceBinariesMissing, startReference } from '../differential/reference.js';

/** kube-controller-manager's names for the controllers `apiary serve` runs itself (its --controllers selection, plus the token controller). */
export const APIARY_OWN_CONTROLLERS = [
  'namespace-controller',
  'garbage-collector-controller',
  'resourcequota-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
  'persistentvolumeclaim-protection-controller',
];

/** Schedulable kwok nodes per cluster (some specs want two). */
export const NODES = 2;

export interface Side {
  name: 'apiary' | 'reference';
  /** An admin kubeconfig (system:masters). */
  kubeconfig: string;
  /** Stops everything this side started. */
  stop(): Promise<void>;
  /** A program that exited early, with its log tail. */
  exitedEarly(): string | undefined;
}

export function missingBinaries(): string[] {
  return [...new Set([...missingControlPlaneBinaries(), ...referenceBinariesMissing()])];
}

/** The second kube-controller-manager, the scheduler, kwok and the nodes, on a running API server. */
async function addControlPlane(kubeconfig: string, dir: string, alreadyRunning: string[]): Promise<{ stop(): Promise<unknown>; exitedEarly(): string | undefined }> {
  const upstream = startUpstreamControllers(kubeconfig, dir, { extraControllers: ['*', ...alreadyRunning.map((c) => `-${c}`)], verbosity: 1 });
  try {
    for (let i = 0; i < NODES; i++) {
      const r = await runKubectl(kubeconfig, ['apply', '-f', '-'], { stdin: JSON.stringify(kwokNode(`kwok-node-${i}`)) });
      if (r.code !== 0) throw new Error(`creating a kwok node failed: ${r.stderr}`);
    }
    const ready = await runKubectl(kubeconfig, ['wait', '--for=condition=Ready', 'node', '--all', '--timeout=60s'], { timeoutMs: 70_000 });
    if (ready.code !== 0) throw new Error(`kwok nodes not Ready: ${ready.stderr}${upstream.exitedEarly() ?? ''}`);
    // The e2e framework wants every pod's service account: the default one must exist before the first spec.
    await until('the default service account', async () => (await runKubectl(kubeconfig, ['get', 'serviceaccount', 'default', '-n', 'default'])).code === 0, 60_000, 250);
  } catch (err) {
    await upstream.stop();
    throw err;
  }
  return upstream;
}

export async function startApiarySide(dir: string): Promise<Side> {
  mkdirSync(dir, { recursive: true });
  const dataDir = join(dir, 'data');
  const log = createWriteStream(join(dir, 'apiary.log'));
  const apiary = spawnApiary(['serve', '--data-dir', dataDir, '--bind-address', '127.0.0.1', '--secure-port', String(await freePort()), '--allow-privileged=true'], {
    secure: true,
    onLine: (line) => log.write(line + '\n'),
  });
  const stopApiary = async (): Promise<void> => {
    await apiary.stop();
    writeFileSync(join(dir, 'apiary.output'), apiary.output());
    await new Promise<void>((done) => log.end(() => done()));
  };
  try {
    await apiary.url;
    const kubeconfig = join(dataDir, 'kubeconfig');
    const plane = await addControlPlane(kubeconfig, dir, APIARY_OWN_CONTROLLERS);
    return {
      name: 'apiary',
      kubeconfig,
      exitedEarly: () => plane.exitedEarly() ?? (apiary.child.exitCode !== null ? `apiary exited (${apiary.child.exitCode}):\n${apiary.output().slice(-4000)}` : undefined),
      async stop() {
        await plane.stop();
        await stopApiary();
      },
    };
  } catch (err) {
    await stopApiary();
    throw err;
  }
}

export async function startReferenceSide(dir: string): Promise<Side> {
  mkdirSync(dir, { recursive: true });
  const reference = await startReference({
    controllers: APIARY_OWN_CONTROLLERS,
    rootCaFile: true,
    // As conformance clusters run it (apiary's side has the same flag).
    apiserverArgs: ['--allow-privileged=true'],
    // Its quota controller recounts a changed quota's status on this period (default 5 minutes; apiary's reacts at once):
    // "ResourceQuota should apply changes to a resourcequota status" waits for that.
    controllerManagerArgs: ['--resource-quota-sync-period=10s'],
    startTimeoutMs: 180_000,
  });
  try {
    const kubeconfig = reference.kubeconfig!;
    const plane = await addControlPlane(kubeconfig, dir, APIARY_OWN_CONTROLLERS);
    return {
      name: 'reference',
      kubeconfig,
      exitedEarly: () => plane.exitedEarly(),
      async stop() {
        await plane.stop();
        await reference.stop();
      },
    };
  } catch (err) {
    await reference.stop();
    throw err;
  }
}
