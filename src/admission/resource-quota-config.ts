// --admission-control-config-file: an AdmissionConfiguration
// (apiserver.config.k8s.io/v1, or v1alpha1) whose ResourceQuota entry carries
// a ResourceQuotaConfiguration inline (`configuration`) or in a file
// (`path`, relative to the admission file). Its `limitedResources` list
// resources whose consumption must be covered by a quota: a create that would
// consume a name containing one of `matchContains` (or match one of
// `matchScopes`) without a quota covering it is refused.

import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import type { ScopeSelectorRequirement } from '../api/quota/v1/evaluators.js';

export interface LimitedResource {
  apiGroup?: string;
  resource: string;
  matchContains?: string[];
  matchScopes?: ScopeSelectorRequirement[];
}

export interface ResourceQuotaConfiguration {
  limitedResources: LimitedResource[];
}

const GROUP_VERSIONS = ['apiserver.config.k8s.io/v1', 'apiserver.config.k8s.io/v1alpha1', 'apiserver.k8s.io/v1alpha1'];
const QUOTA_GROUP_VERSIONS = ['apiserver.config.k8s.io/v1', 'resourcequota.admission.k8s.io/v1', 'resourcequota.admission.k8s.io/v1beta1', 'resourcequota.admission.k8s.io/v1alpha1'];

function parse(text: string, file: string): Record<string, unknown> {
  const doc: unknown = YAML.parse(text);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new Error(`${file}: not an object`);
  return doc as Record<string, unknown>;
}

function quotaConfiguration(doc: Record<string, unknown>, file: string): ResourceQuotaConfiguration {
  const gv = String(doc.apiVersion ?? '');
  if (doc.kind !== 'ResourceQuotaConfiguration' || !QUOTA_GROUP_VERSIONS.includes(gv)) {
    throw new Error(`${file}: expected a ResourceQuotaConfiguration, got ${String(doc.kind)} in ${gv}`);
  }
  const list = doc.limitedResources ?? [];
  if (!Array.isArray(list)) throw new Error(`${file}: limitedResources must be a list`);
  return {
    limitedResources: list.map((item: unknown, i: number) => {
      const l = item as Record<string, unknown>;
      if (typeof l.resource !== 'string' || l.resource === '') throw new Error(`${file}: limitedResources[${i}].resource is required`);
      const out: LimitedResource = { resource: l.resource };
      if (typeof l.apiGroup === 'string') out.apiGroup = l.apiGroup;
      if (Array.isArray(l.matchContains)) out.matchContains = l.matchContains.map(String);
      if (Array.isArray(l.matchScopes)) out.matchScopes = l.matchScopes as ScopeSelectorRequirement[];
      return out;
    }),
  };
}

/** The ResourceQuota configuration in an admission configuration file (none: no limited resources). */
export function loadResourceQuotaConfiguration(file: string): ResourceQuotaConfiguration {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`unable to read admission control configuration from ${JSON.stringify(file)} [${err instanceof Error ? err.message : String(err)}]`);
  }
  const doc = parse(text, file);
  if (doc.kind !== 'AdmissionConfiguration' || !GROUP_VERSIONS.includes(String(doc.apiVersion ?? ''))) {
    throw new Error(`${file}: expected an AdmissionConfiguration (apiserver.config.k8s.io/v1)`);
  }
  const plugins = Array.isArray(doc.plugins) ? (doc.plugins as Record<string, unknown>[]) : [];
  const entry = plugins.find((p) => p.name === 'ResourceQuota');
  if (entry === undefined) return { limitedResources: [] };
  if (entry.configuration !== undefined && entry.configuration !== null) {
    return quotaConfiguration(entry.configuration as Record<string, unknown>, file);
  }
  if (typeof entry.path === 'string' && entry.path !== '') {
    const inner = path.resolve(path.dirname(file), entry.path);
    return quotaConfiguration(parse(fs.readFileSync(inner, 'utf8'), inner), inner);
  }
  return { limitedResources: [] };
}
