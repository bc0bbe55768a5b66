// The end-to-end scenario the three runners' examples share: a test server
// from apiary/testing, the greeter controller pointed at it, a ConfigMap
// whose greeting the controller fills in and keeps up to date, and a
// namespace that really goes away when deleted (apiary runs the namespace
// controller). Each runner's file only wires these steps to its API.

import * as k8s from '@kubernetes/client-node';
import { startTestServer } from 'apiary/testing';
import { ANNOTATION, startGreeter } from './greeter-controller.mjs';

/** Polls `read` until `done(value)` holds; throws after timeoutMs. */
export async function eventually(what, read, done, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read().catch((err) => err);
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${value}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function setUp() {
  const server = await startTestServer({ storage: 'memory' });
  const core = server.kubeConfig.makeApiClient(k8s.CoreV1Api);
  const greeter = await startGreeter(server.kubeConfig);
  return {
    server,
    core,
    async tearDown() {
      await greeter.stop();
      await server.stop();
    },
  };
}

export async function greetsAndFollows({ core }) {
  await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
  await core.createNamespacedConfigMap({ namespace: 'team-a', body: { metadata: { name: 'hello', annotations: { [ANNOTATION]: 'world' } } } });
  const read = () => core.readNamespacedConfigMap({ name: 'hello', namespace: 'team-a' });
  await eventually('the greeting', read, (cm) => cm?.data?.greeting === 'hello, world');
  const cm = await read();
  cm.metadata.annotations[ANNOTATION] = 'apiary';
  await core.replaceNamespacedConfigMap({ name: 'hello', namespace: 'team-a', body: cm });
  await eventually('the new greeting', read, (cm) => cm?.data?.greeting === 'hello, apiary');
}

export async function namespaceGoesAway({ core }) {
  await core.createNamespace({ body: { metadata: { name: 'short-lived' } } });
  await core.createNamespacedConfigMap({ namespace: 'short-lived', body: { metadata: { name: 'x', annotations: { [ANNOTATION]: 'x' } } } });
  await core.deleteNamespace({ name: 'short-lived' });
  await eventually('the namespace to be gone', () => core.readNamespace({ name: 'short-lived' }), (r) => r?.code === 404);
}
