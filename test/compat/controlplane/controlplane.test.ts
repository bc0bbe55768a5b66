// Upstream's own programs run a simulated cluster on apiary: `apiary serve`
// (TLS, authentication, RBAC, its namespace and other controllers) as a child
// process; kube-controller-manager 1.32 (the workload controllers),
// kube-scheduler 1.32 and kwok (simulated nodes and pods) with the admin
// kubeconfig; kubectl 1.32 as the user. Nothing of theirs is patched.
//
// What it proves, in order: a kwok node becomes Ready; a Deployment of 3
// replicas gets its ReplicaSet and 3 pods, which the scheduler binds through
// pods/binding and kwok runs; `kubectl rollout status` succeeds; scaling to 5
// and a rolling update (new image) converge; an eviction under a
// PodDisruptionBudget the disruption controller keeps is allowed once, then
// refused (429) until the replacement runs; a Job completes; a CronJob fires
// and its Job completes; deleting the Deployment removes its ReplicaSets and
// pods through apiary's garbage collector (kube-controller-manager runs no
// collector here); deleting the namespace empties it. Then the three
// programs' logs must show no failed list or watch against apiary.
// A second test turns apiary's collector off (`--controllers
// '*,-garbage-collector-controller'`) and lets kube-controller-manager's
// collect the same way.
//
// Binaries: run by scripts/run-tests.mjs, which builds them with Go
// ($KUBE_CONTROLLER_MANAGER_BIN, $KUBE_SCHEDULER_BIN, $KWOK_BIN); without them
// the test is skipped with the reason.

import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../../helpers/free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { spawnApiary } from '../../helpers/apiary-process.js';
import { runKubectl } from '../../helpers/kubectl.js';
import { until } from '../../helpers/wait.js';
import { kwokNode, listWatchErrors, missingBinaries, startUpstreamControllers } from './cluster.js';

const NS = 'cp-demo';
const NODE = 'kwok-node-0';

const missing = missingBinaries();

