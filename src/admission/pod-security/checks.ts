// The Pod Security Standards checks of 1.32 (upstream
// staging/src/k8s.io/pod-security-admission/policy/check_*.go): each looks at a
// pod's metadata and spec and answers allowed, or a forbidden reason with its
// detail. Baseline checks run for baseline and restricted; restricted checks
// for restricted only. Versioned as upstream where a check or its allowed
// values changed (a namespace may pin `pod-security.kubernetes.io/enforce-version`).

export type Level = 'privileged' | 'baseline' | 'restricted';

/** major.minor; latest is Infinity. */
export interface Version {
  major: number;
  minor: number;
}

export interface CheckResult {
  reason: string;
  detail: string;
}

type Obj = Record<string, unknown>;
interface Container {
  name?: string;
  ports?: { hostPort?: number }[];
  securityContext?: Obj;
}
interface PodSpecLike {
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  securityContext?: Obj;
  containers?: Container[];
  initContainers?: Container[];
  ephemeralContainers?: Container[];
  volumes?: Obj[];
}
export interface PodMetaLike {
  annotations?: Record<string, string>;
}

interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  /** The oldest policy version the check applies to. */
  since?: Version;
  run(meta: PodMetaLike, spec: PodSpecLike, version: Version): CheckResult | undefined;
}

const atLeast = (v: Version, major: number, minor: number): boolean => v.major > major || (v.major === major && v.minor >= minor);

function joinQuote(items: string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}
const pluralize = (singular: string, plural: string, n: number): string => (n === 1 ? singular : plural);
const sorted = (s: Set<string>): string[] => [...s].sort();

function containers(spec: PodSpecLike): Container[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])];
}
const sc = (c: Container): Obj | undefined => (c.securityContext !== null && typeof c.securityContext === 'object' ? c.securityContext : undefined);
const podSC = (s: PodSpecLike): Obj | undefined => (s.securityContext !== null && typeof s.securityContext === 'object' ? s.securityContext : undefined);
const named = (n: number, names: string[]): string => `${pluralize('container', 'containers', n)} ${joinQuote(names)}`;

