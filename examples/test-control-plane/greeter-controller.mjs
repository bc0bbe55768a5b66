// A small controller written with @kubernetes/client-node's informers, the
// code under test in the examples beside it: every ConfigMap annotated
// `example.com/greet: NAME` gets `data.greeting: "hello, NAME"`.

import * as k8s from '@kubernetes/client-node';

export const ANNOTATION = 'example.com/greet';

/** Starts the controller against the cluster of `kubeConfig`; resolves once its informer has listed. */
export async function startGreeter(kubeConfig) {
  const core = kubeConfig.makeApiClient(k8s.CoreV1Api);
  const informer = k8s.makeInformer(kubeConfig, '/api/v1/configmaps', () => core.listConfigMapForAllNamespaces());
  const reconcile = async (cm) => {
    const name = cm.metadata?.annotations?.[ANNOTATION];
    const greeting = `hello, ${name}`;
    if (name === undefined || cm.data?.greeting === greeting) return;
    const body = { ...cm, data: { ...cm.data, greeting } };
    try {
      await core.replaceNamespacedConfigMap({ name: cm.metadata.name, namespace: cm.metadata.namespace, body });
    } catch (err) {
      // A conflict means a newer version is on its way: its update event reconciles again.
      if (err?.code !== 409) console.error('greeter:', err);
    }
  };
  informer.on('add', reconcile);
  informer.on('update', reconcile);
  // The informer reports a broken watch as an error and stops: start it again (unless we stopped it).
  let stopped = false;
  informer.on('error', () => setTimeout(() => stopped || void informer.start(), 200));
  await informer.start();
  return {
    stop: async () => {
      stopped = true;
      await informer.stop();
    },
  };
}
