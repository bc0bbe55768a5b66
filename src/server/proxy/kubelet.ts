// How apiary reaches a node's kubelet (upstream's pkg/kubelet/client): HTTPS
// to the node's address of the first preferred type
// (--kubelet-preferred-address-types, default Hostname, InternalDNS,
// InternalIP, ExternalDNS, ExternalIP; a Hostname falls back to the node's
// kubernetes.io/hostname label), at status.daemonEndpoints.kubeletEndpoint.Port
// (10250 when unset), presenting --kubelet-client-certificate/--kubelet-client-key
// and verifying the kubelet's serving certificate against
// --kubelet-certificate-authority; with no CA the certificate is not verified,
// as upstream's transport does when none is configured.

import https from 'node:https';
import { readFileSync } from 'node:fs';
import { unknownError } from '../../machinery/errors.js';

export const DEFAULT_KUBELET_PORT = 10250;
export const DEFAULT_PREFERRED_ADDRESS_TYPES = ['Hostname', 'InternalDNS', 'InternalIP', 'ExternalDNS', 'ExternalIP'];
const ADDRESS_TYPES = new Set(DEFAULT_PREFERRED_ADDRESS_TYPES);

export interface KubeletClientOptions {
  /** --kubelet-client-certificate / --kubelet-client-key (PEM files). */
  clientCertificateFile?: string;
  clientKeyFile?: string;
  /** --kubelet-certificate-authority (PEM file); absent: the kubelet's certificate is not verified. */
  certificateAuthorityFile?: string;
  /** --kubelet-preferred-address-types. */
  preferredAddressTypes?: string[];
  /** The port when a node reports none (upstream's deprecated --kubelet-port). */
  defaultPort?: number;
}

/** The problems of --kubelet-preferred-address-types, as kube-apiserver reports them at start. */
export function preferredAddressTypeProblems(types: string[]): string[] {
  return types.filter((t) => !ADDRESS_TYPES.has(t)).map((t) => `${t} is not a valid address type`);
}

interface NodeAddress {
  type?: string;
  address?: string;
}

export interface NodeLike {
  metadata?: { name?: string; labels?: Record<string, string> };
  status?: { addresses?: NodeAddress[]; daemonEndpoints?: { kubeletEndpoint?: { Port?: number } } };
}

export interface KubeletConnection {
  host: string;
  port: number;
  agent: https.Agent;
}

export class KubeletClient {
  private readonly preferred: string[];
  private readonly defaultPort: number;
  private agentCache: { verified: https.Agent; insecure: https.Agent } | undefined;
  private readonly base: https.AgentOptions = { keepAlive: true };
  private readonly ca: string | undefined;

  /** Reads the certificate files now: a missing or unreadable one stops the server's start, as upstream's. */
  constructor(options: KubeletClientOptions = {}) {
    this.preferred = options.preferredAddressTypes ?? DEFAULT_PREFERRED_ADDRESS_TYPES;
    this.defaultPort = options.defaultPort ?? DEFAULT_KUBELET_PORT;
    if (options.clientCertificateFile !== undefined) this.base.cert = readFileSync(options.clientCertificateFile, 'utf8');
    if (options.clientKeyFile !== undefined) this.base.key = readFileSync(options.clientKeyFile, 'utf8');
    if (options.certificateAuthorityFile !== undefined) this.ca = readFileSync(options.certificateAuthorityFile, 'utf8');
  }

  private agents(): { verified: https.Agent; insecure: https.Agent } {
    if (this.agentCache === undefined) {
      const base = this.base;
      const ca = this.ca;
      const verified = ca !== undefined ? new https.Agent({ ...base, ca }) : new https.Agent({ ...base, rejectUnauthorized: false });
      this.agentCache = { verified, insecure: new https.Agent({ ...base, rejectUnauthorized: false }) };
    }
    return this.agentCache;
  }

  /** Where the node's kubelet listens; `insecureSkipTLSVerify` is pods/log's insecureSkipTLSVerifyBackend. */
  connectionFor(node: NodeLike, insecureSkipTLSVerify = false): KubeletConnection {
    const host = preferredAddress(node, this.preferred);
    const reported = node.status?.daemonEndpoints?.kubeletEndpoint?.Port ?? 0;
    const agents = this.agents();
    return { host, port: reported > 0 ? reported : this.defaultPort, agent: insecureSkipTLSVerify ? agents.insecure : agents.verified };
  }

  close(): void {
    this.agentCache?.verified.destroy();
    this.agentCache?.insecure.destroy();
    this.agentCache = undefined;
  }
}

/** nodeutil.GetPreferredNodeAddress: the first address of the first preferred type that has one. */
export function preferredAddress(node: NodeLike, preferred: string[]): string {
  const addresses = node.status?.addresses ?? [];
  for (const type of preferred) {
    const match = addresses.find((a) => a.type === type);
    if (match !== undefined) return match.address ?? '';
    const hostname = node.metadata?.labels?.['kubernetes.io/hostname'];
    if (type === 'Hostname' && hostname !== undefined && hostname !== '') return hostname;
  }
  // Go's %v of the addresses: [{Type Address} …].
  const known = addresses.map((a) => `{${a.type ?? ''} ${a.address ?? ''}}`).join(' ');
  throw unknownError(`no preferred addresses found; known addresses: [${known}]`);
}
