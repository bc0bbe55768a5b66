// POST /api/v1/namespaces/{ns}/bindings (upstream's BindingREST on the
// collection): the older way to bind a pod, the same act as pods/{name}/binding
// with the pod named by the Binding's metadata.name. Not stored; no Table form.

import { badRequest } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/meta.js';
import type { RESTStore } from '../rest.js';
import { unstoredType, unsupportedStore } from '../unstored-store.js';
import type { CreateSubresource } from './pod-subresources.js';

const BINDINGS = unstoredType({ group: '', version: 'v1', resource: 'bindings', kind: 'Binding', singularName: 'binding', namespaced: true, verbs: ['create'] });

/** `podSubresources` is the pods store's own POST subresource handler (pods/binding), looked up per request. */
export function bindingsStore(podSubresources: () => CreateSubresource | undefined): RESTStore {
  return {
    ...unsupportedStore(BINDINGS),
    noTable: true,
    async create(namespace, object, options) {
      const objNs = object.metadata?.namespace ?? '';
      if (objNs !== '' && objNs !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      const bind = podSubresources();
      if (bind === undefined) throw new Error('bindings: the pods store serves no binding');
      const status = await bind(namespace, object.metadata?.name ?? '', 'binding', object, options);
      return status as unknown as KubeObject;
    },
  };
}
