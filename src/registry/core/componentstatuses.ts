// GET /api/v1/componentstatuses[/{name}] (deprecated since v1.19, upstream's
// componentstatus REST): the health of the components the server can see.
// apiary answers for its store alone, as `etcd-0` (upstream lists each etcd
// server and probes the scheduler and controller manager on their loopback
// ports; apiary runs neither). Healthy when the backend answers a read.

import { unknownError } from '../../machinery/errors.js';
import type { KubeList, KubeObject } from '../../machinery/meta.js';
import type { RESTStore } from '../rest.js';
import { unstoredType, unsupportedStore } from '../unstored-store.js';

const COMPONENT_STATUSES = unstoredType({
  group: '',
  version: 'v1',
  resource: 'componentstatuses',
  kind: 'ComponentStatus',
  singularName: 'componentstatus',
  namespaced: false,
  verbs: ['get', 'list'],
  shortNames: ['cs'],
});

const STORE_COMPONENT = 'etcd-0';

/** `probe` resolves when the store answers and rejects with why it does not. */
export function componentStatusesStore(probe: () => Promise<unknown>): RESTStore {
  const status = async (name: string): Promise<KubeObject> => {
    const condition: Record<string, string> = { type: 'Healthy', status: 'True', message: 'ok' };
    try {
      await probe();
    } catch (err) {
      condition['status'] = 'False';
      condition['message'] = '';
      condition['error'] = err instanceof Error ? err.message : String(err);
    }
    return { kind: 'ComponentStatus', apiVersion: 'v1', metadata: { name, creationTimestamp: null } as unknown as KubeObject['metadata'], conditions: [condition] };
  };
  return {
    ...unsupportedStore(COMPONENT_STATUSES),
    warning: 'v1 ComponentStatus is deprecated in v1.19+',
    async get(_namespace, name) {
      // Upstream answers an unknown component with a plain error: a 500 without a reason.
      if (name !== STORE_COMPONENT) throw unknownError(`Component not found: ${name}`);
      return status(name);
    },
    async list(): Promise<KubeList> {
      const item = await status(STORE_COMPONENT);
      delete item.kind;
      delete item.apiVersion;
      return { kind: 'ComponentStatusList', apiVersion: 'v1', metadata: {}, items: [item] };
    },
  };
}
