// Shared set-up for list/watch tests at the registry level: a registry (watch
// cache on by default) over a real MemoryBackend, configmap helpers, and a
// watch collector that records what a sink receives.

import { MemoryBackend } from '../../src/storage/memory.js';
import { createRegistry, type Registry, type RegistryOptions } from '../../src/registry/index.js';
import type { KubeObject } from '../../src/machinery/meta.js';
import { StatusError, type Status } from '../../src/machinery/errors.js';
import type { RESTStore, WatchEvent, WatchOptions, Watcher } from '../../src/registry/rest.js';

export interface Fixture {
  backend: MemoryBackend;
  registry: Registry;
  configmaps: RESTStore;
  secrets: RESTStore;
  close(): Promise<void>;
}

export async function newFixture(options: Partial<RegistryOptions> = {}): Promise<Fixture> {
  const backend = new MemoryBackend();
  const registry = createRegistry({ backend, ...options });
  await registry.ready;
  return {
    backend,
    registry,
    configmaps: registry.storeFor('', 'configmaps')!,
    secrets: registry.storeFor('', 'secrets')!,
    close: async () => {
      await registry.close();
      await backend.close();
    },
  };
}

export function configMap(name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data } as KubeObject;
}

export function rvOf(obj: { metadata?: { resourceVersion?: string } }): number {
  return Number(obj.metadata?.resourceVersion ?? 'NaN');
}

/** The Status a promise fails with (fails the test when it resolves). */
export async function statusOf(p: Promise<unknown>): Promise<Status> {
  try {
    await p;
  } catch (err) {
    if (err instanceof StatusError) return err.status;
    throw err;
  }
  throw new Error('expected a StatusError');
}

export interface Collected {
  events: WatchEvent[];
  done: boolean;
  watcher: Watcher;
  /** Resolves when at least n events arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<void>;
  /** Resolves when the watch ended. */
  ended(timeoutMs?: number): Promise<void>;
}

export async function collect(store: RESTStore, namespace: string, options: WatchOptions): Promise<Collected> {
  const events: WatchEvent[] = [];
  let wake: () => void = () => {};
  const out = {
    events,
    done: false,
    watcher: undefined as unknown as Watcher,
    async waitFor(n: number, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (events.length < n) {
        if (out.done || Date.now() > deadline) throw new Error(`got ${events.length} events, wanted ${n}: ${describe(events)}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 20);
        });
      }
    },
    async ended(timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      while (!out.done) {
        if (Date.now() > deadline) throw new Error('watch did not end');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };
  out.watcher = await store.watch(namespace, options, {
    event: (e) => {
      events.push(e);
      wake();
    },
    done: () => {
      out.done = true;
      wake();
    },
  });
  return out;
}

export function describe(events: WatchEvent[]): string[] {
  return events.map((e) => `${e.type}:${(e.object as KubeObject).metadata?.name ?? ''}@${(e.object as KubeObject).metadata?.resourceVersion ?? ''}`);
}
