// autoscaling: v2 is stored and preferred (listed first); v1 is the same objects converted.
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { hpaToV1, hpaToV2 } from '../../api/autoscaling/v1/conversion.js';
import { horizontalPodAutoscalerV1Strategy, horizontalPodAutoscalerV2Strategy } from './horizontalpodautoscalers.js';

const hpa = { group: 'autoscaling', resource: 'horizontalpodautoscalers', kind: 'HorizontalPodAutoscaler', singular: 'horizontalpodautoscaler', short: ['hpa'], categories: ['all'], plainKey: true } as const;

export function autoscalingEntries(): CatalogEntry[] {
  return [
    entry({ ...hpa, version: 'v2', short: [...hpa.short], categories: [...hpa.categories], strategy: horizontalPodAutoscalerV2Strategy }),
    entry({ ...hpa, version: 'v1', short: [...hpa.short], categories: [...hpa.categories], strategy: horizontalPodAutoscalerV1Strategy,
      storedAs: { group: 'autoscaling', resource: 'horizontalpodautoscalers', conversion: { toStored: hpaToV2, fromStored: hpaToV1 } } }),
  ];
}
