// The webhooks currently configured, from a watch (upstream's
// configuration/mutating_webhook_manager.go with its informer): one list of
// the configuration resource, then a watch from the list's resourceVersion
// through the registry's watch cache, rebuilding the snapshot on every event.
// A change is in effect as soon as its event arrives (milliseconds). The watch
// restarts (relist) when it ends. Snapshots are immutable arrays: a request
// keeps the one it started with.
//
// Order as upstream: configurations sorted by name, webhooks in their
// configuration's order.

import type { KubeObject } from '../../machinery/meta.js';
import type { MutatingWebhook, MutatingWebhookConfiguration } from '../../api/admissionregistration/v1/types.js';
import type { RESTStore, Watcher } from '../../registry/rest.js';
import { labelSelectorFromMeta, type LabelSelector } from '../../machinery/labels.js';

/** One webhook of one configuration, with what matching needs parsed once. */
export interface ConfiguredWebhook {
  configurationName: string;
  /** Unique per configuration and position ("config/hook/index"), for reinvocation bookkeeping. */
  uid: string;
  hook: MutatingWebhook;
  namespaceSelector: LabelSelector | Error;
  objectSelector: LabelSelector | Error;
}

const RESTART_DELAY_MS = 1000;

function parseSelector(sel: MutatingWebhook['namespaceSelector']): LabelSelector | Error {
  try {
    return labelSelectorFromMeta(sel ?? {});
  } catch (err) {
    return err as Error;
  }
}

function webhooksOf(configs: Map<string, KubeObject>): ConfiguredWebhook[] {
  const out: ConfiguredWebhook[] = [];
  for (const name of [...configs.keys()].sort()) {
    const hooks = (configs.get(name) as MutatingWebhookConfiguration).webhooks ?? [];
    hooks.forEach((hook, i) =>
      out.push({
        configurationName: name,
        uid: `${name}/${hook.name}/${i}`,
        hook,
        namespaceSelector: parseSelector(hook.namespaceSelector),
        objectSelector: parseSelector(hook.objectSelector),
      }),
    );
  }
  return out;
}

export class WebhookConfigurationSource {
  private snapshot: readonly ConfiguredWebhook[] = [];
  private readonly configs = new Map<string, KubeObject>();
  private started: Promise<void> | undefined;
  /** Set once the first list is in: snapshot is then what the configurations say. */
  private synced = false;
  private watcher: Watcher | undefined;
  private stopped = false;
  private restartTimer: NodeJS.Timeout | undefined;

  constructor(private readonly store: () => RESTStore | undefined) {}

  /** The webhooks now; the first call waits for the initial list. */
  async webhooks(): Promise<readonly ConfiguredWebhook[]> {
    if (this.started === undefined) {
      this.started = this.sync().catch((err: unknown) => {
        this.started = undefined;
        throw err;
      });
    }
    await this.started;
    return this.snapshot;
  }

  /** The webhooks now, without waiting: undefined until the first list is in. */
  current(): readonly ConfiguredWebhook[] | undefined {
    return this.synced ? this.snapshot : undefined;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.restartTimer);
    this.watcher?.stop();
  }

  private async sync(): Promise<void> {
    const store = this.store();
    if (store === undefined) throw new Error('admission webhooks: no webhook configuration store');
    const list = await store.list('', {});
    this.configs.clear();
    for (const item of list.items) this.configs.set(item.metadata.name ?? '', item);
    this.snapshot = webhooksOf(this.configs);
    this.synced = true;
    if (this.stopped) return;
    this.watcher = await store.watch('', { resourceVersion: list.metadata.resourceVersion ?? '' }, {
      event: (e) => {
        if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') return;
        const obj = e.object as KubeObject;
        const name = obj.metadata?.name ?? '';
        if (e.type === 'DELETED') this.configs.delete(name);
        else this.configs.set(name, obj);
        this.snapshot = webhooksOf(this.configs);
      },
      done: () => {
        if (this.stopped) return;
        this.restartTimer = setTimeout(() => {
          this.sync().catch(() => undefined);
        }, RESTART_DELAY_MS);
        this.restartTimer.unref?.();
      },
    });
  }
}
