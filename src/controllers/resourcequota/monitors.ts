// The quota monitors (upstream's resource_quota_monitor.go), shared by the
// ResourceQuota controller and the HierarchicalResourceQuota controller: one
// informer per resource a quota counts, started on first need (the resource's
// version found through discovery) and handed out once synced; an update that
// changes an object's usage, or a delete, is reported with the usage it let go.
// A resource not served (yet), or whose list keeps failing, gets no monitor for
// now and is looked for again on the next need.

import { type GroupResourceName, EvaluatorRegistry } from '../../api/quota/v1/evaluators.js';
import { type Usage, equals, subtractNonNegative } from '../../api/quota/v1/resources.js';
import {
  type ClientLogger,
  DeletedFinalStateUnknown,
  type KubeObject,
  type RestClient,
  type SharedIndexInformer,
  type SharedInformerFactory,
  serverPreferredNamespacedResources,
  waitForCacheSync,
} from '../../client/index.js';

const MONITOR_SYNC_TIMEOUT_MS = 10_000;

export interface QuotaMonitorsOptions {
  client: RestClient;
  informers: SharedInformerFactory;
  evaluators: EvaluatorRegistry;
  log: ClientLogger;
  /** Names the monitors in log lines ("quota", "hierarchical quota"). */
  what: string;
  /** An object's usage changed (update) or went (delete): `released` is what it no longer uses. */
  onRelease(gr: GroupResourceName, obj: KubeObject, released: Usage): void;
}

const grKey = (gr: GroupResourceName): string => `${gr.group}/${gr.resource}`;

export class QuotaMonitors {
  private readonly monitors = new Map<string, Promise<SharedIndexInformer<KubeObject> | undefined>>();
  /** group/resource → preferred version, from discovery. */
  private discovered: Map<string, string> | undefined;
  private signal: AbortSignal | undefined;

  constructor(private readonly options: QuotaMonitorsOptions) {}

  /** Monitors started from now on run until `signal` aborts. */
  run(signal: AbortSignal): void {
    this.signal = signal;
  }

  /** The synced informer for a resource (started on first need), or undefined when it is not served. */
  get(gr: GroupResourceName): Promise<SharedIndexInformer<KubeObject> | undefined> {
    let m = this.monitors.get(grKey(gr));
    if (m === undefined) {
      m = this.start(gr).catch((err: unknown) => {
        // Discovery failed, or the controller stopped meanwhile: no monitor for now.
        if (this.signal?.aborted !== true) this.options.log.warn({ resource: grKey(gr), err: String(err) }, `${this.options.what} monitor failed to start`);
        return undefined;
      });
      this.monitors.set(grKey(gr), m);
      // Not served (yet): look again on a later need.
      void m.then((i) => i === undefined && this.monitors.delete(grKey(gr)));
    }
    return m;
  }

  private async start(gr: GroupResourceName): Promise<SharedIndexInformer<KubeObject> | undefined> {
    const version = await this.versionOf(gr);
    if (version === undefined || this.signal?.aborted === true) return undefined;
    const { informers, evaluators, onRelease } = this.options;
    const informer = informers.forResource<KubeObject>({ group: gr.group, version, resource: gr.resource });
    const evaluator = evaluators.get(gr);
    informer.addEventHandler({
      onUpdate: (old, obj) => {
        if (evaluator === undefined) return;
        const [before, after] = [evaluator.usage(old), evaluator.usage(obj)];
        if (!equals(before, after)) onRelease(gr, obj, subtractNonNegative(before, after));
      },
      onDelete: (tomb) => {
        const obj = tomb instanceof DeletedFinalStateUnknown ? (tomb.obj as KubeObject | undefined) : tomb;
        if (obj !== undefined && evaluator !== undefined) onRelease(gr, obj, evaluator.usage(obj));
      },
    });
    const signal = this.signal ?? new AbortController().signal;
    informers.start(signal);
    // A list that keeps failing must not hold a worker forever: give up for now, try on a later need.
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(MONITOR_SYNC_TIMEOUT_MS)]);
    return (await waitForCacheSync(timeout, [informer])) ? informer : undefined;
  }

  /** The served version of a resource (discovery; re-read when it does not list the resource). */
  async versionOf(gr: GroupResourceName): Promise<string | undefined> {
    const find = (): string | undefined => this.discovered?.get(grKey(gr));
    if (find() === undefined) await this.discover();
    return find();
  }

  /** Reads the served namespaced resources that can be listed and watched (a partial answer is used as it is). */
  async discover(): Promise<void> {
    const found = new Map<string, string>();
    let lists;
    try {
      lists = await serverPreferredNamespacedResources(this.options.client);
    } catch (err) {
      const partial = (err as { partial?: unknown }).partial;
      if (!Array.isArray(partial)) throw err;
      lists = partial as Awaited<ReturnType<typeof serverPreferredNamespacedResources>>;
    }
    for (const list of lists) {
      const [group, version] = list.groupVersion.includes('/') ? list.groupVersion.split('/') : ['', list.groupVersion];
      for (const r of list.resources) {
        if (r.name.includes('/') || !r.verbs.includes('list') || !r.verbs.includes('watch')) continue;
        found.set(`${group}/${r.name}`, version!);
      }
    }
    this.discovered = found;
  }

  /** The version discovery last found for a resource, without asking again. */
  knownVersion(gr: GroupResourceName): string | undefined {
    return this.discovered?.get(grKey(gr));
  }
}
