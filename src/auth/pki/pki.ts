// The cluster's key material, as kubeadm lays it out: a CA, a serving
// certificate signed by it, an admin client certificate (O=system:masters) and
// the service-account signing key pair. Made once, on first start, in
// DATA_DIR/pki with owner-only permissions; later starts read the files back.
// A serving certificate whose SANs no longer cover what is asked for (a new
// --tls-sans, another host name) is re-issued from the same CA.
//
// Keys are ECDSA P-256 made by node:crypto (cheap TLS handshakes; Go's TLS and
// client-go accept them); certificates are built by @peculiar/x509.

import 'reflect-metadata';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as x509 from '@peculiar/x509';

const EC = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const subtle = crypto.webcrypto.subtle as unknown as SubtleCrypto;
x509.cryptoProvider.set(crypto.webcrypto as unknown as Crypto);

export interface ClusterPki {
  dir: string;
  caCertPem: string;
  caKeyPem: string;
  servingCertPem: string;
  servingKeyPem: string;
  adminCertPem: string;
  adminKeyPem: string;
  /** Service-account token signing key (PKCS#8 PEM) and its public half (SPKI PEM). */
  serviceAccountKeyPem: string;
  serviceAccountPublicKeyPem: string;
}

/** What every server of one cluster shares: the CA and the service-account signing key pair. */
export interface ClusterIdentity {
  caCertPem: string;
  caKeyPem: string;
  serviceAccountKeyPem: string;
  serviceAccountPublicKeyPem: string;
}

export interface PkiOptions {
  /** The cluster's identity from the shared store: replaces DATA_DIR's CA and service-account keys. */
  identity?: ClusterIdentity;
  /** DNS names and IPs the serving certificate must cover besides the defaults. */
  extraSans?: string[];
  /** The first IP of the service range (the `kubernetes` service's). */
  serviceIp?: string;
  hostName?: string;
  clock?: () => Date;
}

/** The SANs upstream's serving certificate carries, plus the extra ones. */
export function servingSans(options: PkiOptions): string[] {
  const sans = ['127.0.0.1', '::1', 'localhost', options.hostName ?? osHostName(), 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  if (options.serviceIp !== undefined) sans.push(options.serviceIp);
  for (const s of options.extraSans ?? []) if (s !== '') sans.push(s);
  return [...new Set(sans.filter((s) => s !== ''))];
}

function osHostName(): string {
  return os.hostname().toLowerCase();
}

async function newKeyPair(): Promise<CryptoKeyPair> {
  return (await subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
}

async function privateKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

async function publicKeyPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await subtle.exportKey('spki', key), 'PUBLIC KEY');
}

async function importPrivate(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decodeFirst(pem);
  return subtle.importKey('pkcs8', der, EC, true, ['sign']);
}

function serial(): string {
  // Positive, 16 bytes.
  const bytes = crypto.randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

function years(from: Date, n: number): Date {
  const d = new Date(from);
  d.setUTCFullYear(d.getUTCFullYear() + n);
  return d;
}

interface Issuer {
  cert: x509.X509Certificate;
  key: CryptoKey;
}

async function issue(
  subject: string,
  keys: CryptoKeyPair,
  issuer: Issuer | undefined,
  extensions: x509.Extension[],
  now: Date,
  validYears: number,
): Promise<x509.X509Certificate> {
  const notBefore = new Date(now.getTime() - 5 * 60_000); // clock skew allowance
  return x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: issuer?.cert.subject ?? subject,
    notBefore,
    notAfter: years(now, validYears),
    signingAlgorithm: SIGNING,
    publicKey: keys.publicKey,
    signingKey: issuer?.key ?? keys.privateKey,
    extensions: [
      ...extensions,
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ...(issuer !== undefined ? [await x509.AuthorityKeyIdentifierExtension.create(issuer.cert)] : []),
    ],
  });
}

