// kube-apiserver's command line, as far as apiary takes it: the flags
// controller-runtime's envtest passes (v0.19–v0.22) and those its users
// commonly add through Configure(). Each flag is either used (mapped onto
// apiary's options) or accepted and ignored (listed as such in --help, so a
// flag that would change behaviour is never dropped silently). Any other flag
// is refused naming it, as pflag does ("unknown flag: --x").
//
// Syntax follows pflag: --name=value, --name value, a bare --name for
// booleans, -v=N / -v N for klog's verbosity, -h / --help.

/** 'stringArray' is pflag's repeatable flag: every occurrence is kept, in order. */
export type FlagKind = 'string' | 'bool' | 'stringArray';

export interface FlagSpec {
  kind: FlagKind;
  /** Default shown in --help (upstream's). */
  default?: string;
  help: string;
  /** Accepted for envtest's sake but without effect in apiary (said in --help). */
  ignored?: boolean;
}

export const KUBE_APISERVER_FLAGS: Record<string, FlagSpec> = {
  // Secure serving
  'bind-address': { kind: 'string', default: '0.0.0.0', help: 'The IP address on which to listen for the --secure-port port.' },
  'secure-port': { kind: 'string', default: '6443', help: 'The port on which to serve HTTPS with authentication and authorization. 0 picks a free port.' },
  'cert-dir': {
    kind: 'string',
    default: '/var/run/kubernetes',
    help: 'The directory where the TLS certs are located: apiserver.crt and apiserver.key are served when present (and --tls-cert-file is not given); apiary keeps its cluster PKI here too.',
  },
  'tls-cert-file': { kind: 'string', help: 'File containing the default x509 certificate for HTTPS.' },
  'tls-private-key-file': { kind: 'string', help: 'File containing the default x509 private key matching --tls-cert-file.' },
  'advertise-address': { kind: 'string', help: 'The IP address on which to advertise the apiserver to members of the cluster.' },
  // Authentication and authorization
  'client-ca-file': { kind: 'string', help: 'Any request presenting a client certificate signed by one of the authorities in this file is authenticated (CN = user, O = groups).' },
  'anonymous-auth': { kind: 'bool', default: 'true', help: 'Enables anonymous requests to the secure port (system:anonymous).' },
  'authorization-mode': { kind: 'string', default: 'AlwaysAllow', help: 'Ordered list of plug-ins: RBAC, AlwaysAllow (Node is accepted and ignored).' },
  'token-auth-file': { kind: 'string', help: 'A CSV file of static bearer tokens: token,user,uid[,"group1,group2"].' },
  'service-account-issuer': { kind: 'stringArray', help: 'Identifier of the service account token issuer (iss claim). Repeatable: the first signs, all are accepted.' },
  'service-account-key-file': {
    kind: 'stringArray',
    help: 'File containing PEM-encoded x509 RSA or ECDSA private or public keys (or certificates), used to verify ServiceAccount tokens. Repeatable.',
  },
  'service-account-signing-key-file': { kind: 'string', help: 'Path to the file that contains the current private key (RSA or ECDSA) of the service account token issuer.' },
  // Aggregation
  'proxy-client-cert-file': { kind: 'string', help: 'Client certificate presented to extension API servers (default: a front-proxy-client certificate made in --cert-dir).' },
  'proxy-client-key-file': { kind: 'string', help: 'Private key of --proxy-client-cert-file.' },
  'requestheader-client-ca-file': { kind: 'string', help: 'CA of front proxies whose X-Remote-* headers name the user (default: the front-proxy CA made in --cert-dir).' },
  'requestheader-allowed-names': { kind: 'string', help: 'Common names a front proxy certificate may have; empty: any.' },
  'requestheader-username-headers': { kind: 'string', help: 'Headers holding the user name (default X-Remote-User).' },
  'requestheader-group-headers': { kind: 'string', help: 'Headers holding the groups (default X-Remote-Group).' },
  'requestheader-extra-headers-prefix': { kind: 'string', help: 'Prefixes of headers holding extra user information (default X-Remote-Extra-).' },
  'enable-aggregator-routing': { kind: 'bool', default: 'false', help: "Dial extension API servers at their Service's endpoints instead of its cluster IP." },
  // Kubelets (pods/log, exec, attach, port-forward, nodes/proxy)
  'kubelet-client-certificate': { kind: 'string', help: 'Path to a client cert file for TLS to kubelets.' },
  'kubelet-client-key': { kind: 'string', help: 'Path to a client key file for TLS to kubelets.' },
  'kubelet-certificate-authority': { kind: 'string', help: "Path to a cert file for the certificate authority of kubelets' serving certificates (unset: not verified)." },
  'kubelet-preferred-address-types': { kind: 'string', default: 'Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP', help: 'List of the preferred NodeAddressTypes to use for kubelet connections.' },
  // Storage
  'etcd-servers': { kind: 'string', help: 'List of etcd servers to connect with (scheme://ip:port), comma separated. Used unless --storage says otherwise.' },
  'etcd-prefix': { kind: 'string', default: '/registry', help: 'The prefix to prepend to all resource paths in etcd.' },
  'event-ttl': { kind: 'string', default: '1h0m0s', help: 'Amount of time to retain events.' },
  // Services and admission
  'service-cluster-ip-range': { kind: 'string', default: '10.0.0.0/24', help: 'A CIDR notation IP range from which to assign service cluster IPs.' },
  'service-node-port-range': { kind: 'string', default: '30000-32767', help: 'A port range to reserve for services with NodePort visibility.' },
  'enable-admission-plugins': { kind: 'string', help: 'Admission plugins to enable besides the default ones.' },
  'disable-admission-plugins': { kind: 'string', help: 'Admission plugins to disable (any name kube-apiserver knows).' },
  'admission-control-config-file': { kind: 'string', help: 'File with admission control configuration (ResourceQuota limitedResources).' },
  'audit-log-path': { kind: 'string', help: 'If set, write an audit event per write request to this file (level Metadata).' },
  'endpoint-reconciler-type': { kind: 'string', default: 'lease', help: 'Use an endpoint reconciler (lease, none).' },
  // Logging
  v: { kind: 'string', default: '0', help: 'Number for the log level verbosity (3 and above log every request).' },
  // Admission and fairness
  'allow-privileged': { kind: 'bool', default: 'false', help: 'Whether pods and pod templates may ask for privileged containers.' },
  'enable-priority-and-fairness': { kind: 'bool', default: 'true', help: 'API Priority and Fairness: classify requests by FlowSchema and queue them fairly per priority level.' },
  'max-requests-inflight': { kind: 'string', default: '400', help: 'Read-only seats shared by the priority levels (with the mutating ones).' },
  'max-mutating-requests-inflight': { kind: 'string', default: '200', help: 'Mutating seats shared by the priority levels (with the read-only ones).' },
  // Accepted and ignored
  'feature-gates': { kind: 'string', ignored: true, help: 'apiary has no feature gates: its features are on.' },
  'runtime-config': { kind: 'string', ignored: true, help: 'apiary serves every API group it has.' },
  'profiling': { kind: 'bool', default: 'true', ignored: true, help: 'No profiling endpoints.' },
  'storage-media-type': { kind: 'string', default: 'application/vnd.kubernetes.protobuf', ignored: true, help: 'apiary stores JSON.' },
  'watch-cache': { kind: 'bool', default: 'true', ignored: true, help: 'apiary always has its watch cache.' },
  'logging-format': { kind: 'string', default: 'text', ignored: true, help: 'apiary logs JSON lines.' },
  'delete-collection-workers': { kind: 'string', default: '1', ignored: true, help: 'No effect.' },
  'default-watch-cache-size': { kind: 'string', default: '100', ignored: true, help: 'No effect.' },
};

