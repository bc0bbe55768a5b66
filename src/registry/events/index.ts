// events.k8s.io/v1: the core events in their newer form (stored as core events, converted).
import { entry, type CatalogEntry } from '../catalog-entry.js';
import { eventFromCore, eventToCore } from '../../api/events/v1/conversion.js';
import { eventsV1Strategy } from './events.js';

export function eventsEntries(): CatalogEntry[] {
  return [
    entry({ group: 'events.k8s.io', version: 'v1', resource: 'events', kind: 'Event', singular: 'event', short: ['ev'], strategy: eventsV1Strategy,
      storedAs: { group: '', resource: 'events', conversion: { toStored: eventToCore, fromStored: eventFromCore } } }),
  ];
}
