// /healthz, /livez and /readyz as kube-apiserver 1.32 serves them: each a
// list of named checks, "ok" when all pass, `?verbose` for one line per check
// and a closing "<endpoint> check passed", `?exclude=<name>` to skip one, and
// /<endpoint>/<check> for a single check. A failure is always verbose: a 500
// whose lines say "[-]<name> failed: reason withheld" and end with
// "<endpoint> check failed".
//
// The checks are those of upstream's list that apiary has an equivalent for,
// under upstream's names and in upstream's order:
//   ping                 the server answers (always ok)
//   log                  the logger is in place (always ok)
//   etcd                 the storage backend answers a read of its revision;
//                        under /livez always ok (see ETCD_LIVENESS)
//   etcd-readiness       (readyz) the same, as upstream's readiness variant
//   informer-sync        (readyz) every watch cache holds its resource
//   poststarthook/start-apiserver-admission-initializer
//                        the admission chain is built (always ok once serving)
//   poststarthook/start-system-namespaces-controller
//                        (healthz, readyz) the system namespaces exist when the
//                        embedder asked the server to wait for them (the
//                        kube-apiserver entry and serve do): envtest and its
//                        users create objects in kube-public as soon as /healthz
//                        is ok. Upstream's hook passes once its controller started,
//                        which is in practice before its slower start is healthy.
//   shutdown             (readyz) fails once the server is stopping
// Upstream's other post-start hooks (priority and fairness, apiextensions,
// RBAC, the aggregator, identity leases, …) have no counterpart here, so they
// are not listed.

import type { IncomingMessage, ServerResponse } from 'node:http';

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export interface HealthProbes {
  /** Resolves when the storage backend answers; rejects (or times out) otherwise. */
  storage(): Promise<void>;
  /** Every watch cache has synced. */
  cachesSynced(): boolean;
  /** False once the server has begun to stop (and before it listens). */
  serving(): boolean;
  /** False until the system namespaces exist, when the embedder waits for them. */
  systemNamespaces(): boolean;
}

interface Check {
  name: string;
  run(probes: HealthProbes): Promise<void>;
}

const STORAGE_TIMEOUT_MS = 2000;

async function storageAnswers(probes: HealthProbes): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('storage did not answer in time')), STORAGE_TIMEOUT_MS);
  });
  try {
    await Promise.race([probes.storage(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const always: Check['run'] = async () => {};

const PING: Check = { name: 'ping', run: always };
const LOG: Check = { name: 'log', run: always };
const ETCD: Check = { name: 'etcd', run: storageAnswers };
/**
 * /livez's etcd check. kube-apiserver 1.32 fails it while etcd is away, and a
 * kubelet then restarts the server, which brings no etcd back and drops what
 * the watch caches still serve. apiary stays live (issue 35): an etcd outage
 * shows in /readyz (etcd, etcd-readiness) and /healthz, not in /livez.
 */
const ETCD_LIVENESS: Check = { name: 'etcd', run: always };
const ETCD_READINESS: Check = { name: 'etcd-readiness', run: storageAnswers };
const INFORMER_SYNC: Check = {
  name: 'informer-sync',
  run: async (probes) => {
    if (!probes.cachesSynced()) throw new Error('watch caches not synced');
  },
};
const ADMISSION: Check = { name: 'poststarthook/start-apiserver-admission-initializer', run: always };
const SYSTEM_NAMESPACES: Check = {
  name: 'poststarthook/start-system-namespaces-controller',
  run: async (probes) => {
    if (!probes.systemNamespaces()) throw new Error('system namespaces not created yet');
  },
};
const SHUTDOWN: Check = {
  name: 'shutdown',
  run: async (probes) => {
    if (!probes.serving()) throw new Error('process is shutting down');
  },
};

const CHECKS: Record<HealthEndpoint, Check[]> = {
  healthz: [PING, LOG, ETCD, ADMISSION, SYSTEM_NAMESPACES],
  livez: [PING, LOG, ETCD_LIVENESS, ADMISSION],
  readyz: [PING, LOG, ETCD, ETCD_READINESS, INFORMER_SYNC, ADMISSION, SYSTEM_NAMESPACES, SHUTDOWN],
};

/** The health paths the root document lists: each endpoint and each of its checks. */
export function healthPaths(): string[] {
  return (Object.keys(CHECKS) as HealthEndpoint[]).flatMap((endpoint) => [`/${endpoint}`, ...CHECKS[endpoint].map((c) => `/${endpoint}/${c.name}`)]);
}

/** Whether `path` (no trailing slash) is a health endpoint or one of its checks. */
export function healthEndpointOf(path: string): { endpoint: HealthEndpoint; check: string } | undefined {
  const match = /^\/(healthz|livez|readyz)(?:\/(.+))?$/.exec(path);
  if (match === null) return undefined;
  return { endpoint: match[1] as HealthEndpoint, check: match[2] ?? '' };
}

function writePlain(req: IncomingMessage, res: ServerResponse, code: number, text: string): void {
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.writeHead(code);
  res.end(req.method === 'HEAD' ? undefined : text);
}

async function outcome(check: Check, probes: HealthProbes): Promise<Error | undefined> {
  try {
    await check.run(probes);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}

/** Serves one health request; `query` is the request's query string. */
export async function serveHealth(
  req: IncomingMessage,
  res: ServerResponse,
  target: { endpoint: HealthEndpoint; check: string },
  query: URLSearchParams,
  probes: HealthProbes,
): Promise<void> {
  const checks = CHECKS[target.endpoint];
  if (target.check !== '') {
    const check = checks.find((c) => c.name === target.check);
    if (check === undefined) return writePlain(req, res, 404, '404 page not found\n');
    const err = await outcome(check, probes);
    // http.Error appends a newline; success is a bare "ok".
    if (err !== undefined) return writePlain(req, res, 500, `internal server error: ${err.message}\n`);
    return writePlain(req, res, 200, 'ok');
  }
  const excluded = new Set(query.getAll('exclude'));
  let lines = '';
  let failed = false;
  const results = await Promise.all(checks.map((c) => (excluded.has(c.name) ? Promise.resolve(undefined) : outcome(c, probes))));
  checks.forEach((check, i) => {
    if (excluded.delete(check.name)) {
      lines += `[+]${check.name} excluded: ok\n`;
      return;
    }
    if (results[i] !== undefined) {
      // The reason stays in the server: these endpoints are public.
      lines += `[-]${check.name} failed: reason withheld\n`;
      failed = true;
    } else {
      lines += `[+]${check.name} ok\n`;
    }
  });
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((n) => JSON.stringify(n)).join(', ');
    lines += `warn: some health checks cannot be excluded: no matches for ${names}\n`;
  }
  if (failed) return writePlain(req, res, 500, `${lines}${target.endpoint} check failed\n`);
  if (!query.has('verbose')) return writePlain(req, res, 200, 'ok');
  return writePlain(req, res, 200, `${lines}${target.endpoint} check passed\n`);
}
