// The TLS settings of a connection to an extension server (kube-aggregator's
// proxy transport): the APIService's caBundle (or no verification with
// insecureSkipTLSVerify), `<service>.<namespace>.svc` as the name the serving
// certificate must carry, and the proxy client certificate
// (--proxy-client-cert-file / --proxy-client-key-file) that tells the
// extension server the front-proxy headers come from us.

import https from 'node:https';
import type { APIServiceSpec } from '../../api/apiregistration/v1/types.js';

export interface ProxyClientCertificate {
  cert: string;
  key: string;
}

/** Agents per APIService configuration, so connections are reused between requests. */
export class ProxyTransports {
  private readonly agents = new Map<string, https.Agent>();

  constructor(private readonly clientCertificate: () => ProxyClientCertificate | undefined) {}

  agentFor(spec: APIServiceSpec): https.Agent {
    const service = spec.service ?? {};
    const serverName = `${service.name ?? ''}.${service.namespace ?? ''}.svc`;
    const client = this.clientCertificate();
    const key = JSON.stringify([serverName, spec.insecureSkipTLSVerify === true, spec.caBundle ?? '', client?.cert ?? '']);
    let agent = this.agents.get(key);
    if (agent === undefined) {
      const options: https.AgentOptions = { keepAlive: true, servername: serverName, rejectUnauthorized: spec.insecureSkipTLSVerify !== true };
      if (spec.caBundle !== undefined && spec.caBundle !== '') options.ca = Buffer.from(spec.caBundle, 'base64').toString('utf8');
      if (client !== undefined) {
        options.cert = client.cert;
        options.key = client.key;
      }
      agent = new https.Agent(options);
      this.agents.set(key, agent);
    }
    return agent;
  }

  close(): void {
    for (const agent of this.agents.values()) agent.destroy();
    this.agents.clear();
  }
}
