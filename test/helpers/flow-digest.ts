// A create of a ConfigMap in the user's own namespace, as APF's classifier sees it (flowcontrol tests).

import type { RequestDigest } from '../../src/server/flowcontrol/matching.js';

export function createDigest(user: string, groups: string[] = ['system:authenticated']): RequestDigest {
  return {
    user,
    groups,
    isResourceRequest: true,
    verb: 'create',
    apiGroup: '',
    resource: 'configmaps',
    subresource: '',
    namespace: user,
    path: `/api/v1/namespaces/${user}/configmaps`,
  };
}
