import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTable } from '../../src/api/tables/index.js';
import type { KubeObject } from '../../src/machinery/meta.js';

const NOW = new Date('2024-06-01T12:00:00Z');
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const S = 1000;
const M = 60 * S;

interface PodCase {
  name: string;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  deleting?: boolean;
  /** READY, STATUS, RESTARTS */
  want: [string, string, string];
}

const running = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  ready: true,
  restartCount: 0,
  state: { running: { startedAt: ago(10 * M) } },
  ...extra,
});

const cases: PodCase[] = [
  { name: 'new pod, nothing reported', spec: { containers: [{ name: 'a' }] }, want: ['0/1', '', '0'] },
  { name: 'pending', spec: { containers: [{ name: 'a' }] }, status: { phase: 'Pending' }, want: ['0/1', 'Pending', '0'] },
  {
    name: 'container creating',
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: {
      phase: 'Pending',
      containerStatuses: [
        { name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
        { name: 'b', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
      ],
    },
    want: ['0/2', 'ContainerCreating', '0'],
  },
  {
    name: 'running and ready',
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: { phase: 'Running', containerStatuses: [running('a'), running('b', { ready: false })] },
    want: ['1/2', 'Running', '0'],
  },
  {
    name: 'completed',
    spec: { containers: [{ name: 'a' }] },
    status: {
      phase: 'Succeeded',
      containerStatuses: [{ name: 'a', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    },
    want: ['0/1', 'Completed', '0'],
  },
  {
    name: 'one container completed while another runs',
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } }, running('b')],
    },
    want: ['1/2', 'Running', '0'],
  },
  {
    name: 'completed container beside a running one, pod not ready',
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: {
      phase: 'Running',
      containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } }, running('b')],
    },
    want: ['1/2', 'NotReady', '0'],
  },
  {
    name: 'crash loop with restarts and last termination time',
    spec: { containers: [{ name: 'a' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'a',
          ready: false,
          restartCount: 5,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, finishedAt: ago(3 * M) } },
        },
      ],
    },
    want: ['0/1', 'CrashLoopBackOff', '5 (3m ago)'],
  },
  {
    name: 'terminated without reason: exit code, then signal',
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
    status: {
      phase: 'Failed',
      containerStatuses: [
        { name: 'a', state: { terminated: { exitCode: 137 } } },
        { name: 'b', state: { terminated: { exitCode: 0, signal: 9 } } },
      ],
    },
    want: ['0/2', 'ExitCode:137', '0'],
  },
  {
    name: 'init containers in progress',
    spec: { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'a' }] },
    status: {
      phase: 'Pending',
      initContainerStatuses: [
        { name: 'i1', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        { name: 'i2', state: { running: {} } },
      ],
      containerStatuses: [{ name: 'a', state: { waiting: { reason: 'PodInitializing' } } }],
    },
    want: ['0/1', 'Init:1/2', '0'],
  },
  {
    name: 'init container crash looping',
    spec: { initContainers: [{ name: 'i1' }], containers: [{ name: 'a' }] },
    status: {
      phase: 'Pending',
      initContainerStatuses: [{ name: 'i1', restartCount: 2, state: { waiting: { reason: 'CrashLoopBackOff' } } }],
    },
    want: ['0/1', 'Init:CrashLoopBackOff', '2'],
  },
  {
    name: 'init container failed',
    spec: { initContainers: [{ name: 'i1' }], containers: [{ name: 'a' }] },
    status: { phase: 'Pending', initContainerStatuses: [{ name: 'i1', state: { terminated: { exitCode: 3 } } }] },
    want: ['0/1', 'Init:ExitCode:3', '0'],
  },
  {
    name: 'restartable init (sidecar) container counts toward READY',
    spec: { initContainers: [{ name: 'side', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [{ name: 'side', started: true, ready: true, restartCount: 1, state: { running: {} } }],
      containerStatuses: [running('a')],
    },
    want: ['2/2', 'Running', '1'],
  },
  {
    name: 'scheduling gated',
    spec: { containers: [{ name: 'a' }] },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    want: ['0/1', 'SchedulingGated', '0'],
  },
  {
    name: 'status.reason wins over phase',
    spec: { containers: [{ name: 'a' }] },
    status: { phase: 'Failed', reason: 'Evicted' },
    want: ['0/1', 'Evicted', '0'],
  },
  {
    name: 'terminating',
    spec: { containers: [{ name: 'a' }] },
    status: { phase: 'Running', containerStatuses: [running('a')] },
    deleting: true,
    want: ['1/1', 'Terminating', '0'],
  },
  {
    name: 'deleted after success stays Completed',
    spec: { containers: [{ name: 'a' }] },
    status: { phase: 'Succeeded', containerStatuses: [{ name: 'a', state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
    deleting: true,
    want: ['0/1', 'Completed', '0'],
  },
  {
    name: 'deleted on a lost node',
    spec: { containers: [{ name: 'a' }] },
    status: { phase: 'Running', reason: 'NodeLost' },
    deleting: true,
    want: ['0/1', 'Unknown', '0'],
  },
];

test('pod READY / STATUS / RESTARTS follow upstream printPod', () => {
  for (const c of cases) {
    const pod: KubeObject = {
      metadata: {
        name: 'p',
        creationTimestamp: ago(20 * M),
        ...(c.deleting ? { deletionTimestamp: ago(5 * S) } : {}),
      },
      spec: c.spec ?? {},
      status: c.status ?? {},
    };
    const cells = buildTable('', 'Pod', [pod], { now: NOW }).rows[0]!.cells;
    assert.deepEqual(cells.slice(1, 4), c.want, c.name);
    assert.equal(cells[4], '20m');
  }
});

test('pod wide columns: IP, node, nominated node, readiness gates', () => {
  const pod: KubeObject = {
    metadata: { name: 'p', creationTimestamp: ago(M) },
    spec: { nodeName: 'node-a', containers: [{ name: 'a' }], readinessGates: [{ conditionType: 'x/ready' }, { conditionType: 'y/ready' }] },
    status: {
      phase: 'Running',
      podIP: '10.1.2.3',
      podIPs: [{ ip: '10.1.2.3' }, { ip: 'fd00::3' }],
      conditions: [
        { type: 'x/ready', status: 'True' },
        { type: 'y/ready', status: 'False' },
      ],
    },
  };
  assert.deepEqual(buildTable('', 'Pod', [pod], { now: NOW }).rows[0]!.cells.slice(5), ['10.1.2.3', 'node-a', '<none>', '1/2']);
  const bare: KubeObject = { metadata: { name: 'q', creationTimestamp: ago(M) }, spec: { containers: [] }, status: { nominatedNodeName: 'n2' } };
  assert.deepEqual(buildTable('', 'Pod', [bare], { now: NOW }).rows[0]!.cells.slice(5), ['<none>', '<none>', 'n2', '<none>']);
});

test('finished pods carry the Completed row condition', () => {
  const row = (phase: string) =>
    buildTable('', 'Pod', [{ metadata: { name: 'p' }, spec: { containers: [] }, status: { phase } }], { now: NOW }).rows[0]!;
  assert.deepEqual(row('Succeeded').conditions, [
    { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
  ]);
  assert.deepEqual(row('Failed').conditions, [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
  assert.equal(row('Running').conditions, undefined);
});
