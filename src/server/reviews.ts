// The create-only review resources, answered from the request and not stored
// (upstream pkg/registry/authorization/* and pkg/registry/authentication/*):
//   authorization.k8s.io/v1  SelfSubjectAccessReview, SubjectAccessReview,
//                            LocalSubjectAccessReview, SelfSubjectRulesReview
//   authentication.k8s.io/v1 SelfSubjectReview, TokenReview
// Each is a RESTStore whose create reads the requesting user from the write
// options, so they go through the ordinary create handler (decode, field
// validation, negotiation) like any other kind.

import { badRequest, invalid, methodNotSupported } from '../machinery/errors.js';
import { fieldErrors, type FieldError } from '../machinery/field-errors.js';
import type { KubeList, KubeObject } from '../machinery/meta.js';
import type { UserInfo } from '../machinery/user.js';
import type { Authenticator } from '../auth/authn/authenticator.js';
import type { Attributes } from '../auth/authz/attributes.js';
import type { Authorizer, RbacAuthorizer } from '../auth/authz/rbac.js';
import type { RESTStore, ResourceType } from '../registry/rest.js';
import { deepCopy } from '../machinery/deep-copy.js';

function reviewType(group: string, resource: string, kind: string, namespaced: boolean): ResourceType {
  return {
    group,
    version: 'v1',
    resource,
    kind,
    listKind: `${kind}List`,
    singularName: kind.toLowerCase(),
    namespaced,
    verbs: ['create'],
    shortNames: [],
    categories: [],
    subresources: [],
  };
}

type Create = (namespace: string, obj: KubeObject, user: UserInfo) => Promise<KubeObject> | KubeObject;

function createOnly(type: ResourceType, create: Create): RESTStore {
  const unsupported = (verb: string) => (): never => {
    throw methodNotSupported({ group: type.group, resource: type.resource }, verb);
  };
  return {
    type,
    noTable: true,
    get: unsupported('get'),
    getCached: () => undefined,
    list: unsupported('list') as () => Promise<KubeList>,
    update: unsupported('update'),
    patch: unsupported('patch'),
    delete: unsupported('delete'),
    deleteCollection: unsupported('deletecollection'),
    watch: unsupported('watch'),
    async create(namespace, obj, options) {
      const user = options.user ?? { name: 'system:anonymous', groups: ['system:unauthenticated'] };
      const out = await create(namespace, obj, user);
      out.apiVersion = `${type.group}/v1`;
      out.kind = type.kind;
      out.metadata = { ...(out.metadata ?? {}), creationTimestamp: null } as unknown as KubeObject['metadata'];
      return out;
    },
  };
}

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}
interface NonResourceAttributes {
  path?: string;
  verb?: string;
}
interface AccessReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

function validateAttributes(spec: AccessReviewSpec): FieldError[] {
  if (spec.resourceAttributes != null && spec.nonResourceAttributes != null) {
    return [fieldErrors.invalid('spec.nonResourceAttributes', spec.nonResourceAttributes, 'cannot be specified in combination with resourceAttributes')];
  }
  if (spec.resourceAttributes == null && spec.nonResourceAttributes == null) {
    return [fieldErrors.required('spec.resourceAttributes', 'one of resourceAttributes or nonResourceAttributes must be specified')];
  }
  return [];
}

