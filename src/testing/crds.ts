// CustomResourceDefinitions from folders of YAML or JSON files, as envtest's
// CRDDirectoryPaths: every document of kind CustomResourceDefinition found in
// the files (not recursing into subfolders) is created, then waited for until
// it is Established and its resource is served.

import fs from 'node:fs/promises';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject, RestClient } from '../client/index.js';

const CRD_GVR = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };

interface CrdObject extends KubeObject {
  spec?: { group?: string; names?: { plural?: string }; versions?: Array<{ name: string; served?: boolean }> };
  status?: { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
}

/** Reads every CustomResourceDefinition in the files of `paths` (a path may also name one file). */
export async function readCrdFiles(paths: readonly string[]): Promise<CrdObject[]> {
  const crds: CrdObject[] = [];
  for (const p of paths) {
    const stat = await fs.stat(p).catch((err: NodeJS.ErrnoException) => {
      throw new Error(`CRD path ${p}: ${err.code === 'ENOENT' ? 'no such file or directory' : err.message}`);
    });
    const files = stat.isDirectory()
      ? (await fs.readdir(p))
          .filter((f) => /\.(ya?ml|json)$/i.test(f))
          .sort()
          .map((f) => path.join(p, f))
      : [p];
    for (const file of files) {
      const text = await fs.readFile(file, 'utf8');
      for (const doc of parseAllDocuments(text)) {
        if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0]!.message}`);
        const value = doc.toJS() as unknown;
        if (value === null || typeof value !== 'object') continue;
        const object = value as CrdObject;
        if (object.kind === 'CustomResourceDefinition' && typeof object.apiVersion === 'string' && object.apiVersion.startsWith('apiextensions.k8s.io/')) crds.push(object);
      }
    }
  }
  return crds;
}

function established(crd: CrdObject): boolean {
  return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') === true;
}

/**
 * Creates the CRDs and waits until each is Established and every served
 * version lists its plural in discovery; rejects after `timeoutMs` naming the
 * CRDs still waiting (with their conditions).
 */
export async function installCrds(client: RestClient, crds: readonly CrdObject[], timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const store = client.resource<CrdObject>(CRD_GVR);
  for (const crd of crds) await store.create(crd);
  const deadline = Date.now() + timeoutMs;
  let pending = [...crds];
  let last: CrdObject[] = [];
  while (pending.length > 0) {
    const still: CrdObject[] = [];
    last = [];
    for (const crd of pending) {
      const current = await store.get(crd.metadata!.name!);
      if (!established(current) || !(await served(client, current))) {
        still.push(crd);
        last.push(current);
      }
    }
    pending = still;
    if (pending.length === 0) return;
    if (Date.now() > deadline || signal?.aborted === true) {
      const detail = last.map((c) => `${c.metadata?.name} (conditions: ${JSON.stringify(c.status?.conditions ?? [])})`).join(', ');
      throw new Error(`CustomResourceDefinitions not established within ${timeoutMs} ms: ${detail}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function served(client: RestClient, crd: CrdObject): Promise<boolean> {
  const group = crd.spec?.group;
  const plural = crd.spec?.names?.plural;
  for (const version of crd.spec?.versions ?? []) {
    if (version.served === false) continue;
    try {
      const list = await client.request<{ resources?: Array<{ name: string }> }>({ method: 'GET', path: `/apis/${group}/${version.name}` });
      if (!(list?.resources ?? []).some((r) => r.name === plural)) return false;
    } catch {
      return false;
    }
  }
  return true;
}
