// The configuration producer (upstream's priority-and-fairness-config-producer
// post-start hook, pkg/registry/flowcontrol/rest and ensurer/): keeps the
// bootstrap objects in the store.
//   - a missing bootstrap object (mandatory or suggested) is created again;
//   - a mandatory object's spec is put back when changed (the exempt level's
//     spec.exempt excepted), and its autoupdate annotation set to "true";
//   - a suggested object's spec is kept current only while its
//     `apf.kubernetes.io/autoupdate-spec` annotation says true (without a valid
//     annotation: while its generation is 1, i.e. nobody changed it); the
//     annotation is written to record that decision;
//   - an object not (or no longer) in the bootstrap set whose annotation says
//     true is deleted.
// It runs in the server, over the registry, as upstream's runs in kube-apiserver:
// the server's own classification depends on it, and the server is ready only
// once the first pass succeeded (upstream's post-start hooks gate /readyz).
// Then every `intervalMs` (upstream: every minute).

import type { Logger } from 'pino';
import { isStatusError } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/meta.js';
import { deepCopy } from '../../machinery/deep-copy.js';
import type { RESTStore } from '../../registry/rest.js';
import {
  MANDATORY_FLOW_SCHEMAS,
  MANDATORY_PRIORITY_LEVELS,
  SUGGESTED_FLOW_SCHEMAS,
  SUGGESTED_PRIORITY_LEVELS,
} from '../../api/flowcontrol/v1/bootstrap.js';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../../api/flowcontrol/v1/defaults.js';
import { semanticallyEqual } from '../../api/flowcontrol/v1/validation.js';
import { AUTO_UPDATE_ANNOTATION } from '../../api/flowcontrol/v1/types.js';
import type { Loose } from '../../api/loose.js';

export const CONFIG_PRODUCER_FIELD_MANAGER = 'api-priority-and-fairness-config-producer-v1';
const WRITE = { user: { name: 'system:apiserver', groups: ['system:masters'] }, fieldManager: CONFIG_PRODUCER_FIELD_MANAGER };

export interface ConfigProducerOptions {
  flowSchemas: RESTStore;
  priorityLevels: RESTStore;
  logger: Logger;
  /** Between passes after the first (default 60 s). */
  intervalMs?: number;
}

interface Kind {
  store: RESTStore;
  defaults(obj: KubeObject): void;
  mandatory: readonly KubeObject[];
  suggested: readonly KubeObject[];
}

const isNotFound = (err: unknown): boolean => isStatusError(err) && err.code === 404;
const isAlreadyExists = (err: unknown): boolean => isStatusError(err) && err.reason === 'AlreadyExists';
const isConflict = (err: unknown): boolean => isStatusError(err) && err.code === 409;

/** Go's strconv.ParseBool. */
function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

function specEqualish(bootstrap: KubeObject, current: KubeObject, defaults: (obj: KubeObject) => void): boolean {
  const expected = deepCopy(bootstrap) as Loose;
  defaults(expected as KubeObject);
  const actual = (current as Loose).spec;
  if (expected.kind === 'PriorityLevelConfiguration' && bootstrap.metadata.name === 'exempt') {
    if (actual?.exempt == null) return false;
    expected.spec.exempt = actual.exempt;
  }
  return semanticallyEqual(expected.spec, actual);
}

export class ConfigProducer {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private readonly kinds: Kind[];

  constructor(private readonly options: ConfigProducerOptions) {
    this.kinds = [
      { store: options.priorityLevels, defaults: defaultPriorityLevelConfiguration, mandatory: MANDATORY_PRIORITY_LEVELS, suggested: SUGGESTED_PRIORITY_LEVELS },
      { store: options.flowSchemas, defaults: defaultFlowSchema, mandatory: MANDATORY_FLOW_SCHEMAS, suggested: SUGGESTED_FLOW_SCHEMAS },
    ];
  }

  /** The first pass, retried every second until it succeeds; then the periodic passes. */
  async start(): Promise<void> {
    for (;;) {
      try {
        await this.ensure();
        break;
      } catch (err) {
        if (this.stopped) return;
        this.options.logger.warn({ err }, 'APF bootstrap ensurer ran into an error, retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ensure()
        .catch((err: unknown) => this.options.logger.warn({ err }, 'APF bootstrap ensurer ran into an error, will retry later'))
        .finally(() => this.schedule());
    }, this.options.intervalMs ?? 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }

  /** One pass: suggested, then mandatory, then the unwanted objects (upstream's order). */
  ensure(): Promise<void> {
    return (this.running ??= (async () => {
      try {
        // The objects of a phase are independent: written concurrently (one group commit on sqlite).
        await Promise.all(this.kinds.flatMap((k) => k.suggested.map((o) => this.ensureOne(k, o, false))));
        await Promise.all(this.kinds.flatMap((k) => k.mandatory.map((o) => this.ensureOne(k, o, true))));
        await Promise.all(this.kinds.map((k) => this.removeUnwanted(k)));
      } finally {
        this.running = undefined;
      }
    })());
  }

  private async ensureOne(kind: Kind, bootstrap: KubeObject, mandatory: boolean): Promise<void> {
    const name = bootstrap.metadata.name!;
    let current: KubeObject;
    try {
      current = await kind.store.get('', name, {});
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await kind.store.create('', deepCopy(bootstrap), WRITE);
        this.options.logger.debug({ resource: kind.store.type.resource, name }, 'created APF bootstrap object');
        return;
      } catch (createErr) {
        if (!isAlreadyExists(createErr)) throw createErr;
        current = await kind.store.get('', name, {});
      }
    }
    let autoUpdate = mandatory;
    const annotation = current.metadata.annotations?.[AUTO_UPDATE_ANNOTATION];
    if (!autoUpdate) autoUpdate = parseBool(annotation) ?? current.metadata.generation === 1;
    const updateAnnotation = parseBool(annotation) !== autoUpdate || annotation === undefined;
    const specChanged = autoUpdate && !specEqualish(bootstrap, current, kind.defaults);
    if (!updateAnnotation && !specChanged) return;
    const revised = deepCopy(current) as Loose;
    if (specChanged) revised.spec = deepCopy((bootstrap as Loose).spec);
    if (updateAnnotation) revised.metadata.annotations = { ...(revised.metadata.annotations ?? {}), [AUTO_UPDATE_ANNOTATION]: String(autoUpdate) };
    try {
      await kind.store.update('', name, revised as KubeObject, WRITE);
      this.options.logger.debug({ resource: kind.store.type.resource, name }, 'updated APF bootstrap object');
    } catch (err) {
      // Changed meanwhile: the next pass looks again.
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }

  private async removeUnwanted(kind: Kind): Promise<void> {
    const wanted = new Set([...kind.mandatory, ...kind.suggested].map((o) => o.metadata.name!));
    const list = await kind.store.list('', {});
    for (const obj of list.items) {
      const name = obj.metadata.name!;
      if (wanted.has(name)) continue;
      if (parseBool(obj.metadata.annotations?.[AUTO_UPDATE_ANNOTATION]) !== true) continue;
      try {
        await kind.store.delete('', name, { preconditions: { uid: obj.metadata.uid! } });
        this.options.logger.info({ resource: kind.store.type.resource, name }, 'deleted unwanted APF object');
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    }
  }
}
