// The configuration consumer's input: watches FlowSchemas and
// PriorityLevelConfigurations in the registry and hands the controller the
// full set again after every change (a handful of objects; changes are rare).

import type { Logger } from 'pino';
import type { RESTStore, Watcher } from '../../registry/rest.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../../api/flowcontrol/v1/types.js';
import type { FlowController } from './controller.js';

export const CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';
const SYSTEM_USER = { name: 'system:apiserver', groups: ['system:masters'] };

export class ConfigConsumer {
  private watchers: Watcher[] = [];
  private pending = false;
  private stopped = false;
  private generation = 0;
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly controller: FlowController,
    private readonly flowSchemas: RESTStore,
    private readonly priorityLevels: RESTStore,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    for (const store of [this.flowSchemas, this.priorityLevels]) {
      const watch = async (): Promise<void> => {
        if (this.stopped) return;
        const w = await store.watch('', { resourceVersion: '0', timeoutSeconds: 3600 }, {
          event: () => this.changed(),
          events: () => this.changed(),
          // A watch that ends (its timeout, compaction) is started again.
          done: () => void setTimeout(() => void watch().catch((err: unknown) => this.logger.warn({ err }, 'APF configuration watch failed')), 100).unref(),
        });
        if (this.stopped) w.stop();
        else this.watchers.push(w);
      };
      await watch();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const w of this.watchers) w.stop();
    this.watchers = [];
    await this.syncing;
  }

  private changed(): void {
    if (this.pending || this.stopped) return;
    this.pending = true;
    setImmediate(() => {
      this.pending = false;
      this.reload().catch((err: unknown) => this.logger.warn({ err }, 'reading the APF configuration failed'));
    });
  }

  /** Reads both kinds and installs them; a newer reload that finishes first wins. */
  async reload(): Promise<void> {
    const generation = ++this.generation;
    const [fs, pl] = await Promise.all([this.flowSchemas.list('', {}), this.priorityLevels.list('', {})]);
    if (generation !== this.generation || this.stopped) return;
    this.controller.configure(fs.items as FlowSchema[], pl.items as PriorityLevelConfiguration[]);
    // Status writes follow in the background: classification does not wait for them.
    this.syncing = this.syncDangling(fs.items as FlowSchema[], new Set(pl.items.map((o) => o.metadata.name!)));
  }

  /**
   * Each FlowSchema's Dangling condition says whether its priority level exists,
   * written (server-side apply of /status, forced) only when it changes, as
   * upstream's consumer does.
   */
  private async syncDangling(flowSchemas: FlowSchema[], levels: Set<string>): Promise<void> {
    await Promise.all(flowSchemas.map(async (fs) => {
      const plName = fs.spec.priorityLevelConfiguration.name;
      const dangling = !levels.has(plName);
      const status = dangling ? 'True' : 'False';
      const reason = dangling ? 'NotFound' : 'Found';
      const message = dangling
        ? `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} but there is no such object`
        : `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(plName)} and it exists`;
      const current = fs.status?.conditions?.find((c) => c.type === 'Dangling');
      if (current?.status === status && current.reason === reason && current.message === message) return;
      const condition = { type: 'Dangling', status, lastTransitionTime: new Date(this.now()).toISOString().replace(/\.\d+Z$/, 'Z'), reason, message };
      const name = fs.metadata.name!;
      try {
        if (this.flowSchemas.apply !== undefined) {
          const config = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name }, status: { conditions: [condition] } };
          await this.flowSchemas.apply('', name, config, { subresource: 'status', force: true, fieldManager: CONSUMER_FIELD_MANAGER, user: SYSTEM_USER });
        }
      } catch (err) {
        if (this.stopped) return;
        this.logger.warn({ err, name }, 'writing a FlowSchema status failed');
      }
    }));
  }
}
