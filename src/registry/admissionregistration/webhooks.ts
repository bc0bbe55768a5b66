// What the two webhook configuration kinds share: cluster-scoped, no status,
// names are DNS subdomains; generation starts at 1 and counts changes of
// webhooks (upstream's strategy).
import { nameIsDNSSubdomain } from '../../machinery/validation.js';
import type { KubeObject } from '../../machinery/meta.js';
import { generationOne } from '../strategy-helpers.js';

const prepareForUpdate = (obj: KubeObject, old: KubeObject): void => {
  const hooks = (o: KubeObject): string => JSON.stringify((o as { webhooks?: unknown }).webhooks ?? null);
  const generation = old.metadata.generation ?? 0;
  obj.metadata.generation = hooks(obj) !== hooks(old) ? generation + 1 : generation;
};

export const webhookConfigurationCommon = {
  namespaced: false,
  nameValidator: nameIsDNSSubdomain,
  allowCreateOnUpdate: false,
  allowUnconditionalUpdate: true,
  returnDeletedObject: false,
  prepareForCreate: generationOne,
  prepareForUpdate,
} as const;
