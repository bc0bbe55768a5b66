// The origin finalizer controller: an example of a controller that takes part
// in namespace deletion, written only with apiary's public client API.
//
// A namespace created with spec.finalizers ["example.com/origin", "kubernetes"]
// belongs to "origin". Origin keeps one record per such namespace, a ConfigMap
// `ns-<name>` in its own namespace `origin-system` (think of OpenShift's
// project bookkeeping). When the namespace is deleted the namespace controller
// empties it and removes "kubernetes"; the namespace then stays Terminating
// until this controller has deleted its record and removed
// "example.com/origin" through PUT /api/v1/namespaces/{name}/finalize. Then the
// namespace disappears.

import {
  type KubeObject,
  type RestClient,
  SharedInformerFactory,
  WorkQueue,
  enqueueHandler,
  isAlreadyExists,
  isNotFound,
  runController,
} from '../../src/client/index.js';

export const ORIGIN_FINALIZER = 'example.com/origin';
export const ORIGIN_NAMESPACE = 'origin-system';

interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
}

export interface OriginControllerOptions {
  client: RestClient;
  signal: AbortSignal;
  workers?: number;
}

/** Runs the controller until signal aborts. */
export async function runOriginController({ client, signal, workers = 2 }: OriginControllerOptions): Promise<void> {
  const factory = new SharedInformerFactory(client);
  const namespaces = factory.forBuiltin<Namespace>('namespaces');
  const queue = new WorkQueue<string>({ name: 'origin' });
  namespaces.addEventHandler(enqueueHandler(queue));
  factory.start(signal);

  const records = client.configMaps(ORIGIN_NAMESPACE);
  const ensureOwnNamespace = async (): Promise<void> => {
    try {
      await client.namespaces().create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ORIGIN_NAMESPACE } });
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  };

  const reconcile = async (name: string): Promise<void> => {
    const ns = namespaces.lister().get(name);
    if (ns === undefined || !(ns.spec?.finalizers ?? []).includes(ORIGIN_FINALIZER)) return;
    const record = `ns-${name}`;

    if (ns.metadata.deletionTimestamp === undefined) {
      // An origin namespace: make sure its record exists.
      await ensureOwnNamespace();
      try {
        await records.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: record }, data: { namespace: name } });
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
      }
      return;
    }
    // Terminating: wait until the namespace controller has removed its content.
    if ((ns.spec?.finalizers ?? []).includes('kubernetes')) return;

    try {
      await records.delete(record);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    const latest = await client.namespaces<Namespace>().get(name);
    const finalizers = (latest.spec?.finalizers ?? []).filter((f) => f !== ORIGIN_FINALIZER);
    await client.request({
      method: 'PUT',
      path: client.namespaces().path(name, 'finalize'),
      body: { ...latest, spec: { ...latest.spec, finalizers } },
    });
  };

  await runController({ name: 'origin', informers: [namespaces], queue, workers, signal, reconcile });
  await factory.shutdown();
}
