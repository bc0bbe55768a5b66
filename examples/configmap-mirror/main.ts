// configmap-mirror: keeps a copy of every ConfigMap of one namespace in
// another. A controller written only with apiary's public client API: one
// shared informer (the cache), a work queue of keys, and a reconcile function
// that makes the copy match the source: create it, update it, or delete it
// when the source is gone. Copies carry a label naming their source
// namespace; configmaps without it are never touched.
//
//   node --import tsx examples/configmap-mirror/main.ts --kubeconfig .apiary/kubeconfig --from team-a --to team-b

import { parseArgs } from 'node:util';
import {
  type DeletedFinalStateUnknown,
  type KubeObject,
  RestClient,
  SharedInformerFactory,
  WorkQueue,
  isAlreadyExists,
  isNotFound,
  metaNamespaceKeyFunc,
  runController,
  splitMetaNamespaceKey,
} from '../../src/client/index.js'; // in your project: from 'apiary/client'

const SOURCE_LABEL = 'configmap-mirror.example.com/source';
type ConfigMap = KubeObject & { data?: Record<string, string>; binaryData?: Record<string, string> };

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } } });
const { from, to } = values;
if (!from || !to || from === to) throw new Error('usage: main.ts [--kubeconfig FILE] --from NAMESPACE --to NAMESPACE');

const client = RestClient.fromKubeconfig(values.kubeconfig);
const stop = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

const factory = new SharedInformerFactory(client);
const configMaps = factory.forBuiltin<ConfigMap>('configmaps');
const queue = new WorkQueue<string>({ name: 'configmap-mirror' });
// Work is keyed by name: any change to a source or to its copy re-checks that pair.
function enqueue(obj: ConfigMap | DeletedFinalStateUnknown<ConfigMap>): void {
  const { namespace, name } = splitMetaNamespaceKey(metaNamespaceKeyFunc(obj));
  if (namespace === from || namespace === to) queue.add(name);
}
configMaps.addEventHandler({ onAdd: enqueue, onUpdate: (_old, obj) => enqueue(obj), onDelete: enqueue });

async function reconcile(name: string): Promise<void> {
  const source = configMaps.lister().namespace(from!).get(name);
  const copy = configMaps.lister().namespace(to!).get(name);
  if (copy !== undefined && copy.metadata.labels?.[SOURCE_LABEL] !== from) return; // not ours
  if (source === undefined) {
    if (copy !== undefined) await client.configMaps(to).delete(name).catch((err) => { if (!isNotFound(err)) throw err; });
    return;
  }
  const wanted: ConfigMap = {
    metadata: { name, namespace: to, labels: { ...source.metadata.labels, [SOURCE_LABEL]: from! } },
    data: source.data,
    binaryData: source.binaryData,
  };
  if (copy === undefined) {
    await client.configMaps<ConfigMap>(to).create(wanted).catch((err) => { if (!isAlreadyExists(err)) throw err; });
  } else if (JSON.stringify([copy.data, copy.binaryData, copy.metadata.labels]) !== JSON.stringify([wanted.data, wanted.binaryData, wanted.metadata.labels])) {
    // A conflict (the copy changed meanwhile) throws: the key is retried with backoff.
    await client.configMaps<ConfigMap>(to).update({ ...wanted, metadata: { ...wanted.metadata, resourceVersion: copy.metadata.resourceVersion } });
  }
}

factory.start(stop.signal);
void factory.waitForCacheSync(stop.signal).then(() => console.log(`configmap-mirror: synced, mirroring ${from} -> ${to}`));
await runController({ name: 'configmap-mirror', informers: [configMaps], queue, workers: 2, reconcile, signal: stop.signal });
await factory.shutdown();
await client.close();
console.log('configmap-mirror: stopped');
