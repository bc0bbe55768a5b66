// The admission chain, written once: which plugins run, in which order, and
// where each reads what it needs. Order as kube-apiserver's recommended one
// (NamespaceLifecycle, LimitRanger, …, ResourceQuota last, so quota charges
// only what every other plugin let through and sees the defaults LimitRanger
// set). The registry runs every plugin's admit() (mutating) in this order,
// then validation, then every validate():
//
//   plugin              admit (mutating)            validate
//   NamespaceLifecycle  namespace exists / active   —
//   LimitRanger         container defaults (pods)   min / max / ratio (pods, PVCs)
//   ServiceAccount      default SA, token volume    SA exists, mountable secrets (pods)
//   TaintNodesByCondition  not-ready taint on new nodes  —
//   PodSecurity         —                           pod-security.kubernetes.io namespace labels (pods; templates warn)
//   Priority            pods' priority from their class   one default PriorityClass
//   DefaultTolerationSeconds  not-ready/unreachable tolerations (pods)  —
//   DefaultStorageClass  the default StorageClass on new claims without one  —
//   StorageObjectInUseProtection  pvc-/pv-protection finalizer on new claims and volumes  —
//   PersistentVolumeClaimResize  —                 grow a bound claim only if its class allows expansion
//   RuntimeClass        pods' overhead and scheduling from their class   overhead matches the class
//   CertificateApproval —                           `approve` on the signer for /approval
//   CertificateSigning  —                           `sign` on the signer for /status changes
//   CertificateSubjectRestriction  —                no system:masters for kube-apiserver-client
//   DefaultIngressClass the default IngressClass on new ingresses without one  —
//   MutatingAdmissionWebhook   call mutating webhooks   —
//   ValidatingAdmissionPolicy —                     CEL policies and their bindings (policy/)
//   ValidatingAdmissionWebhook —                        call validating webhooks (in parallel)
//   Hierarchy (tenancy) —                           anchors, hierarchy configuration, propagated copies
//   ResourceQuota       —                           charge quotas and hierarchical quotas (CAS on status.used)
//   extra (tests)       as given                    as given
//
// Plugins read through the registry's stores (in-process): watch caches for
// the lister-like reads, the store itself for live reads and writes.

import type { Namespace, LimitRange, ResourceQuota, ServiceAccount } from '../api/core/v1/types.js';
import { StatusError } from '../machinery/errors.js';
import type { RESTStore } from '../registry/rest.js';
import type { AdmissionPlugin } from './interface.js';
import { LimitRanger } from './limit-ranger.js';
import { DefaultTolerationSeconds } from './default-toleration-seconds.js';
import { DEFAULT_STORAGE_CLASS_PLUGIN, DefaultStorageClass } from './default-storage-class.js';
import { DEFAULT_INGRESS_CLASS_PLUGIN, DefaultIngressClass } from './default-ingress-class.js';
import { PVC_RESIZE_PLUGIN, PersistentVolumeClaimResize } from './pvc-resize.js';
import { RUNTIME_CLASS_PLUGIN, RuntimeClassAdmission } from './runtime-class.js';
import { CertificateApproval, CertificateSigning, CertificateSubjectRestriction } from './certificates.js';
import { PRIORITY_PLUGIN, PriorityAdmission } from './priority.js';
import { TaintNodesByCondition } from './taint-nodes-by-condition.js';
import { NamespaceLifecycle } from './namespace-lifecycle.js';
import { type HierarchicalQuotaAccess, ResourceQuotaAdmission } from './resource-quota.js';
import { STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN, StorageObjectInUseProtection } from './storage-object-in-use-protection.js';
import { ServiceAccountAdmission } from './service-account.js';
import type { ResourceQuotaConfiguration } from './resource-quota-config.js';
import type { ServiceResolver } from './webhook/client.js';
import { MutatingWebhookAdmission, ValidatingWebhookAdmission } from './webhook/dispatcher.js';
import { endpointsServiceResolver } from './webhook/service-resolver.js';
import { ValidatingAdmissionPolicyPlugin } from './policy/validating.js';
import type { AuthorizeFunction } from '../machinery/cel/library-authz.js';
import { PodSecurityAdmission } from './pod-security/plugin.js';
import { deepCopy } from '../machinery/deep-copy.js';

