// Table printers (kube-apiserver 1.32's columns and cells for `kubectl get`) of
// core/v1 Pods: upstream's printPod status logic (init containers, restartable
// init containers, terminating and unreachable pods), with the row conditions
// kubectl uses to hide completed pods.
import { AGE_COLUMN, column, NAME_COLUMN, type Printer } from '../../tables/printer.js';
import { arr, at, int, type Obj, rec, str } from '../../tables/fields.js';
import { parseTimestamp, timeSince } from '../../tables/duration.js';
import type { TableRowCondition } from '../../tables/types.js';

const NODE_UNREACHABLE_REASON = 'NodeLost';

const SUCCEEDED_CONDITIONS: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
];
const FAILED_CONDITIONS: TableRowCondition[] = [
  { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
];

function isRestartableInit(container: Obj | undefined): boolean {
  return container !== undefined && container.restartPolicy === 'Always';
}

function hasCondition(conditions: unknown[], type: string): boolean {
  return conditions.some((c) => rec(c).type === type && rec(c).status === 'True');
}

/** The later of a running "last restart" time and a container's last termination. */
function laterTermination(current: number | undefined, status: Obj): number | undefined {
  const finished = parseTimestamp(at(status, 'lastState', 'terminated', 'finishedAt'));
  if (rec(at(status, 'lastState')).terminated === undefined) return current;
  // An unset finishedAt on a terminated state is Go's zero time, earlier than anything.
  if (finished === undefined) return current;
  return current === undefined || current < finished ? finished : current;
}

function terminatedReason(terminated: Obj, prefix: string): string {
  if (str(terminated.reason) !== '') return `${prefix}${str(terminated.reason)}`;
  if (int(terminated.signal) !== 0) return `${prefix}Signal:${int(terminated.signal)}`;
  return `${prefix}ExitCode:${int(terminated.exitCode)}`;
}

export const podPrinter: Printer = {
  columns: [
    NAME_COLUMN,
    column('Ready', 'string', 'Ready containers out of all containers of the pod.'),
    column('Status', 'string', 'Summary of the pod and container states.'),
    column('Restarts', 'string', 'Container restarts, and how long ago the last one was.'),
    AGE_COLUMN,
    column('IP', 'string', 'IP address of the pod.', { priority: 1 }),
    column('Node', 'string', 'Node the pod is bound to.', { priority: 1 }),
    column('Nominated Node', 'string', 'Node the scheduler nominated for preemption.', { priority: 1 }),
    column('Readiness Gates', 'string', 'True readiness gates out of all readiness gates.', { priority: 1 }),
  ],
  print: (pod, now) => {
    const spec = rec(pod.spec);
    const status = rec(pod.status);
    const conditions = arr(status.conditions);
    const phase = str(status.phase);
    const specInit = arr(spec.initContainers).map(rec);

    let restarts = 0;
    let restartableInitRestarts = 0;
    let totalContainers = arr(spec.containers).length;
    let readyContainers = 0;
    let lastRestart: number | undefined;
    let lastRestartableInitRestart: number | undefined;

    let reason = str(status.reason) !== '' ? str(status.reason) : phase;
    for (const raw of conditions) {
      const c = rec(raw);
      if (c.type === 'PodScheduled' && c.reason === 'SchedulingGated') reason = 'SchedulingGated';
    }

    let rowConditions: TableRowCondition[] | undefined;
    if (phase === 'Succeeded') rowConditions = SUCCEEDED_CONDITIONS;
    else if (phase === 'Failed') rowConditions = FAILED_CONDITIONS;

    const initByName = new Map<string, Obj>();
    for (const c of specInit) {
      initByName.set(str(c.name), c);
      if (isRestartableInit(c)) totalContainers++;
    }

    let initializing = false;
    const initStatuses = arr(status.initContainerStatuses).map(rec);
    for (let i = 0; i < initStatuses.length; i++) {
      const cs = initStatuses[i]!;
      const restartable = isRestartableInit(initByName.get(str(cs.name)));
      restarts += int(cs.restartCount);
      lastRestart = laterTermination(lastRestart, cs);
      if (restartable) {
        restartableInitRestarts += int(cs.restartCount);
        lastRestartableInitRestart = laterTermination(lastRestartableInitRestart, cs);
      }
      const state = rec(cs.state);
      const terminated = state.terminated === undefined ? undefined : rec(state.terminated);
      const waiting = state.waiting === undefined ? undefined : rec(state.waiting);
      if (terminated !== undefined && int(terminated.exitCode) === 0) continue;
      if (restartable && cs.started === true) {
        if (cs.ready === true) readyContainers++;
        continue;
      }
      if (terminated !== undefined) {
        reason = terminatedReason(terminated, 'Init:');
      } else if (waiting !== undefined && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') {
        reason = `Init:${str(waiting.reason)}`;
      } else {
        reason = `Init:${i}/${specInit.length}`;
      }
      initializing = true;
      break;
    }

    if (!initializing || hasCondition(conditions, 'Initialized')) {
      restarts = restartableInitRestarts;
      lastRestart = lastRestartableInitRestart;
      let hasRunning = false;
      const statuses = arr(status.containerStatuses).map(rec);
      // Walk backwards so the first container's reason is the one left standing.
      for (let i = statuses.length - 1; i >= 0; i--) {
        const cs = statuses[i]!;
        restarts += int(cs.restartCount);
        lastRestart = laterTermination(lastRestart, cs);
        const state = rec(cs.state);
        const waiting = state.waiting === undefined ? undefined : rec(state.waiting);
        const terminated = state.terminated === undefined ? undefined : rec(state.terminated);
        if (waiting !== undefined && str(waiting.reason) !== '') {
          reason = str(waiting.reason);
        } else if (terminated !== undefined) {
          reason = terminatedReason(terminated, '');
        } else if (cs.ready === true && state.running !== undefined) {
          hasRunning = true;
          readyContainers++;
        }
      }
      // A pod whose first container completed while another still runs is not "Completed".
      if (reason === 'Completed' && hasRunning) {
        reason = hasCondition(conditions, 'Ready') ? 'Running' : 'NotReady';
      }
    }

    const deleting = parseTimestamp(at(pod, 'metadata', 'deletionTimestamp')) !== undefined;
    if (deleting && status.reason === NODE_UNREACHABLE_REASON) reason = 'Unknown';
    else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

    let restartsCell = String(restarts);
    if (restarts !== 0 && lastRestart !== undefined) {
      restartsCell = `${restarts} (${timeSince(new Date(lastRestart).toISOString(), now)} ago)`;
    }

    const podIPs = arr(status.podIPs).map((p) => str(rec(p).ip));
    const podIP = (podIPs[0] ?? str(status.podIP)) || '<none>';
    const nodeName = str(spec.nodeName) || '<none>';
    const nominated = str(status.nominatedNodeName) || '<none>';
    let readinessGates = '<none>';
    const gates = arr(spec.readinessGates).map(rec);
    if (gates.length > 0) {
      let trueCount = 0;
      for (const gate of gates) {
        const match = conditions.map(rec).find((c) => c.type === gate.conditionType);
        if (match !== undefined && match.status === 'True') trueCount++;
      }
      readinessGates = `${trueCount}/${gates.length}`;
    }

    const row = {
      cells: [
        str(at(pod, 'metadata', 'name')),
        `${readyContainers}/${totalContainers}`,
        reason,
        restartsCell,
        timeSince(at(pod, 'metadata', 'creationTimestamp'), now),
        podIP,
        nodeName,
        nominated,
        readinessGates,
      ],
    };
    return rowConditions === undefined ? row : { ...row, conditions: rowConditions };
  },
};
