// The base of resources with no storage of their own (upstream's REST objects
// that implement one or two verbs): core bindings, componentstatuses. Every
// verb answers upstream's 405 until the resource overrides it.

import { methodNotSupported } from '../machinery/errors.js';
import type { KubeList } from '../machinery/meta.js';
import type { RESTStore, ResourceType } from './rest.js';

export function unstoredType(l: Pick<ResourceType, 'group' | 'version' | 'resource' | 'kind' | 'singularName' | 'namespaced' | 'verbs'> & { shortNames?: string[] }): ResourceType {
  return { ...l, listKind: `${l.kind}List`, shortNames: l.shortNames ?? [], categories: [], subresources: [], unstored: true };
}

/** A store answering 405 to every verb: spread it and override what the resource serves. */
export function unsupportedStore(type: ResourceType): RESTStore {
  const unsupported = (verb: string) => (): never => {
    throw methodNotSupported({ group: type.group, resource: type.resource }, verb);
  };
  return {
    type,
    get: unsupported('get'),
    getCached: () => undefined,
    list: unsupported('list') as () => Promise<KubeList>,
    create: unsupported('create'),
    update: unsupported('update'),
    patch: unsupported('patch'),
    delete: unsupported('delete'),
    deleteCollection: unsupported('deletecollection'),
    watch: unsupported('watch'),
  };
}