/** A certificate for a client identity: CN = user, one O per group. */
export async function issueClientCertificate(
  ca: { certPem: string; keyPem: string },
  user: string,
  groups: string[],
  now = new Date(),
): Promise<{ certPem: string; keyPem: string }> {
  const issuer = { cert: new x509.X509Certificate(ca.certPem), key: await importPrivate(ca.keyPem) };
  const keys = await newKeyPair();
  const subject = [...groups.map((g) => `O=${escapeRdn(g)}`), `CN=${escapeRdn(user)}`].join(', ');
  const cert = await issue(subject, keys, issuer, [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
  ], now, 1);
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** A new self-signed CA (10 years), as the cluster CA is made; the front-proxy CA is one too. */
export async function createCertificateAuthority(commonName: string, now = new Date()): Promise<{ certPem: string; keyPem: string }> {
  const keys = await newKeyPair();
  const cert = await issue(`CN=${escapeRdn(commonName)}`, keys, undefined, [
    new x509.BasicConstraintsExtension(true, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
  ], now, 10);
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** A serving certificate for the given DNS names and IPs, signed by `ca`. */
export async function issueServingCertificate(ca: { certPem: string; keyPem: string }, sans: string[], now = new Date()): Promise<{ certPem: string; keyPem: string }> {
  return issueServing({ cert: new x509.X509Certificate(ca.certPem), key: await importPrivate(ca.keyPem) }, sans, now);
}

function escapeRdn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1');
}

async function issueServing(issuer: Issuer, sans: string[], now: Date): Promise<{ certPem: string; keyPem: string }> {
  const keys = await newKeyPair();
  const names = sans.map((s) => ({ type: net.isIP(s) !== 0 ? 'ip' : 'dns', value: s }) as x509.JsonGeneralName);
  const cert = await issue('CN=kube-apiserver', keys, issuer, [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension(names),
  ], now, 1);
  return { certPem: cert.toString('pem'), keyPem: await privateKeyPem(keys.privateKey) };
}

/** The SANs a serving certificate covers (as plain strings; IPs normalised by node). */
export function certificateSans(certPem: string): Set<string> {
  const alt = new crypto.X509Certificate(certPem).subjectAltName ?? '';
  const out = new Set<string>();
  for (const part of alt.split(', ')) {
    const m = /^(DNS|IP Address):(.*)$/.exec(part);
    if (m !== null) out.add(m[2]!.toLowerCase());
  }
  return out;
}

function normaliseIp(s: string): string {
  if (net.isIPv6(s)) {
    // node prints IPv6 SANs in full lower-case form without compression for ::1 → "0:0:0:0:0:0:0:1"
    const sock = new net.SocketAddress({ address: s, family: 'ipv6' });
    return sock.address.toLowerCase();
  }
  return s.toLowerCase();
}

function covers(have: Set<string>, want: string[]): boolean {
  const haveNorm = new Set([...have].map((h) => (net.isIP(h) !== 0 ? normaliseIp(h) : h)));
  const expanded = new Set([...haveNorm, ...[...haveNorm].map((h) => expandIpv6(h))]);
  return want.every((w) => {
    const n = net.isIP(w) !== 0 ? normaliseIp(w) : w.toLowerCase();
    return expanded.has(n) || expanded.has(expandIpv6(n));
  });
}

function expandIpv6(s: string): string {
  if (!net.isIPv6(s)) return s;
  const [head, tail] = s.split('::') as [string, string | undefined];
  const h = head === '' ? [] : head.split(':');
  const t = tail === undefined ? [] : tail === '' ? [] : tail.split(':');
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill('0');
  return [...h, ...fill, ...t].map((x) => parseInt(x, 16).toString(16)).join(':');
}

const FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
  saKey: 'sa.key',
  saPub: 'sa.pub',
} as const;

function writeSecret(file: string, text: string): void {
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

function readIf(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Loads DATA_DIR/pki, creating what is missing. */
export async function ensureClusterPki(dataDir: string, options: PkiOptions = {}): Promise<ClusterPki> {
  const dir = path.join(dataDir, 'pki');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const file = (name: keyof typeof FILES): string => path.join(dir, FILES[name]);
  const now = options.clock?.() ?? new Date();

  const identity = options.identity;
  if (identity !== undefined) {
    if (readIf(file('caCert')) !== identity.caCertPem || readIf(file('caKey')) !== identity.caKeyPem) {
      writeSecret(file('caKey'), identity.caKeyPem);
      writeSecret(file('caCert'), identity.caCertPem);
      // Certificates from another CA are of no use in this cluster.
      for (const f of ['servingCert', 'servingKey', 'adminCert', 'adminKey'] as const) fs.rmSync(file(f), { force: true });
    }
    if (readIf(file('saKey')) !== identity.serviceAccountKeyPem) writeSecret(file('saKey'), identity.serviceAccountKeyPem);
    if (readIf(file('saPub')) !== identity.serviceAccountPublicKeyPem) writeSecret(file('saPub'), identity.serviceAccountPublicKeyPem);
  }
  let caCertPem = readIf(file('caCert'));
  let caKeyPem = readIf(file('caKey'));
  if (caCertPem === undefined || caKeyPem === undefined) {
    const keys = await newKeyPair();
    const cert = await issue('CN=apiary-ca', keys, undefined, [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
    ], now, 10);
    caCertPem = cert.toString('pem');
    caKeyPem = await privateKeyPem(keys.privateKey);
    writeSecret(file('caKey'), caKeyPem);
    writeSecret(file('caCert'), caCertPem);
    // A new CA invalidates everything it did not sign.
    for (const f of ['servingCert', 'servingKey', 'adminCert', 'adminKey'] as const) fs.rmSync(file(f), { force: true });
  }
  const ca = { certPem: caCertPem, keyPem: caKeyPem };
  const issuer = { cert: new x509.X509Certificate(caCertPem), key: await importPrivate(caKeyPem) };

  const sans = servingSans(options);
  let servingCertPem = readIf(file('servingCert'));
  let servingKeyPem = readIf(file('servingKey'));
  if (servingCertPem === undefined || servingKeyPem === undefined || !covers(certificateSans(servingCertPem), sans)) {
    ({ certPem: servingCertPem, keyPem: servingKeyPem } = await issueServing(issuer, sans, now));
    writeSecret(file('servingKey'), servingKeyPem);
    writeSecret(file('servingCert'), servingCertPem);
  }

  let adminCertPem = readIf(file('adminCert'));
  let adminKeyPem = readIf(file('adminKey'));
  if (adminCertPem === undefined || adminKeyPem === undefined) {
    ({ certPem: adminCertPem, keyPem: adminKeyPem } = await issueClientCertificate(ca, 'kubernetes-admin', ['system:masters'], now));
    writeSecret(file('adminKey'), adminKeyPem);
    writeSecret(file('adminCert'), adminCertPem);
  }

  let serviceAccountKeyPem = readIf(file('saKey'));
  let serviceAccountPublicKeyPem = readIf(file('saPub'));
  if (serviceAccountKeyPem === undefined || serviceAccountPublicKeyPem === undefined) {
    const keys = await newKeyPair();
    serviceAccountKeyPem = await privateKeyPem(keys.privateKey);
    serviceAccountPublicKeyPem = await publicKeyPem(keys.publicKey);
    writeSecret(file('saKey'), serviceAccountKeyPem);
    writeSecret(file('saPub'), serviceAccountPublicKeyPem);
  }

  return { dir, caCertPem, caKeyPem, servingCertPem, servingKeyPem, adminCertPem, adminKeyPem, serviceAccountKeyPem, serviceAccountPublicKeyPem };
}

/** The front proxy's key material, as kubeadm lays it out beside the cluster's: its own CA and the aggregator's client certificate. */
export interface FrontProxyPki {
  caCertPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

/**
 * DATA_DIR/pki/front-proxy-ca.{crt,key} and front-proxy-client.{crt,key}
 * (CN=front-proxy-client), made on first use and read back afterwards.
 */
export async function ensureFrontProxyPki(pkiDir: string, now = new Date()): Promise<FrontProxyPki> {
  const file = (name: string): string => path.join(pkiDir, name);
  let caCertPem = readIf(file('front-proxy-ca.crt'));
  let caKeyPem = readIf(file('front-proxy-ca.key'));
  if (caCertPem === undefined || caKeyPem === undefined) {
    ({ certPem: caCertPem, keyPem: caKeyPem } = await createCertificateAuthority('front-proxy-ca', now));
    writeSecret(file('front-proxy-ca.key'), caKeyPem);
    writeSecret(file('front-proxy-ca.crt'), caCertPem);
    fs.rmSync(file('front-proxy-client.crt'), { force: true });
  }
  let clientCertPem = readIf(file('front-proxy-client.crt'));
  let clientKeyPem = readIf(file('front-proxy-client.key'));
  if (clientCertPem === undefined || clientKeyPem === undefined) {
    ({ certPem: clientCertPem, keyPem: clientKeyPem } = await issueClientCertificate({ certPem: caCertPem, keyPem: caKeyPem }, 'front-proxy-client', [], now));
    writeSecret(file('front-proxy-client.key'), clientKeyPem);
    writeSecret(file('front-proxy-client.crt'), clientCertPem);
  }
  return { caCertPem, clientCertPem, clientKeyPem };
}