/** What the chain needs of the registry: its stores, looked up when a request runs. */
export interface StoreLookup {
  storeFor(group: string, resource: string): RESTStore | undefined;
  /** Every served store (policy params of any kind, custom resources included). */
  readonly stores?: readonly RESTStore[];
}

export interface AdmissionChainOptions {
  /** Turn plugins off by name (--disable-admission-plugins; see admission-plugins.ts for the names). */
  disable?: readonly string[];
  /** Where webhooks' service references go (default: the Service's Endpoints). */
  webhookServiceResolver?: ServiceResolver;
  resourceQuota?: ResourceQuotaConfiguration;
  /** Hierarchical quotas (src/tenancy/hierarchical-quota.ts), charged by ResourceQuota with the namespace's own. */
  hierarchicalQuota?: HierarchicalQuotaAccess;
  /**
   * The server's authorizer, for ValidatingAdmissionPolicy's CEL `authorizer` and the certificate
   * plugins' `signers` checks (absent: everything allowed).
   */
  authorize?: () => AuthorizeFunction | undefined;
  /**
   * The hierarchy's rules (src/tenancy/admission.ts): after the webhooks, before ResourceQuota,
   * so that a request the hierarchy refuses is never charged (upstream runs quota last).
   */
  tenancy?: readonly AdmissionPlugin[];
  /** Appended after the built-in plugins. */
  extra?: readonly AdmissionPlugin[];
}

function store(lookup: StoreLookup, resource: string): RESTStore {
  const s = lookup.storeFor('', resource);
  if (s === undefined) throw new Error(`admission: no store for ${resource}`);
  return s;
}

