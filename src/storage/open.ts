// openBackend: the one place that turns a configuration choice into a Backend.
// 'memory' keeps everything in process; 'sqlite' stores DIR/apiary.db, creating
// DIR when missing; 'etcd' connects to --etcd-servers (failing with
// StorageError 'Unavailable' when none answers within the dial timeout).

import fs from 'node:fs';
import path from 'node:path';
import type { Backend } from './interface.js';
import { MemoryBackend } from './memory.js';
import { SqliteBackend } from './sqlite.js';
import { ThreadedEtcdBackend } from './etcd/thread.js';

export interface OpenBackendOptions {
  kind: 'memory' | 'sqlite' | 'etcd';
  /** Directory of the sqlite file; required for 'sqlite'. */
  dataDir?: string;
  /** etcd client URLs (--etcd-servers); required for 'etcd'. Keys arrive already prefixed (--etcd-prefix). */
  etcdServers?: string[];
}

/** The sqlite database's file name inside the data directory. */
export const SQLITE_FILE_NAME = 'apiary.db';

export async function openBackend(opts: OpenBackendOptions): Promise<Backend> {
  switch (opts.kind) {
    case 'memory':
      return new MemoryBackend();
    case 'sqlite': {
      if (!opts.dataDir) throw new Error('openBackend: the sqlite backend needs a dataDir');
      fs.mkdirSync(opts.dataDir, { recursive: true });
      return SqliteBackend.open(path.join(opts.dataDir, SQLITE_FILE_NAME));
    }
    case 'etcd': {
      if (!opts.etcdServers?.length) throw new Error('openBackend: the etcd backend needs etcdServers');
      // The etcd client runs on a worker thread of its own (etcd/thread.ts says why).
      return ThreadedEtcdBackend.connect({ endpoints: opts.etcdServers });
    }
    default: {
      const kind: never = opts.kind;
      throw new Error(`openBackend: unknown backend kind ${String(kind)}`);
    }
  }
}
