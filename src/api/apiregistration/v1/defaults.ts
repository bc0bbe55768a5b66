// Defaults of apiregistration/v1 (upstream's SetDefaults_ServiceReference: port 443).

import type { KubeObject } from '../../../machinery/meta.js';
import type { APIServiceSpec } from './types.js';

export function defaultAPIService(obj: KubeObject): void {
  const spec = obj['spec'] as APIServiceSpec | undefined;
  const service = spec?.service;
  if (service !== undefined && service !== null && typeof service === 'object' && service.port === undefined) service.port = 443;
}
