// certificates.k8s.io/v1 CertificateSigningRequest validation (upstream
// pkg/apis/certificates/validation): the request (a PEM certificate request
// with a valid signature), usages, signer name, expiration, the conditions
// (status values, Approved xor Denied, no duplicates, none removed) and the
// issued certificate; which conditions and whether the certificate may change
// depends on the subresource written (main, status, approval).
// Options that relax a rule for objects stored before it existed (upstream's
// getValidationOptions ratcheting) follow the old object, as upstream's do.

import crypto from 'node:crypto';
import type { KubeObject } from '../../../machinery/meta.js';
import { type FieldError, fieldErrors, GoValue } from '../../../machinery/field-errors.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../../machinery/validation.js';
import { sameJSON } from '../../core/v1/validation.js';
import type { Loose } from '../../loose.js';
import { certificateRequestError } from './csr-parse.js';

const USAGES = [
  'any', 'cert sign', 'client auth', 'code signing', 'content commitment', 'crl sign', 'data encipherment',
  'decipher only', 'digital signature', 'email protection', 'encipher only', 'ipsec end system', 'ipsec tunnel',
  'ipsec user', 'key agreement', 'key encipherment', 'microsoft sgc', 'netscape sgc', 'ocsp signing', 's/mime',
  'server auth', 'signing', 'timestamping',
];
const TRUE_ONLY = ['Approved', 'Denied', 'Failed'];
const ALL_STATUS = ['False', 'True', 'Unknown'];
const LEGACY_UNKNOWN_SIGNER = 'kubernetes.io/legacy-unknown';

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

/** Go's %#v of a []byte, as field.Invalid prints the request. */
function goBytes(bytes: Buffer): GoValue {
  return new GoValue(`[]byte{${[...bytes].map((b) => `0x${b.toString(16)}`).join(', ')}}`);
}

function conditions(obj: Loose | undefined): Loose[] {
  return obj?.status?.conditions ?? [];
}

function optionsFor(obj: Loose, old: Loose | undefined): Options {
  const oldConds = conditions(old);
  const types = oldConds.map((c) => c.type ?? '');
  const oldUsages: string[] = old?.spec?.usages ?? [];
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: old !== undefined && types.includes('Approved') && types.includes('Denied'),
    allowLegacySignerName: old !== undefined && old.spec?.signerName === LEGACY_UNKNOWN_SIGNER,
    allowDuplicateConditionTypes: old !== undefined && new Set(types).size !== types.length,
    allowEmptyConditionType: old !== undefined && types.includes(''),
    allowArbitraryCertificate: old !== undefined && (old.status?.certificate ?? '') !== '' && old.status?.certificate === obj.status?.certificate && certificateError(old.status.certificate) !== undefined,
    allowUnknownUsages: old !== undefined && oldUsages.some((u) => !USAGES.includes(u)),
    allowDuplicateUsages: old !== undefined && new Set(oldUsages).size !== oldUsages.length,
  };
}

