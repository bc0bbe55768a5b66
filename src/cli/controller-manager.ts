// The controller flags shared by `apiary serve` and `apiary controller-manager`,
// and the controller-manager command itself:
//
//   apiary controller-manager --kubeconfig FILE [--concurrent-namespace-syncs N]
//       [--namespace-sync-period DUR] [--namespace-deletion-grace-period DUR]
//       [--system-namespaces-interval DUR] [--log-level LEVEL] [--leader-elect BOOL ...]
//
// (leader election: see leader-elected-controllers.ts)
//
// runs the namespace, resource quota and system namespaces controllers against any apiary (or
// Kubernetes) API server until SIGTERM or SIGINT, then stops them cleanly and
// exits 0. Flag names follow kube-controller-manager where one exists.

import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { RestClient } from '../client/index.js';
import { PROPAGATION_CONTROLLER_USER } from '../tenancy/propagation-protection.js';
import type { ControllerManagerOptions } from '../controllers/manager.js';
import { parseDurationFlag } from './duration.js';
import { exitOnSignals } from './lifecycle.js';
import { LEADER_ELECTION_FLAGS_USAGE, leaderElectionFlagOptions, leaderElectionFromFlags, startLeaderElectedControllers } from './leader-elected-controllers.js';

export const CONTROLLER_FLAGS_USAGE = `Controller flags:
  --concurrent-namespace-syncs N      namespaces deleted at once (default 10)
  --namespace-sync-period DUR         namespace informer resync (default 5m)
  --namespace-deletion-grace-period DUR
                                      wait after a namespace's deletion before emptying it (default 5s)
  --namespace-deletion-unavailable-group-timeout DUR
                                      how long an API group whose discovery keeps failing (an
                                      extension server that is down) may hold a namespace's
                                      deletion; then it is released without that group's content
                                      (default 5m; upstream waits forever)
  --system-namespaces-interval DUR    how often system namespaces are re-created (default 1m)
  --concurrent-resource-quota-syncs N quotas recalculated at once (default 5)
  --resource-quota-sync-period DUR    every quota is recalculated this often (default 5m)
  --concurrent-gc-syncs N             garbage collector workers (default 20)
  --enable-garbage-collector BOOL     run the garbage collector (default true)
`;

export const CONTROLLER_MANAGER_USAGE = `Usage: apiary controller-manager --kubeconfig FILE [flags]

Flags:
  --kubeconfig FILE                   the API server to manage
  --log-level LEVEL                   trace | debug | info | warn | error | silent (default info)
${CONTROLLER_FLAGS_USAGE}${LEADER_ELECTION_FLAGS_USAGE}`;

/** parseArgs options for the controller flags. */
export const controllerFlagOptions = {
  'concurrent-namespace-syncs': { type: 'string', default: '10' },
  'namespace-sync-period': { type: 'string', default: '5m' },
  'namespace-deletion-grace-period': { type: 'string', default: '5s' },
  'namespace-deletion-unavailable-group-timeout': { type: 'string', default: '5m' },
  'system-namespaces-interval': { type: 'string', default: '1m' },
  'concurrent-resource-quota-syncs': { type: 'string', default: '5' },
  'resource-quota-sync-period': { type: 'string', default: '5m' },
  'concurrent-gc-syncs': { type: 'string', default: '20' },
  'enable-garbage-collector': { type: 'string', default: 'true' },
} as const;

export type ControllerFlagValues = { [K in keyof typeof controllerFlagOptions]: string };

