// Runs the origin finalizer controller against the server in a kubeconfig:
//
//   node --import tsx examples/origin-finalizer/main.ts --kubeconfig FILE
//
// It prints "origin controller running" once started and stops cleanly on
// SIGTERM or SIGINT.

import { parseArgs } from 'node:util';
import { RestClient } from '../../src/client/index.js';
import { runOriginController } from './controller.js';

const { values } = parseArgs({ options: { kubeconfig: { type: 'string' } } });
const client = RestClient.fromKubeconfig(values.kubeconfig);
const abort = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => abort.abort());

process.stdout.write('origin controller running\n');
await runOriginController({ client, signal: abort.signal });
await client.close();