/** validateCertificate: one or more CERTIFICATE PEM blocks, each parsing as certificates. */
function certificateError(b64: string): string | undefined {
  const data = Buffer.from(b64, 'base64').toString('latin1');
  if (data.length === 0) return undefined;
  const re = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;
  let blocks = 0;
  for (let m = re.exec(data); m !== null; m = re.exec(data)) {
    if (m[1] !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${m[1]}"`;
    const lines = m[2]!.split(/\r?\n/);
    if (lines.some((l) => l.includes(':'))) return 'no PEM block headers are permitted';
    blocks++;
    try {
      new crypto.X509Certificate(Buffer.from(lines.join(''), 'base64'));
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

/** ValidateSignerName. */
function signerNameErrors(name: string, path: string): FieldError[] {
  if (name === '') return [fieldErrors.required(path)];
  const segments = name.split('/');
  if (segments.length !== 2) return [fieldErrors.invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments as [string, string];
  const errs: FieldError[] = [];
  if (domain.length > 253) errs.push(fieldErrors.tooLong(path, 253));
  const labels = domain.split('.');
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length > 0) {
      for (const m of msgs) errs.push(fieldErrors.invalid(path, domain, `validating label "${label}": ${m}`));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldErrors.invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const label of rest.split('.')) {
    const msgs = isDNS1123Subdomain(label);
    if (msgs.length > 0) {
      for (const m of msgs) errs.push(fieldErrors.invalid(path, rest, `validating label "${label}": ${m}`));
      break;
    }
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (name.length > max) errs.push(fieldErrors.tooLong(path, max));
  return errs;
}

function validate(obj: Loose, opts: Options): FieldError[] {
  const spec: Loose = obj.spec ?? {};
  const errs: FieldError[] = [];
  const request = Buffer.from(spec.request ?? '', 'base64');
  const requestError = certificateRequestError(request);
  if (requestError !== undefined) errs.push(fieldErrors.invalid('spec.request', request.length === 0 ? new GoValue('[]byte(nil)') : goBytes(request), requestError));
  const usages: string[] = spec.usages ?? [];
  if (usages.length === 0) errs.push(fieldErrors.required('spec.usages'));
  if (!opts.allowUnknownUsages) usages.forEach((u, i) => !USAGES.includes(u) && errs.push(fieldErrors.notSupported(`spec.usages[${i}]`, u, USAGES)));
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(u)) errs.push(fieldErrors.duplicate(`spec.usages[${i}]`, u));
      seen.add(u);
    });
  }
  const signer: string = spec.signerName ?? '';
  if (!opts.allowLegacySignerName && signer === LEGACY_UNKNOWN_SIGNER) {
    errs.push(fieldErrors.invalid('spec.signerName', signer, 'the legacy signerName is not allowed via this API version'));
  } else errs.push(...signerNameErrors(signer, 'spec.signerName'));
  if (spec.expirationSeconds != null && spec.expirationSeconds < 600) {
    errs.push(fieldErrors.invalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  const seenTypes = new Set<string>();
  let approved = false;
  let denied = false;
  conditions(obj).forEach((c, i) => {
    const p = `status.conditions[${i}]`;
    const type: string = c.type ?? '';
    const status: string = c.status ?? '';
    if (!opts.allowEmptyConditionType && type === '') errs.push(fieldErrors.required(`${p}.type`));
    const allowed = TRUE_ONLY.includes(type) ? ['True'] : ALL_STATUS;
    if (status === '') errs.push(fieldErrors.required(`${p}.status`));
    else if (!allowed.includes(status)) errs.push(fieldErrors.notSupported(`${p}.status`, status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(fieldErrors.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(fieldErrors.invalid(`${p}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seenTypes.has(type)) errs.push(fieldErrors.duplicate(`${p}.type`, type));
      seenTypes.add(type);
    }
  });
  if (!opts.allowArbitraryCertificate) {
    const certError = certificateError(obj.status?.certificate ?? '');
    if (certError !== undefined) errs.push(fieldErrors.invalid('status.certificate', '<certificate data>', certError));
  }
  return errs;
}

export function validateCertificateSigningRequest(obj: KubeObject): FieldError[] {
  return validate(obj as Loose, optionsFor(obj as Loose, undefined));
}

function validateUpdate(obj: Loose, old: Loose, opts: Options): FieldError[] {
  const errs = validate(obj, opts);
  const ofType = (o: Loose, t: string): Loose[] => conditions(o).filter((c) => c.type === t);
  for (const t of ['Approved', 'Denied', 'Failed']) {
    if (ofType(obj, t).length < ofType(old, t).length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of ['Approved', 'Denied']) {
      const before = ofType(old, t);
      const after = ofType(obj, t);
      if (after.length > before.length) errs.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (after.length === before.length && !sameJSON(before, after)) {
        errs.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type "${t}"`));
      }
    }
  }
  const newCert: string = obj.status?.certificate ?? '';
  const oldCert: string = old.status?.certificate ?? '';
  if (newCert !== oldCert) {
    if (!opts.allowSettingCertificate) errs.push(fieldErrors.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert !== '') errs.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}

export function validateCertificateSigningRequestUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return validateUpdate(obj as Loose, old as Loose, optionsFor(obj as Loose, old as Loose));
}

export function validateCertificateSigningRequestStatusUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return validateUpdate(obj as Loose, old as Loose, { ...optionsFor(obj as Loose, old as Loose), allowSettingCertificate: true });
}

export function validateCertificateSigningRequestApprovalUpdate(obj: KubeObject, old: KubeObject): FieldError[] {
  return validateUpdate(obj as Loose, old as Loose, { ...optionsFor(obj as Loose, old as Loose), allowSettingApprovalConditions: true });
}