const CAPS_BASELINE = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);
const SYSCTLS_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SYSCTLS_1_27 = ['net.ipv4.ip_local_reserved_ports'];
const SYSCTLS_1_29 = ['net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SYSCTLS_1_32 = ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];
const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

const validSeccomp = (t: unknown): boolean => t === 'Localhost' || t === 'RuntimeDefault';

const checks: Check[] = [
  {
    id: 'hostNamespaces',
    level: 'baseline',
    run(_m, s) {
      const bad: string[] = [];
      if (s.hostIPC === true) bad.push('hostIPC');
      if (s.hostNetwork === true) bad.push('hostNetwork');
      if (s.hostPID === true) bad.push('hostPID');
      return bad.length > 0 ? { reason: 'host namespaces', detail: bad.map((b) => `${b}=true`).join(', ') } : undefined;
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    run(_m, s) {
      const bad = containers(s).filter((c) => sc(c)?.['privileged'] === true).map((c) => c.name ?? '');
      return bad.length > 0 ? { reason: 'privileged', detail: `${named(bad.length, bad)} must not set securityContext.privileged=true` } : undefined;
    },
  },
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    run(_m, s) {
      const bad: string[] = [];
      const caps = new Set<string>();
      for (const c of containers(s)) {
        const add = ((sc(c)?.['capabilities'] as Obj | undefined)?.['add'] as string[] | undefined) ?? [];
        let valid = true;
        for (const cap of add) {
          if (!CAPS_BASELINE.has(cap)) {
            valid = false;
            caps.add(cap);
          }
        }
        if (!valid) bad.push(c.name ?? '');
      }
      return bad.length > 0 ? { reason: 'non-default capabilities', detail: `${named(bad.length, bad)} must not include ${joinQuote(sorted(caps))} in securityContext.capabilities.add` } : undefined;
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    run(_m, s) {
      const bad = (s.volumes ?? []).filter((v) => v['hostPath'] !== undefined && v['hostPath'] !== null).map((v) => String(v['name'] ?? ''));
      return bad.length > 0 ? { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}` } : undefined;
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    run(_m, s) {
      const bad: string[] = [];
      const ports = new Set<string>();
      for (const c of containers(s)) {
        let valid = true;
        for (const p of c.ports ?? []) {
          if ((p.hostPort ?? 0) !== 0) {
            valid = false;
            ports.add(String(p.hostPort));
          }
        }
        if (!valid) bad.push(c.name ?? '');
      }
      if (bad.length === 0) return undefined;
      return { reason: 'hostPort', detail: `${named(bad.length, bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', ports.size)} ${sorted(ports).join(', ')}` };
    },
  },
  {
    id: 'appArmorProfile',
    level: 'baseline',
    run(m, s) {
      const setters: string[] = [];
      const values = new Set<string>();
      const unconfined = (o: Obj | undefined): boolean => (o?.['appArmorProfile'] as Obj | undefined)?.['type'] === 'Unconfined';
      if (unconfined(podSC(s))) {
        setters.push('pod');
        values.add('Unconfined');
      }
      const bad = containers(s).filter((c) => unconfined(sc(c))).map((c) => c.name ?? '');
      if (bad.length > 0) {
        setters.push(named(bad.length, bad));
        values.add('Unconfined');
      }
      let annotations = 0;
      for (const [k, v] of Object.entries(m.annotations ?? {})) {
        if (k.startsWith('container.apparmor.security.beta.kubernetes.io/') && !(v === '' || v === 'runtime/default' || v.startsWith('localhost/'))) {
          annotations++;
          values.add(`${k}=${JSON.stringify(v)}`);
        }
      }
      if (annotations > 0) setters.push(pluralize('annotation', 'annotations', annotations));
      if (setters.length === 0) return undefined;
      return {
        reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.size),
        detail: `${setters.join(' and ')} must not set AppArmor profile type to ${joinQuote(sorted(values))}`,
      };
    },
  },
  {
    id: 'seLinuxOptions',
    level: 'baseline',
    run(_m, s) {
      const setters: string[] = [];
      const types = new Set<string>();
      let user = false;
      let role = false;
      const valid = (o: Obj): boolean => {
        let ok = true;
        const t = String(o['type'] ?? '');
        if (!SELINUX_TYPES.has(t)) {
          ok = false;
          types.add(t);
        }
        if (String(o['user'] ?? '') !== '') {
          ok = false;
          user = true;
        }
        if (String(o['role'] ?? '') !== '') {
          ok = false;
          role = true;
        }
        return ok;
      };
      const podOpts = podSC(s)?.['seLinuxOptions'] as Obj | undefined;
      if (podOpts && !valid(podOpts)) setters.push('pod');
      const bad = containers(s).filter((c) => {
        const o = sc(c)?.['seLinuxOptions'] as Obj | undefined;
        return o !== undefined && o !== null && !valid(o);
      }).map((c) => c.name ?? '');
      if (bad.length > 0) setters.push(named(bad.length, bad));
      if (setters.length === 0) return undefined;
      const data: string[] = [];
      if (types.size > 0) {
        data.push(`${pluralize('type', 'types', types.size)} ${joinQuote(sorted(types))}`);
        if (user) data.push('user may not be set');
        if (role) data.push('role may not be set');
      }
      return { reason: 'seLinuxOptions', detail: `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
    },
  },
  {
    id: 'procMount',
    level: 'baseline',
    run(_m, s) {
      const bad: string[] = [];
      const types = new Set<string>();
      for (const c of containers(s)) {
        const pm = sc(c)?.['procMount'];
        if (pm !== undefined && pm !== null && pm !== 'Default') {
          bad.push(c.name ?? '');
          types.add(String(pm));
        }
      }
      return bad.length > 0 ? { reason: 'procMount', detail: `${named(bad.length, bad)} must not set securityContext.procMount to ${joinQuote(sorted(types))}` } : undefined;
    },
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    run(_m, s) {
      const setters: string[] = [];
      const values = new Set<string>();
      const pod = (podSC(s)?.['seccompProfile'] as Obj | undefined)?.['type'];
      if (pod !== undefined && !validSeccomp(pod)) {
        setters.push('pod');
        values.add(String(pod));
      }
      const bad: string[] = [];
      for (const c of containers(s)) {
        const p = sc(c)?.['seccompProfile'] as Obj | undefined;
        if (p !== undefined && p !== null && !validSeccomp(p['type'])) {
          bad.push(c.name ?? '');
          values.add(String(p['type'] ?? ''));
        }
      }
      if (bad.length > 0) setters.push(named(bad.length, bad));
      return setters.length > 0 ? { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(values))}` } : undefined;
    },
  },
  {
    id: 'sysctls',
    level: 'baseline',
    run(_m, s, v) {
      const allowed = new Set([...SYSCTLS_1_0, ...(atLeast(v, 1, 27) ? SYSCTLS_1_27 : []), ...(atLeast(v, 1, 29) ? SYSCTLS_1_29 : []), ...(atLeast(v, 1, 32) ? SYSCTLS_1_32 : [])]);
      const bad = ((podSC(s)?.['sysctls'] as Obj[] | undefined) ?? []).map((x) => String(x['name'] ?? '')).filter((n) => !allowed.has(n));
      return bad.length > 0 ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
    },
  },
  {
    id: 'windowsHostProcess',
    level: 'baseline',
    run(_m, s) {
      const hp = (o: Obj | undefined): boolean => (o?.['windowsOptions'] as Obj | undefined)?.['hostProcess'] === true;
      const setters: string[] = [];
      if (hp(podSC(s))) setters.push('pod');
      const bad = containers(s).filter((c) => hp(sc(c))).map((c) => c.name ?? '');
      if (bad.length > 0) setters.push(named(bad.length, bad));
      return setters.length > 0 ? { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` } : undefined;
    },
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    run(_m, s) {
      const bad: string[] = [];
      const types = new Set<string>();
      for (const v of s.volumes ?? []) {
        const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== null && v[k] !== undefined);
        if (sources.some((k) => ALLOWED_VOLUME_SOURCES.includes(k))) continue;
        bad.push(String(v['name'] ?? ''));
        for (const k of sources) types.add(k);
      }
      if (bad.length === 0) return undefined;
      return {
        reason: 'restricted volume types',
        detail: `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', types.size)} ${joinQuote(sorted(types))}`,
      };
    },
  },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    since: { major: 1, minor: 8 },
    run(_m, s) {
      const bad = containers(s).filter((c) => sc(c)?.['allowPrivilegeEscalation'] !== false).map((c) => c.name ?? '');
      return bad.length > 0 ? { reason: 'allowPrivilegeEscalation != false', detail: `${named(bad.length, bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
    },
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    since: { major: 1, minor: 22 },
    run(_m, s) {
      const missingDrop: string[] = [];
      const adding: string[] = [];
      const caps = new Set<string>();
      for (const c of containers(s)) {
        const capsObj = sc(c)?.['capabilities'] as Obj | undefined;
        if (capsObj === undefined || capsObj === null) {
          missingDrop.push(c.name ?? '');
          continue;
        }
        if (!((capsObj['drop'] as string[] | undefined) ?? []).includes('ALL')) missingDrop.push(c.name ?? '');
        let forbidden = false;
        for (const cap of (capsObj['add'] as string[] | undefined) ?? []) {
          if (cap !== 'NET_BIND_SERVICE') {
            forbidden = true;
            caps.add(cap);
          }
        }
        if (forbidden) adding.push(c.name ?? '');
      }
      const details: string[] = [];
      if (missingDrop.length > 0) details.push(`${named(missingDrop.length, missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
      if (adding.length > 0) details.push(`${named(adding.length, adding)} must not include ${joinQuote(sorted(caps))} in securityContext.capabilities.add`);
      return details.length > 0 ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    run(_m, s) {
      const setters: string[] = [];
      let podNonRoot = false;
      const p = podSC(s)?.['runAsNonRoot'];
      if (p === false) setters.push('pod');
      else if (p === true) podNonRoot = true;
      const explicit: string[] = [];
      const implicit: string[] = [];
      for (const c of containers(s)) {
        const v = sc(c)?.['runAsNonRoot'];
        if (v === true || v === false) {
          if (v === false) explicit.push(c.name ?? '');
        } else if (!podNonRoot) implicit.push(c.name ?? '');
      }
      if (explicit.length > 0) setters.push(named(explicit.length, explicit));
      if (setters.length > 0) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
      if (implicit.length > 0) return { reason: 'runAsNonRoot != true', detail: `pod or ${named(implicit.length, implicit)} must set securityContext.runAsNonRoot=true` };
      return undefined;
    },
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    since: { major: 1, minor: 23 },
    run(_m, s) {
      const setters: string[] = [];
      if (podSC(s)?.['runAsUser'] === 0) setters.push('pod');
      const bad = containers(s).filter((c) => sc(c)?.['runAsUser'] === 0).map((c) => c.name ?? '');
      if (bad.length > 0) setters.push(named(bad.length, bad));
      return setters.length > 0 ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
    },
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    since: { major: 1, minor: 19 },
    run(_m, s) {
      const setters: string[] = [];
      const values = new Set<string>();
      let podSet = false;
      const pod = podSC(s)?.['seccompProfile'] as Obj | undefined;
      if (pod !== undefined && pod !== null) {
        if (!validSeccomp(pod['type'])) {
          setters.push('pod');
          values.add(String(pod['type'] ?? ''));
        } else podSet = true;
      }
      const explicit: string[] = [];
      const implicit: string[] = [];
      for (const c of containers(s)) {
        const p = sc(c)?.['seccompProfile'] as Obj | undefined;
        if (p !== undefined && p !== null) {
          if (!validSeccomp(p['type'])) {
            explicit.push(c.name ?? '');
            values.add(String(p['type'] ?? ''));
          }
        } else if (!podSet) implicit.push(c.name ?? '');
      }
      if (explicit.length > 0) setters.push(named(explicit.length, explicit));
      if (setters.length > 0) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sorted(values))}` };
      if (implicit.length > 0) return { reason: 'seccompProfile', detail: `pod or ${named(implicit.length, implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
      return undefined;
    },
  },
];

/** The baseline checks a restricted one replaces at the restricted level (upstream's Overrides). */
const OVERRIDDEN_BY_RESTRICTED = new Set(['capabilities_baseline', 'hostPathVolumes', 'seccompProfile_baseline']);
// Upstream's order: baseline checks by ID, then restricted ones by ID (Go string order).
const goLess = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
checks.sort((a, b) => (a.level !== b.level ? (a.level === 'baseline' ? -1 : 1) : goLess(a.id, b.id)));

/** Evaluates a pod's metadata and spec at a level and version; [] when allowed. */
export function evaluatePod(level: Level, version: Version, meta: PodMetaLike, spec: PodSpecLike): CheckResult[] {
  if (level === 'privileged') return [];
  const out: CheckResult[] = [];
  for (const c of checks) {
    if (c.level === 'restricted' && level !== 'restricted') continue;
    if (level === 'restricted' && OVERRIDDEN_BY_RESTRICTED.has(c.id)) continue;
    if (c.since !== undefined && !atLeast(version, c.since.major, c.since.minor)) continue;
    const r = c.run(meta, spec, version);
    if (r !== undefined) out.push(r);
  }
  return out;
}

/** "reason (detail), reason (detail)": how a forbidden pod's checks are listed. */
export function describe(results: CheckResult[]): string {
  return results.map((r) => (r.detail !== '' ? `${r.reason} (${r.detail})` : r.reason)).join(', ');
}