export function buildAdmissionChain(lookup: () => StoreLookup, options: AdmissionChainOptions = {}): AdmissionPlugin[] {
  const disabled = new Set(options.disable ?? []);
  const chain: AdmissionPlugin[] = [];
  if (!disabled.has('NamespaceLifecycle')) chain.push(
    new NamespaceLifecycle({
      getNamespace: async (name) => (await store(lookup(), 'namespaces').get('', name, {})) as Namespace,
      getCachedNamespace: (name) => store(lookup(), 'namespaces').getCached('', name) as Readonly<Namespace> | undefined,
    }),
  );
  if (!disabled.has('LimitRanger')) {
    chain.push(
      new LimitRanger({
        // resourceVersion "0": any state the watch cache holds, as a lister reads.
        listCached: async (ns) => (await store(lookup(), 'limitranges').list(ns, { resourceVersion: '0' })).items as LimitRange[],
        listLive: async (ns) => (await store(lookup(), 'limitranges').list(ns, {})).items as LimitRange[],
      }),
    );
  }
  // Upstream's order (pkg/kubeapiserver/options/plugins.go): … LimitRanger, ServiceAccount, TaintNodesByCondition,
  // PodSecurity, Priority, DefaultTolerationSeconds, DefaultStorageClass, StorageObjectInUseProtection,
  // PersistentVolumeClaimResize, RuntimeClass, CertificateApproval, CertificateSigning,
  // CertificateSubjectRestriction, DefaultIngressClass, …, webhooks and policies, ResourceQuota.
  if (!disabled.has('ServiceAccount')) {
    chain.push(
      new ServiceAccountAdmission({
        getCached: (ns, name) => store(lookup(), 'serviceaccounts').getCached(ns, name) as Readonly<ServiceAccount> | undefined,
        getLive: async (ns, name) => {
          try {
            return (await store(lookup(), 'serviceaccounts').get(ns, name, {})) as ServiceAccount;
          } catch (err) {
            if (err instanceof StatusError && err.code === 404) return undefined;
            throw err;
          }
        },
      }),
    );
  }
  if (!disabled.has('TaintNodesByCondition')) chain.push(new TaintNodesByCondition());
  if (!disabled.has('PodSecurity')) {
    chain.push(new PodSecurityAdmission({ namespaces: () => lookup().storeFor('', 'namespaces'), pods: () => lookup().storeFor('', 'pods') }));
  }
  if (!disabled.has(PRIORITY_PLUGIN)) chain.push(new PriorityAdmission(() => lookup().storeFor('scheduling.k8s.io', 'priorityclasses')));
  if (!disabled.has('DefaultTolerationSeconds')) chain.push(new DefaultTolerationSeconds());
  if (!disabled.has(DEFAULT_STORAGE_CLASS_PLUGIN)) chain.push(new DefaultStorageClass(() => lookup().storeFor('storage.k8s.io', 'storageclasses')));
  if (!disabled.has(STORAGE_OBJECT_IN_USE_PROTECTION_PLUGIN)) chain.push(new StorageObjectInUseProtection());
  if (!disabled.has(PVC_RESIZE_PLUGIN)) chain.push(new PersistentVolumeClaimResize(() => lookup().storeFor('storage.k8s.io', 'storageclasses')));
  if (!disabled.has(RUNTIME_CLASS_PLUGIN)) chain.push(new RuntimeClassAdmission(() => lookup().storeFor('node.k8s.io', 'runtimeclasses')));
  const authorize = options.authorize ?? (() => undefined);
  if (!disabled.has('CertificateApproval')) chain.push(new CertificateApproval(authorize));
  if (!disabled.has('CertificateSigning')) chain.push(new CertificateSigning(authorize));
  if (!disabled.has('CertificateSubjectRestriction')) chain.push(new CertificateSubjectRestriction());
  if (!disabled.has(DEFAULT_INGRESS_CLASS_PLUGIN)) chain.push(new DefaultIngressClass(() => lookup().storeFor('networking.k8s.io', 'ingressclasses')));
  const namespaceLabels = async (name: string): Promise<Record<string, string> | undefined> => {
    const namespaces = store(lookup(), 'namespaces');
    const cached = namespaces.getCached('', name);
    if (cached !== undefined) return cached.metadata.labels;
    try {
      return (await namespaces.get('', name, {})).metadata.labels;
    } catch {
      return undefined;
    }
  };
  const resolveService = options.webhookServiceResolver ?? endpointsServiceResolver((resource) => lookup().storeFor('', resource));
  const registration = (resource: string) => () => lookup().storeFor('admissionregistration.k8s.io', resource);
  if (!disabled.has('MutatingAdmissionWebhook')) {
    chain.push(new MutatingWebhookAdmission({ store: registration('mutatingwebhookconfigurations'), namespaceLabels, resolveService }));
  }
  if (!disabled.has('ValidatingAdmissionPolicy')) chain.push(new ValidatingAdmissionPolicyPlugin(lookup, options.authorize));
  if (!disabled.has('ValidatingAdmissionWebhook')) {
    chain.push(new ValidatingWebhookAdmission({ store: registration('validatingwebhookconfigurations'), namespaceLabels, resolveService }));
  }
  chain.push(...(options.tenancy ?? []));
  if (!disabled.has('ResourceQuota')) {
    chain.push(
      new ResourceQuotaAdmission({
        access: {
          listCached: async (ns) => (await store(lookup(), 'resourcequotas').list(ns, { resourceVersion: '0' })).items as ResourceQuota[],
          peekCached: (ns) => store(lookup(), 'resourcequotas').listCached?.(ns) as readonly ResourceQuota[] | undefined,
          listLive: async (ns) => (await store(lookup(), 'resourcequotas').list(ns, {})).items as ResourceQuota[],
          updateStatus: async (q) => {
            const body = { apiVersion: 'v1', kind: 'ResourceQuota', ...deepCopy(q) } as ResourceQuota;
            const res = await store(lookup(), 'resourcequotas').update(q.metadata.namespace ?? '', q.metadata.name ?? '', body, {
              subresource: 'status',
            });
            return res.object as ResourceQuota;
          },
        },
        limitedResources: options.resourceQuota?.limitedResources ?? [],
        ...(options.hierarchicalQuota !== undefined ? { hierarchical: options.hierarchicalQuota } : {}),
      }),
    );
  }
  chain.push(...(options.extra ?? []));
  return chain;
}
