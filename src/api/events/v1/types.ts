// events.k8s.io/v1 Event: the same stored events as core/v1, under other field names.
import type { KubeObject } from '../../../machinery/meta.js';
import type { ObjectReference } from '../../core/v1/types.js';

export interface Event extends KubeObject {
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  regarding?: ObjectReference;
  related?: ObjectReference;
  note?: string;
  type?: string;
  deprecatedSource?: { component?: string; host?: string };
  deprecatedFirstTimestamp?: string | null;
  deprecatedLastTimestamp?: string | null;
  deprecatedCount?: number;
}
