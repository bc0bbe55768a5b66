// A free TCP port on 127.0.0.1 for a server a test starts as another process
// (etcd, kube-apiserver, kwok, an extension server): the port is found by
// listening on port 0 and closing again.

import { createServer } from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((done, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => done(port));
    });
  });
}