/** apiary's own flags for this command (not upstream's). */
export const APIARY_FLAGS: Record<string, FlagSpec> = {
  storage: {
    kind: 'string',
    help: 'apiary: where state lives: etcd (default when --etcd-servers is given), memory (ignore etcd: faster, nothing kept) or sqlite (in --cert-dir). Also APIARY_STORAGE.',
  },
  controllers: { kind: 'bool', default: 'true', help: 'apiary: run the namespace, garbage collector, resource quota and service account controllers in-process.' },
  'log-level': { kind: 'string', help: 'apiary: trace | debug | info | warn | error | silent (overrides -v).' },
};

export class UnknownFlagError extends Error {
  constructor(readonly flag: string) {
    super(`unknown flag: ${flag}`);
  }
}

/**
 * Parses argv into flag name → value (last one wins) and, for stringArray
 * flags, every value in `arrays`; throws UnknownFlagError or Error for a missing value.
 */
export function parseKubeApiserverArgs(argv: readonly string[]): { values: Map<string, string>; arrays: Map<string, string[]>; help: boolean } {
  const all: Record<string, FlagSpec> = { ...KUBE_APISERVER_FLAGS, ...APIARY_FLAGS };
  const values = new Map<string, string>();
  const arrays = new Map<string, string[]>();
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    const m = /^(--?)([^=]+)(?:=(.*))?$/s.exec(arg);
    if (m === null) throw new Error(`unexpected argument ${JSON.stringify(arg)}: kube-apiserver takes flags only`);
    const [, dashes, name, inline] = m as unknown as [string, string, string, string | undefined];
    // A single dash is only klog's -v (pflag's shorthand); everything else is --name.
    if (dashes === '-' && name !== 'v') throw new UnknownFlagError(arg.split('=')[0]!);
    const spec = all[name];
    if (spec === undefined) throw new UnknownFlagError(`--${name}`);
    let value = inline;
    if (value === undefined) {
      if (spec.kind === 'bool') value = 'true';
      else if (i + 1 < argv.length) value = argv[++i]!;
      else throw new Error(`flag needs an argument: --${name}`);
    }
    if (spec.kind === 'bool' && !/^(true|false|1|0|t|f|TRUE|FALSE|True|False)$/.test(value)) {
      throw new Error(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: want true or false`);
    }
    values.set(name, value);
    if (spec.kind === 'stringArray') arrays.set(name, [...(arrays.get(name) ?? []), value]);
  }
  return { values, arrays, help };
}

/** true for pflag's true spellings. */
export function flagTrue(value: string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  return /^(true|1|t|TRUE|True)$/.test(value);
}

function section(title: string, flags: Record<string, FlagSpec>, filter: (s: FlagSpec) => boolean): string {
  const lines = [`${title}:`, ''];
  for (const [name, spec] of Object.entries(flags)) {
    if (!filter(spec)) continue;
    const dashName = name === 'v' ? '-v, --v' : `--${name}`;
    const type = spec.kind === 'bool' ? '' : name === 'v' ? ' Level' : spec.kind === 'stringArray' ? ' stringArray' : ' string';
    const def = spec.default !== undefined ? ` (default ${spec.kind === 'string' && name !== 'v' ? JSON.stringify(spec.default) : spec.default})` : '';
    lines.push(`      ${dashName}${type}`, `                ${spec.ignored === true ? 'Accepted and ignored by apiary: ' : ''}${spec.help}${def}`);
  }
  return lines.join('\n');
}

export const KUBE_APISERVER_USAGE = [
  'The Kubernetes API server validates and configures data for the api objects which include pods,',
  'services, replicationcontrollers, and others. This is apiary standing in for kube-apiserver',
  '(for envtest: TEST_ASSET_KUBE_APISERVER=$(command -v kube-apiserver)); it also runs apiary\'s',
  'controllers, so namespaces finish deleting and garbage is collected.',
  '',
  'Usage:',
  '  kube-apiserver [flags]',
  '',
  section('Flags used by apiary', KUBE_APISERVER_FLAGS, (s) => s.ignored !== true),
  '',
  section('Flags accepted and ignored by apiary', KUBE_APISERVER_FLAGS, (s) => s.ignored === true),
  '',
  section("apiary's own flags", APIARY_FLAGS, () => true),
  '',
  '      -h, --help',
  '                help for kube-apiserver',
  '',
].join('\n');