test('kube-controller-manager, kube-scheduler and kwok run a simulated cluster on apiary', { skip: missing.length > 0 ? `not built: ${missing.join(', ')} (scripts/run-tests.mjs builds them with Go)` : false, timeout: 240_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-controlplane-'));
  const dataDir = join(dir, 'data');
  const apiary = spawnApiary(['serve', '--data-dir', dataDir, '--bind-address', '127.0.0.1', '--secure-port', String(await freePort())], { secure: true });
  // One teardown, in order: the programs (their logs are read), the server, the directory.
  let stopUpstream: () => Promise<unknown> = async () => {};
  t.after(async () => {
    await stopUpstream();
    await apiary.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await apiary.url;
  const kubeconfig = join(dataDir, 'kubeconfig');
  const kubectl = async (args: string[], stdin?: string, timeoutMs = 90_000): Promise<string> => {
    const r = await runKubectl(kubeconfig, args, { ...(stdin !== undefined ? { stdin } : {}), timeoutMs });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  const json = async (args: string[]): Promise<Record<string, unknown> & { items: Record<string, any>[] }> => JSON.parse(await kubectl([...args, '-o', 'json']));

  // The scheduler's default profile watches the storage API (volume plugins); a server without it gets a profile without them.
  let schedulerConfig: string | undefined;
  const storageServed = (await runKubectl(kubeconfig, ['get', '--raw', '/apis/storage.k8s.io/v1'])).code === 0 && (await runKubectl(kubeconfig, ['get', 'pv'])).code === 0;
  if (!storageServed) {
    t.diagnostic('storage.k8s.io/v1 or persistentvolumes not served: kube-scheduler runs without its volume plugins');
    schedulerConfig = join(dir, 'scheduler.yaml');
    writeFileSync(
      schedulerConfig,
      JSON.stringify({
        apiVersion: 'kubescheduler.config.k8s.io/v1',
        kind: 'KubeSchedulerConfiguration',
        clientConnection: { kubeconfig },
        leaderElection: { leaderElect: false },
        profiles: [{ schedulerName: 'default-scheduler', plugins: { multiPoint: { disabled: ['VolumeBinding', 'VolumeRestrictions', 'VolumeZone', 'NodeVolumeLimits'].map((name) => ({ name })) } } }],
      }),
    );
  }
  const upstream = startUpstreamControllers(kubeconfig, dir, schedulerConfig !== undefined ? { schedulerConfig } : {});
  let logs: Promise<Record<string, string>> | undefined;
  const collectLogs = (): Promise<Record<string, string>> => (logs ??= upstream.stop());
  stopUpstream = collectLogs;
  const alive = (): void => {
    const early = upstream.exitedEarly();
    if (early !== undefined) throw new Error(early);
  };
  // Each step builds on the last: after a failure the rest are skipped, not left to time out.
  let failed = '';
  const step = (name: string, fn: () => Promise<void>): Promise<void> =>
    t.test(name, { skip: failed !== '' ? `after the failure of: ${failed}` : false }, async () => {
      try {
        alive();
        await fn();
        alive();
      } catch (err) {
        failed = name;
        throw err;
      }
    });

  await step('a kwok node becomes Ready', async () => {
    await kubectl(['apply', '-f', '-'], JSON.stringify(kwokNode(NODE)));
    await kubectl(['wait', '--for=condition=Ready', `node/${NODE}`, '--timeout=30s']);
  });

  await kubectl(['create', 'namespace', NS]);

  await step('a Deployment of 3 gets its ReplicaSet and 3 pods, bound by the scheduler and Running', async () => {
    await kubectl(['-n', NS, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3']);
    await kubectl(['-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s']);
    const rs = await json(['-n', NS, 'get', 'replicasets', '-l', 'app=web']);
    assert.equal(rs.items.length, 1);
    const owner = rs.items[0]!['metadata']['ownerReferences'][0];
    assert.deepEqual([owner.kind, owner.name, owner.controller], ['Deployment', 'web', true]);
    const pods = await json(['-n', NS, 'get', 'pods', '-l', 'app=web']);
    assert.equal(pods.items.length, 3);
    for (const pod of pods.items) {
      assert.equal(pod['spec']['nodeName'], NODE);
      assert.equal(pod['status']['phase'], 'Running');
      const scheduled = pod['status']['conditions'].find((c: { type: string }) => c.type === 'PodScheduled');
      assert.equal(scheduled?.status, 'True');
      assert.equal(pod['metadata']['ownerReferences'][0].name, rs.items[0]!['metadata']['name']);
    }
  });

  await step('scaling and a rolling update converge', async () => {
    await kubectl(['-n', NS, 'scale', 'deployment/web', '--replicas=5']);
    await kubectl(['-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s']);
    await kubectl(['-n', NS, 'set', 'image', 'deployment/web', 'nginx=nginx:1.28']);
    await kubectl(['-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s']);
    const rs = await json(['-n', NS, 'get', 'replicasets', '-l', 'app=web']);
    const replicas = rs.items.map((r) => [r['spec']['template']['spec']['containers'][0].image, r['spec']['replicas'], r['metadata']['annotations']['deployment.kubernetes.io/revision']]).sort();
    assert.deepEqual(replicas, [
      ['nginx:1.27', 0, '1'],
      ['nginx:1.28', 5, '2'],
    ]);
    await until('5 Running pods of the new image and no others', async () => {
      const pods = await json(['-n', NS, 'get', 'pods', '-l', 'app=web']);
      return pods.items.length === 5 && pods.items.every((p) => p['status']['phase'] === 'Running' && p['spec']['containers'][0].image === 'nginx:1.28');
    }, 30_000, 200);
    const deployment = await json(['-n', NS, 'get', 'deployment', 'web']);
    assert.deepEqual(
      [deployment['status'] as Record<string, unknown>].map((s) => [s['replicas'], s['updatedReplicas'], s['readyReplicas'], s['availableReplicas']])[0],
      [5, 5, 5, 5],
    );
  });

  await step("evictions honour a budget kept by kube-controller-manager's disruption controller", async () => {
    const budget = async (): Promise<{ disruptionsAllowed?: number; currentHealthy?: number; observedGeneration?: number }> =>
      (await json(['-n', NS, 'get', 'pdb', 'web']))['status'] as never;
    const evict = (pod: string): Promise<{ code: number; stderr: string }> =>
      runKubectl(kubeconfig, ['create', '--raw', `/api/v1/namespaces/${NS}/pods/${pod}/eviction`, '-f', '-'], {
        stdin: JSON.stringify({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: NS } }),
      });
    await kubectl(['-n', NS, 'create', 'poddisruptionbudget', 'web', '--selector=app=web', '--min-available=5']);
    await until('the disruption controller sees 5 healthy pods and allows no disruption', async () => {
      const s = await budget();
      return s.observedGeneration === 1 && s.currentHealthy === 5 && s.disruptionsAllowed === 0;
    }, 30_000, 200);
    const pods = (await json(['-n', NS, 'get', 'pods', '-l', 'app=web'])).items.map((p) => p['metadata']['name'] as string);
    const refused = await evict(pods[0]!);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Cannot evict pod as it would violate the pod's disruption budget/);
    await kubectl(['-n', NS, 'patch', 'pdb', 'web', '--type=merge', '-p', '{"spec":{"minAvailable":4}}']);
    await until('the budget allows one disruption', async () => {
      const s = await budget();
      return s.observedGeneration === 2 && s.disruptionsAllowed === 1;
    }, 30_000, 200);
    const allowed = await evict(pods[0]!);
    assert.equal(allowed.code, 0, allowed.stderr);
    // kwok completes the eviction's graceful deletion; the ReplicaSet replaces the pod.
    await until('the evicted pod is gone', async () => (await runKubectl(kubeconfig, ['-n', NS, 'get', 'pod', pods[0]!])).code !== 0, 30_000, 200);
    await kubectl(['-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s']);
  });

  await step('a Job completes', async () => {
    await kubectl(['-n', NS, 'create', 'job', 'once', '--image=busybox', '--', 'true']);
    await kubectl(['-n', NS, 'wait', '--for=condition=Complete', 'job/once', '--timeout=60s']);
    const job = await json(['-n', NS, 'get', 'job', 'once']);
    assert.equal((job['status'] as { succeeded?: number }).succeeded, 1);
  });

  await step('a CronJob fires and its Job completes', async () => {
    await kubectl(['-n', NS, 'create', 'cronjob', 'tick', '--image=busybox', '--schedule=* * * * *', '--', 'true']);
    // The controller runs a schedule missed since status.lastScheduleTime at once: a last run two
    // minutes ago makes it fire now instead of at the next minute (a status write, as any client's).
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await kubectl(['-n', NS, 'patch', 'cronjob', 'tick', '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { lastScheduleTime: twoMinutesAgo } })]);
    let jobName = '';
    await until('a Job owned by the CronJob', async () => {
      const jobs = await json(['-n', NS, 'get', 'jobs']);
      const job = jobs.items.find((j) => j['metadata']['ownerReferences']?.[0]?.name === 'tick');
      jobName = job?.['metadata']['name'] ?? '';
      return jobName !== '';
    }, 60_000, 250);
    await kubectl(['-n', NS, 'wait', '--for=condition=Complete', `job/${jobName}`, '--timeout=60s']);
    await until('the CronJob records its run', async () => {
      const cj = await json(['-n', NS, 'get', 'cronjob', 'tick']);
      return (cj['status'] as { lastSuccessfulTime?: string }).lastSuccessfulTime !== undefined;
    }, 30_000, 250);
  });

  await step("deleting the Deployment removes its ReplicaSets and pods (apiary's garbage collector)", async () => {
    await kubectl(['-n', NS, 'delete', 'deployment', 'web', '--cascade=background']);
    await until('the ReplicaSets and pods of web are collected', async () => {
      const rs = await json(['-n', NS, 'get', 'replicasets', '-l', 'app=web']);
      const pods = await json(['-n', NS, 'get', 'pods', '-l', 'app=web']);
      return rs.items.length === 0 && pods.items.length === 0;
    }, 60_000, 250);
  });

  await step('deleting the namespace empties it', async () => {
    await kubectl(['delete', 'namespace', NS, '--timeout=90s']);
    const left = await runKubectl(kubeconfig, ['get', 'namespace', NS]);
    assert.notEqual(left.code, 0);
    assert.match(left.stderr, /NotFound/);
    const pods = await json(['get', 'pods', '-A']);
    assert.deepEqual(pods.items.filter((p) => p['metadata']['namespace'] === NS), []);
  });

  await step('their logs show the bindings and no failed list or watch', async () => {
    const all = await collectLogs();
    assert.match(all['kube-scheduler']!, /Successfully bound pod to node/);
    for (const [name, log] of Object.entries(all)) {
      assert.deepEqual(listWatchErrors(log), [], `${name} reported list/watch errors`);
    }
  });
});

test("kube-controller-manager's garbage collector collects on apiary when apiary's is off", { skip: missing.length > 0 ? `not built: ${missing.join(', ')}` : false, timeout: 180_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'apiary-controlplane-gc-'));
  const dataDir = join(dir, 'data');
  const apiary = spawnApiary(
    ['serve', '--data-dir', dataDir, '--bind-address', '127.0.0.1', '--secure-port', String(await freePort()), '--controllers', '*,-garbage-collector-controller'],
    { secure: true },
  );
  let stopUpstream: () => Promise<unknown> = async () => {};
  t.after(async () => {
    await stopUpstream();
    await apiary.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  await apiary.url;
  const kubeconfig = join(dataDir, 'kubeconfig');
  const kubectl = async (args: string[], stdin?: string): Promise<string> => {
    const r = await runKubectl(kubeconfig, args, { ...(stdin !== undefined ? { stdin } : {}), timeoutMs: 90_000 });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  };
  const count = async (args: string[]): Promise<number> => (JSON.parse(await kubectl([...args, '-o', 'json'])) as { items: unknown[] }).items.length;
  const upstream = startUpstreamControllers(kubeconfig, dir, { extraControllers: ['garbage-collector-controller'] });
  let logs: Promise<Record<string, string>> | undefined;
  stopUpstream = () => (logs ??= upstream.stop());

  await kubectl(['apply', '-f', '-'], JSON.stringify(kwokNode(NODE)));
  await kubectl(['wait', '--for=condition=Ready', `node/${NODE}`, '--timeout=30s']);
  await kubectl(['create', 'namespace', NS]);
  await kubectl(['-n', NS, 'create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=2']);
  await kubectl(['-n', NS, 'rollout', 'status', 'deployment/web', '--timeout=60s']);
  assert.equal(await count(['-n', NS, 'get', 'pods', '-l', 'app=web']), 2);
  await kubectl(['-n', NS, 'delete', 'deployment', 'web', '--cascade=foreground', '--wait=true', '--timeout=60s']);
  await until('the ReplicaSet and pods are collected by upstream', async () =>
    (await count(['-n', NS, 'get', 'replicasets,pods', '-l', 'app=web'])) === 0, 60_000, 250);
  const all = await (logs ??= upstream.stop());
  assert.match(all['kube-controller-manager']!, /garbage/i, "kube-controller-manager's collector ran");
  for (const [name, log] of Object.entries(all)) assert.deepEqual(listWatchErrors(log), [], `${name} reported list/watch errors`);
});
