// autoscaling/v2 HorizontalPodAutoscaler defaults (upstream pkg/apis/autoscaling/v2/defaults.go):
// minReplicas 1; no metrics means 80% average CPU utilization; a behavior
// given gets upstream's scale-up and scale-down rules where it leaves them out.
import type { KubeObject } from '../../../machinery/meta.js';

type Obj = Record<string, any>;

const SCALE_UP = (): Obj => ({
  stabilizationWindowSeconds: 0,
  selectPolicy: 'Max',
  policies: [
    { type: 'Pods', value: 4, periodSeconds: 15 },
    { type: 'Percent', value: 100, periodSeconds: 15 },
  ],
});
const SCALE_DOWN = (): Obj => ({ selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }] });

function defaultRules(rules: Obj | undefined | null, defaults: Obj, stabilization: number | undefined): Obj {
  if (rules === undefined || rules === null) return { ...defaults, ...(stabilization !== undefined && defaults['stabilizationWindowSeconds'] === undefined ? { stabilizationWindowSeconds: stabilization } : {}) };
  const out: Obj = { ...rules };
  if (out['selectPolicy'] === undefined || out['selectPolicy'] === null) out['selectPolicy'] = 'Max';
  if (out['policies'] === undefined || out['policies'] === null || out['policies'].length === 0) out['policies'] = defaults['policies'];
  for (const p of out['policies'] as Obj[]) if (p['periodSeconds'] === undefined) p['periodSeconds'] = 15;
  return out;
}

export function defaultHorizontalPodAutoscalerV2(obj: KubeObject): void {
  const spec = ((obj as Obj)['spec'] ??= {}) as Obj;
  if (spec['minReplicas'] === undefined || spec['minReplicas'] === null) spec['minReplicas'] = 1;
  if (spec['metrics'] === undefined || spec['metrics'] === null || spec['metrics'].length === 0) {
    spec['metrics'] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  const behavior = spec['behavior'] as Obj | undefined | null;
  if (behavior !== undefined && behavior !== null) {
    spec['behavior'] = {
      ...behavior,
      scaleUp: defaultRules(behavior['scaleUp'], SCALE_UP(), undefined),
      scaleDown: defaultRules(behavior['scaleDown'], SCALE_DOWN(), undefined),
    };
  }
}
