// The kubelet-facing connect subresources (pods/{log,exec,attach,portforward,proxy},
// nodes/proxy, services/proxy) without a kubelet client: what kube-apiserver
// answers before it would open a connection (the object missing: its 404; a
// pod with no node: log is an empty 204, exec/attach/portforward a 400; a pod
// with no IP: proxy's "address not allowed"), and a 503 where upstream would
// connect, since apiary does not reach kubelets or services yet.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusError, badRequest } from '../machinery/errors.js';
import type { RESTStore } from '../registry/rest.js';

interface Connectable {
  spec?: { nodeName?: string };
  status?: { podIP?: string };
}

export async function serveConnect(store: RESTStore, namespace: string, name: string, subresource: string, _req: IncomingMessage, res: ServerResponse): Promise<void> {
  const object = (await store.get(namespace, name, {})) as Connectable;
  if (store.type.resource === 'pods') {
    const scheduled = (object.spec?.nodeName ?? '') !== '';
    if (subresource === 'log' && !scheduled) {
      res.writeHead(204);
      res.end();
      return;
    }
    if ((subresource === 'exec' || subresource === 'attach' || subresource === 'portforward') && !scheduled) throw badRequest(`pod ${name} does not have a host assigned`);
    if (subresource === 'proxy' && (object.status?.podIP ?? '') === '') throw badRequest('address not allowed');
  }
  throw new StatusError(503, 'ServiceUnavailable', `${store.type.resource}/${subresource}: apiary does not connect to kubelets or services yet`);
}