function attributesOf(spec: AccessReviewSpec, user: UserInfo): Attributes {
  if (spec.resourceAttributes != null) {
    const r = spec.resourceAttributes;
    return {
      user,
      verb: r.verb ?? '',
      isResourceRequest: true,
      path: '',
      namespace: r.namespace ?? '',
      apiGroup: r.group ?? '',
      apiVersion: r.version ?? '',
      resource: r.resource ?? '',
      subresource: r.subresource ?? '',
      name: r.name ?? '',
    };
  }
  const n = spec.nonResourceAttributes ?? {};
  return { user, verb: n.verb ?? '', isResourceRequest: false, path: n.path ?? '', namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

function accessStatus(authorizer: Authorizer, a: Attributes): Record<string, unknown> {
  const decision = authorizer.authorize(a);
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.reason !== '') status['reason'] = decision.reason;
  return status;
}

function userInfoJson(user: UserInfo): Record<string, unknown> {
  const out: Record<string, unknown> = { username: user.name };
  if (user.uid !== undefined && user.uid !== '') out['uid'] = user.uid;
  if (user.groups.length > 0) out['groups'] = [...user.groups];
  if (user.extra !== undefined && Object.keys(user.extra).length > 0) out['extra'] = deepCopy(user.extra);
  return out;
}

export function reviewStores(options: { authorizer: Authorizer; rbac?: RbacAuthorizer; authenticator: Authenticator }): RESTStore[] {
  const { authorizer, rbac, authenticator } = options;
  const AUTHZ = 'authorization.k8s.io';
  const AUTHN = 'authentication.k8s.io';
  const spec = (obj: KubeObject): AccessReviewSpec => (obj['spec'] ?? {}) as AccessReviewSpec;

  const ssar = createOnly(reviewType(AUTHZ, 'selfsubjectaccessreviews', 'SelfSubjectAccessReview', false), (_ns, obj, user) => {
    const s = spec(obj);
    const errs = validateAttributes(s);
    if (errs.length > 0) throw invalid(AUTHZ, 'SelfSubjectAccessReview', obj.metadata?.name ?? '', errs);
    obj['status'] = accessStatus(authorizer, attributesOf(s, user));
    return obj;
  });

  const subjectUser = (s: AccessReviewSpec): UserInfo => {
    const u: UserInfo = { name: s.user ?? '', groups: [...(s.groups ?? [])] };
    if (s.uid !== undefined) u.uid = s.uid;
    if (s.extra !== undefined) u.extra = s.extra;
    return u;
  };
  const validateSubject = (s: AccessReviewSpec): FieldError[] => {
    const errs = validateAttributes(s);
    if (!s.user && (s.groups ?? []).length === 0) errs.push(fieldErrors.invalid('spec.user', s.user ?? '', 'at least one of user or group must be specified'));
    return errs;
  };
  const sar = createOnly(reviewType(AUTHZ, 'subjectaccessreviews', 'SubjectAccessReview', false), (_ns, obj) => {
    const s = spec(obj);
    const errs = validateSubject(s);
    if (errs.length > 0) throw invalid(AUTHZ, 'SubjectAccessReview', obj.metadata?.name ?? '', errs);
    obj['status'] = accessStatus(authorizer, attributesOf(s, subjectUser(s)));
    return obj;
  });
  const lsar = createOnly(reviewType(AUTHZ, 'localsubjectaccessreviews', 'LocalSubjectAccessReview', true), (ns, obj) => {
    const s = spec(obj);
    if (ns === '') throw badRequest('namespace is required on this type');
    if (s.resourceAttributes != null && (s.resourceAttributes.namespace ?? '') !== ns) {
      throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${ns}`);
    }
    const errs = validateSubject(s);
    if (s.nonResourceAttributes != null) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', s.nonResourceAttributes, 'disallowed on this kind of request'));
    if (errs.length > 0) throw invalid(AUTHZ, 'LocalSubjectAccessReview', obj.metadata?.name ?? '', errs);
    obj['status'] = accessStatus(authorizer, attributesOf(s, subjectUser(s)));
    return obj;
  });
  const ssrr = createOnly(reviewType(AUTHZ, 'selfsubjectrulesreviews', 'SelfSubjectRulesReview', false), (_ns, obj, user) => {
    const namespace = ((obj['spec'] ?? {}) as { namespace?: string }).namespace ?? '';
    const resourceRules: Record<string, unknown>[] = [];
    const nonResourceRules: Record<string, unknown>[] = [];
    let errors: string[] = [];
    if (rbac !== undefined) {
      const found = rbac.rulesFor(user, namespace);
      errors = found.errors;
      for (const r of found.rules) {
        if ((r.nonResourceURLs ?? []).length > 0) nonResourceRules.push({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs!] });
        else {
          const rule: Record<string, unknown> = { verbs: [...r.verbs] };
          if (r.apiGroups !== undefined) rule['apiGroups'] = [...r.apiGroups];
          if (r.resources !== undefined) rule['resources'] = [...r.resources];
          if (r.resourceNames !== undefined) rule['resourceNames'] = [...r.resourceNames];
          resourceRules.push(rule);
        }
      }
    } else {
      resourceRules.push({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] });
      nonResourceRules.push({ verbs: ['*'], nonResourceURLs: ['*'] });
    }
    const status: Record<string, unknown> = { resourceRules, nonResourceRules, incomplete: errors.length > 0 };
    if (errors.length > 0) status['evaluationError'] = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
    obj['status'] = status;
    return obj;
  });

  const ssr = createOnly(reviewType(AUTHN, 'selfsubjectreviews', 'SelfSubjectReview', false), (_ns, obj, user) => {
    obj['status'] = { userInfo: userInfoJson(user) };
    return obj;
  });
  const tokenReview = createOnly(reviewType(AUTHN, 'tokenreviews', 'TokenReview', false), async (_ns, obj) => {
    const s = (obj['spec'] ?? {}) as { token?: string; audiences?: string[] };
    if (!s.token) throw invalid(AUTHN, 'TokenReview', obj.metadata?.name ?? '', [fieldErrors.required('spec.token')]);
    const user = await authenticator.authenticateToken(s.token, s.audiences);
    if (user === undefined) obj['status'] = { user: {}, error: '[invalid bearer token, token lookup failed]' };
    else {
      const groups = user.groups.includes('system:authenticated') ? user.groups : [...user.groups, 'system:authenticated'];
      const status: Record<string, unknown> = { authenticated: true, user: userInfoJson({ ...user, groups }) };
      if (s.audiences !== undefined && s.audiences.length > 0) status['audiences'] = [...s.audiences];
      obj['status'] = status;
    }
    return obj;
  });
  return [ssar, sar, lsar, ssrr, ssr, tokenReview];
}