/** Controller manager options from parsed flags; throws Error with the flag's name when one is invalid. */
export function controllerOptionsFromFlags(values: ControllerFlagValues): Omit<ControllerManagerOptions, 'client'> {
  const duration = (flag: keyof ControllerFlagValues): number => parseDurationFlag(flag, values[flag]);
  const workers = Number(values['concurrent-namespace-syncs']);
  if (!Number.isInteger(workers) || workers < 1) {
    throw new Error(`invalid --concurrent-namespace-syncs ${JSON.stringify(values['concurrent-namespace-syncs'])}: want a positive integer`);
  }
  const quotaWorkers = Number(values['concurrent-resource-quota-syncs']);
  if (!Number.isInteger(quotaWorkers) || quotaWorkers < 1) {
    throw new Error(`invalid --concurrent-resource-quota-syncs ${JSON.stringify(values['concurrent-resource-quota-syncs'])}: want a positive integer`);
  }
  const gcWorkers = Number(values['concurrent-gc-syncs']);
  if (!Number.isInteger(gcWorkers) || gcWorkers < 1) {
    throw new Error(`invalid --concurrent-gc-syncs ${JSON.stringify(values['concurrent-gc-syncs'])}: want a positive integer`);
  }
  const gcEnabled = values['enable-garbage-collector'];
  if (gcEnabled !== 'true' && gcEnabled !== 'false') {
    throw new Error(`invalid --enable-garbage-collector ${JSON.stringify(gcEnabled)}: want true or false`);
  }
  const quotaPeriod = duration('resource-quota-sync-period');
  if (quotaPeriod <= 0) throw new Error('invalid --resource-quota-sync-period: must be positive');
  const interval = duration('system-namespaces-interval');
  if (interval <= 0) throw new Error('invalid --system-namespaces-interval: must be positive');
  return {
    concurrentNamespaceSyncs: workers,
    namespaceSyncPeriodMs: duration('namespace-sync-period'),
    namespaceDeletionGracePeriodMs: duration('namespace-deletion-grace-period'),
    namespaceDeletionUnavailableGroupTimeoutMs: duration('namespace-deletion-unavailable-group-timeout'),
    systemNamespacesIntervalMs: interval,
    concurrentResourceQuotaSyncs: quotaWorkers,
    resourceQuotaSyncPeriodMs: quotaPeriod,
    concurrentGcSyncs: gcWorkers,
    ...(gcEnabled === 'false' ? { controllers: { garbageCollector: false } } : {}),
  };
}

function fail(message: string): never {
  process.stderr.write(`apiary: ${message}\n\n${CONTROLLER_MANAGER_USAGE}`);
  process.exit(2);
}

export async function controllerManagerCommand(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        kubeconfig: { type: 'string', default: '' },
        'log-level': { type: 'string', default: 'info' },
        help: { type: 'boolean', short: 'h', default: false },
        ...controllerFlagOptions,
        ...leaderElectionFlagOptions,
      },
      strict: true,
    }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  if (values.help) {
    process.stdout.write(CONTROLLER_MANAGER_USAGE);
    return;
  }
  if (values.kubeconfig === '') fail('--kubeconfig is required');
  let options: Omit<ControllerManagerOptions, 'client'>;
  let election: ReturnType<typeof leaderElectionFromFlags>;
  try {
    options = controllerOptionsFromFlags(values);
    election = leaderElectionFromFlags(values);
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  const logger = pino({ level: values['log-level'], base: { component: 'controller-manager' } });
  const client = RestClient.fromKubeconfig(values.kubeconfig);
  // Propagated copies are written as the hierarchy's own identity (the only one admission lets write them),
  // impersonated with the kubeconfig's credentials (which must allow impersonation, as a cluster admin's do).
  const hncPropagation = new RestClient({ ...client.config, impersonate: { user: PROPAGATION_CONTROLLER_USER, groups: ['system:masters'] } });
  // With --leader-elect (the default) the namespace controller runs only while this process holds the Lease.
  const manager = startLeaderElectedControllers({ ...options, client, clients: { ...options.clients, hncPropagation }, logger }, election);
  process.stdout.write(`apiary controller-manager running against ${client.config.server}\n`);

  exitOnSignals(() => manager.stop().then(() => Promise.all([client.close(), hncPropagation.close()])).then(() => undefined));
}
