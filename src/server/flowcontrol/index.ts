// API Priority and Fairness in the server: the controller (classification,
// levels, queues), its configuration consumer and producer over the registry,
// the filter and its metrics, started and stopped together.

import type { Logger } from 'pino';
import type { Registry as PromRegistry } from 'prom-client';
import type { RESTStore } from '../../registry/rest.js';
import { ConfigConsumer } from './config-consumer.js';
import { ConfigProducer } from './config-producer.js';
import { FlowController } from './controller.js';
import { FlowControlFilter } from './filter.js';
import { FlowControlMetrics } from './metrics.js';
import { LoopLimit, type LoopLimitOptions } from './loop-limit.js';
import { LoopShare } from './loop-share.js';
import { ObjectCounts } from './object-counts.js';

export { FlowControlFilter } from './filter.js';

export interface FlowControlSetupOptions {
  storeFor(group: string, resource: string): RESTStore | undefined;
  metricsRegistry?: PromRegistry;
  logger: Logger;
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** Between the configuration producer's passes (default 60 s). */
  configIntervalMs?: number;
  /** The longest a request waits in its queue (default 15 s). */
  queueWaitLimitMs?: number;
  /** Between two re-divisions of the seats (borrowing.ts; upstream: 10 s). */
  borrowingPeriodMs?: number;
  /** The part of the loop's time flows with a backlog share while a flow without one wants it (loop-share.ts; default DEFAULT_BUDGET, 0: off). */
  loopBudget?: number;
  /** The dispatch limit that follows the event loop (loop-limit.ts); false: seats only. */
  loopLimit?: LoopLimitOptions | false;
}

export interface FlowControlSetup {
  filter: FlowControlFilter;
  controller: FlowController;
  stop(): Promise<void>;
}

const GROUP = 'flowcontrol.apiserver.k8s.io';

export async function startFlowControl(options: FlowControlSetupOptions): Promise<FlowControlSetup> {
  const flowSchemas = options.storeFor(GROUP, 'flowschemas');
  const priorityLevels = options.storeFor(GROUP, 'prioritylevelconfigurations');
  if (flowSchemas === undefined || priorityLevels === undefined) throw new Error('flowcontrol: the registry serves no flowschemas / prioritylevelconfigurations');
  const serverLimit = (options.maxRequestsInflight ?? 400) + (options.maxMutatingRequestsInflight ?? 200);
  const loopLimit = options.loopLimit === false ? undefined : new LoopLimit({ max: serverLimit, ...options.loopLimit });
  const controller = new FlowController({
    ...(loopLimit !== undefined ? { loopLimit } : {}),
    ...(options.loopBudget !== undefined ? { loopShare: options.loopBudget > 0 ? new LoopShare(options.loopBudget) : null } : {}),
    ...(options.maxRequestsInflight !== undefined ? { maxRequestsInflight: options.maxRequestsInflight } : {}),
    ...(options.maxMutatingRequestsInflight !== undefined ? { maxMutatingRequestsInflight: options.maxMutatingRequestsInflight } : {}),
    ...(options.queueWaitLimitMs !== undefined ? { queueWaitLimitMs: options.queueWaitLimitMs } : {}),
  });
  const metrics = options.metricsRegistry !== undefined ? new FlowControlMetrics(options.metricsRegistry, controller) : undefined;
  const counts = new ObjectCounts(options.storeFor);
  const filter = new FlowControlFilter({ controller, ...(metrics !== undefined ? { metrics } : {}), objectCount: (info) => counts.count(info) });
  const producer = new ConfigProducer({ flowSchemas, priorityLevels, logger: options.logger, ...(options.configIntervalMs !== undefined ? { intervalMs: options.configIntervalMs } : {}) });
  const consumer = new ConfigConsumer(controller, flowSchemas, priorityLevels, options.logger);
  await producer.start();
  await consumer.start();
  loopLimit?.start();
  controller.startRebalancing(options.borrowingPeriodMs);
  return {
    filter,
    controller,
    stop: async () => {
      loopLimit?.stop();
      controller.stopRebalancing();
      await producer.stop();
      await consumer.stop();
    },
  };
}
