#!/usr/bin/env node
// The apiary command.
//
//   apiary serve [--data-dir DIR] [--bind-address ADDR] [--port N] [--storage sqlite|memory]
//                [--etcd-prefix PREFIX] [--log-level LEVEL]
//
// `serve` runs the API server until SIGTERM or SIGINT, then shuts down cleanly
// (stop accepting, end watches, flush and close the store) and exits 0.
// Flags mirror kube-apiserver's names where one exists.

import { parseArgs } from 'node:util';
import path from 'node:path';
import { startServer, type ServerOptions } from '../server/server.js';

const USAGE = `Usage: apiary serve [flags]

Flags:
  --data-dir DIR          where the sqlite store and kubeconfig live (default ./.apiary)
  --bind-address ADDR     address to listen on (default 127.0.0.1)
  --port N                port to listen on; 0 picks a free one (default 6443)
  --storage KIND          sqlite | memory (default sqlite)
  --etcd-prefix PREFIX    key prefix in storage (default /registry)
  --log-level LEVEL       trace | debug | info | warn | error | silent (default info)
`;

function fail(message: string): never {
  process.stderr.write(`apiary: ${message}\n\n${USAGE}`);
  process.exit(2);
}

async function serve(argv: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'data-dir': { type: 'string', default: './.apiary' },
        'bind-address': { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '6443' },
        storage: { type: 'string', default: 'sqlite' },
        'etcd-prefix': { type: 'string', default: '/registry' },
        'log-level': { type: 'string', default: 'info' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`invalid --port ${JSON.stringify(values.port)}`);
  const storage = values.storage;
  if (storage !== 'sqlite' && storage !== 'memory') fail(`invalid --storage ${JSON.stringify(storage)}: want sqlite or memory`);

  const options: ServerOptions = {
    bindAddress: values['bind-address'],
    port,
    storage,
    dataDir: path.resolve(values['data-dir']),
    etcdPrefix: values['etcd-prefix'],
    logLevel: values['log-level'],
  };
  const server = await startServer(options);
  process.stdout.write(`apiary listening on ${server.url}\n`);
  if (server.kubeconfigPath !== undefined) process.stdout.write(`kubeconfig: ${server.kubeconfigPath}\n`);

  let shuttingDown = false;
  const shutdown = (signal: string): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    process.stdout.write(`received ${signal}, shutting down\n`);
    server.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`apiary: shutdown failed: ${err instanceof Error ? err.stack : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve(rest);
      return;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE);
      return;
    default:
      fail(`unknown command ${JSON.stringify(command)}`);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`apiary: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
