// certificates.k8s.io/v1: its catalog entries (the strategy stamps condition times from the registry's clock).
import { entry, type CatalogEntry } from '../catalog-entry.js';
import type { StrategyContext } from '../strategy.js';
import { certificateSigningRequestStrategy } from './certificatesigningrequests.js';

export function certificatesEntries(ctx: StrategyContext): CatalogEntry[] {
  return [
    entry({ group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', kind: 'CertificateSigningRequest', singular: 'certificatesigningrequest', short: ['csr'], strategy: certificateSigningRequestStrategy(ctx) }),
  ];
}
