// Leases shared per TTL, as kube-apiserver's lease manager shares them.

import type { Int64 } from './protocol.js';

// ---------------------------------------------------------------------------
// Leases.

export interface CachedLease {
  id: Int64;
  expiresAt: number;
}

/** Shares leases between keys with the same TTL (kube-apiserver's leaseManager scheme). */
export class LeaseManager {
  private readonly leases = new Map<number, CachedLease>();
  private readonly pending = new Map<number, Promise<CachedLease>>();

  constructor(
    private readonly grant: (ttlSeconds: number) => Promise<Int64>,
    private readonly now: () => number,
  ) {}

  async leaseFor(ttlSeconds: number): Promise<Int64> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const reuseSeconds = Math.min(Math.floor(ttl * 0.05), 60);
    const now = this.now();
    const cached = this.leases.get(ttl);
    // Reusable when the lease outlives the TTL but not by more than the reuse window.
    if (cached && now + ttl * 1000 < cached.expiresAt && now + (ttl + reuseSeconds) * 1000 >= cached.expiresAt) {
      return cached.id;
    }
    let inflight = this.pending.get(ttl);
    if (!inflight) {
      inflight = (async () => {
        const grantedAt = this.now();
        const id = await this.grant(ttl + reuseSeconds);
        const lease = { id, expiresAt: grantedAt + (ttl + reuseSeconds) * 1000 };
        this.leases.set(ttl, lease);
        return lease;
      })().finally(() => this.pending.delete(ttl));
      this.pending.set(ttl, inflight);
    }
    return (await inflight).id;
  }

  /** Forgets a lease etcd no longer knows (revoked, or the cluster was restored). */
  forget(id: Int64): void {
    for (const [ttl, lease] of this.leases) if (String(lease.id) === String(id)) this.leases.delete(ttl);
  }
}

