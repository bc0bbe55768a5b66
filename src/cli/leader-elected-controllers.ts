// Controllers under leader election, for `apiary serve` and `apiary
// controller-manager`, with kube-controller-manager's flags:
//
//   --leader-elect BOOL                    (default true)
//   --leader-elect-lease-duration DUR      (default 15s)
//   --leader-elect-renew-deadline DUR      (default 10s)
//   --leader-elect-retry-period DUR        (default 2s)
//   --leader-elect-resource-name NAME      (default apiary-controller-manager)
//   --leader-elect-resource-namespace NS   (default kube-system)
//
// Split as upstream splits it: the system namespaces controller is part of the
// API server in Kubernetes and runs on every server (it only creates what is
// missing, so several copies are harmless, and it must run for kube-system —
// where the Lease lives — to exist at all); the namespace controller is
// kube-controller-manager's and runs only on the candidate holding the Lease,
// as do the resource quota, garbage collector and pvc-protection controllers.
// `--controllers` choices hold on both sides.
// Losing the Lease stops it (and waits until it has stopped) before this
// candidate campaigns again. With --leader-elect=false every controller runs
// unconditionally, as before.

import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { type ClientLogger, runWhileLeader, validateTiming } from '../client/index.js';
import { type ControllerManagerOptions, type RunningControllerManager, startControllerManager } from '../controllers/manager.js';
import { parseDurationFlag } from './duration.js';

export const LEADER_ELECTION_FLAGS_USAGE = `Leader election flags:
  --leader-elect BOOL                 run the namespace controller only while holding the lease (default true)
  --leader-elect-lease-duration DUR   how long a leader's claim lasts without renewal (default 15s)
  --leader-elect-renew-deadline DUR   how long the leader retries renewing before it stops leading (default 10s)
  --leader-elect-retry-period DUR     time between acquire and renew attempts (default 2s)
  --leader-elect-resource-name NAME   the Lease's name (default apiary-controller-manager)
  --leader-elect-resource-namespace NS
                                      the Lease's namespace (default kube-system)
`;

/** parseArgs options for the leader election flags. */
export const leaderElectionFlagOptions = {
  'leader-elect': { type: 'string', default: 'true' },
  'leader-elect-lease-duration': { type: 'string', default: '15s' },
  'leader-elect-renew-deadline': { type: 'string', default: '10s' },
  'leader-elect-retry-period': { type: 'string', default: '2s' },
  'leader-elect-resource-name': { type: 'string', default: 'apiary-controller-manager' },
  'leader-elect-resource-namespace': { type: 'string', default: 'kube-system' },
} as const;

export type LeaderElectionFlagValues = { [K in keyof typeof leaderElectionFlagOptions]: string };

export interface LeaderElectionSettings {
  enabled: boolean;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  name: string;
  namespace: string;
  /** This process's holderIdentity (hostname_uuid, as kube-controller-manager). */
  identity: string;
}

/** Settings from parsed flags; throws an Error naming the flag when one is invalid. */
export function leaderElectionFromFlags(values: LeaderElectionFlagValues): LeaderElectionSettings {
  const enabled = values['leader-elect'];
  if (enabled !== 'true' && enabled !== 'false') throw new Error(`invalid --leader-elect ${JSON.stringify(enabled)}: want true or false`);
  const duration = (flag: keyof LeaderElectionFlagValues): number => parseDurationFlag(flag, values[flag]);
  const settings: LeaderElectionSettings = {
    enabled: enabled === 'true',
    leaseDurationMs: duration('leader-elect-lease-duration'),
    renewDeadlineMs: duration('leader-elect-renew-deadline'),
    retryPeriodMs: duration('leader-elect-retry-period'),
    name: values['leader-elect-resource-name'],
    namespace: values['leader-elect-resource-namespace'],
    identity: defaultIdentity(),
  };
  if (settings.enabled) {
    try {
      validateTiming(settings.leaseDurationMs, settings.renewDeadlineMs, settings.retryPeriodMs);
    } catch (err) {
      throw new Error(`invalid leader election flags: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return settings;
}

export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/**
 * Starts the controllers: everything at once without leader election;
 * otherwise the system namespaces controller at once and the namespace
 * controller whenever this process holds the Lease. stop() ends both and
 * resolves when every loop has finished (releasing the Lease if held).
 */
export function startLeaderElectedControllers(
  options: ControllerManagerOptions,
  election: LeaderElectionSettings,
): RunningControllerManager & { isLeading(): boolean } {
  if (!election.enabled) {
    const manager = startControllerManager(options);
    return Object.assign(manager, { isLeading: () => true });
  }
  const log: ClientLogger | undefined = options.logger;
  const identity = election.identity || defaultIdentity();
  // The selection (--controllers) holds on both sides of the split; each controller runs on one side only.
  const wanted = options.controllers ?? {};
  const always = startControllerManager({
    ...options,
    controllers: {
      ...wanted,
      namespace: false,
      systemNamespaces: wanted.systemNamespaces !== false,
      resourceQuota: false,
      hierarchicalQuota: false,
      pvcProtection: false,
      garbageCollector: false,
      hncPropagation: false,
      namespaceDefaults: wanted.namespaceDefaults === true,
      clusterInfo: wanted.clusterInfo === true,
    },
  });
  const abort = new AbortController();
  let leading = false;
  const campaign = runWhileLeader(
    {
      // The Lease is apiary's own (not kube-controller-manager's, which its role names): kept through the loopback.
      client: options.clients?.apiserver ?? options.client,
      name: election.name,
      namespace: election.namespace,
      identity,
      leaseDurationMs: election.leaseDurationMs,
      renewDeadlineMs: election.renewDeadlineMs,
      retryPeriodMs: election.retryPeriodMs,
      releaseOnCancel: true,
      ...(log !== undefined ? { logger: log } : {}),
    },
    async (signal) => {
      leading = true;
      log?.info({ identity, lease: `${election.namespace}/${election.name}` }, 'started leading: running the namespace controller');
      const manager = startControllerManager({
        ...options,
        controllers: {
          namespace: wanted.namespace !== false,
          systemNamespaces: false,
          resourceQuota: wanted.resourceQuota !== false,
          hierarchicalQuota: wanted.hierarchicalQuota !== false,
          pvcProtection: wanted.pvcProtection !== false,
          garbageCollector: wanted.garbageCollector !== false,
          hncPropagation: wanted.hncPropagation !== false,
          crdCleanup: false,
          namespaceDefaults: false,
          clusterInfo: false,
        },
      });
      try {
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        });
      } finally {
        await manager.stop();
        leading = false;
        log?.info({ identity }, 'stopped leading: namespace controller stopped');
      }
    },
    abort.signal,
  );
  let stopping: Promise<void> | undefined;
  return {
    systemNamespacesSynced: always.systemNamespacesSynced,
    isLeading: () => leading,
    stop: () =>
      (stopping ??= (async () => {
        abort.abort();
        await campaign;
        await always.stop();
      })()),
  };
}
