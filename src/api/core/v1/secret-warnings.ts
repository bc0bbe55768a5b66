// The warnings kube-apiserver sends back on a write of a TLS secret: its
// certificate and key are checked as a pair, as Go's tls.X509KeyPair does, and
// the first problem becomes a Warning header (the write is not refused).
//
// Written here because no library reproduces crypto/tls's error texts; node's
// crypto parses the certificate and key and compares their public halves.
import { X509Certificate, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { KubeObject } from '../../../machinery/meta.js';
import type { Secret } from './types.js';

interface PemBlock {
  type: string;
  der: Buffer;
}

/** The PEM blocks of `input` in order, as repeated pem.Decode calls find them (malformed ones are skipped). */
function pemBlocks(input: Buffer): PemBlock[] {
  const text = input.toString('latin1');
  const blocks: PemBlock[] = [];
  const re = /-----BEGIN ([^\r\n]*?)-----\r?\n([\s\S]*?)-----END \1-----/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const lines = m[2]!.split(/\r?\n/);
    // Headers ("Proc-Type: …") end at the first blank line.
    const blank = lines.findIndex((l) => l.trim() === '');
    const body = (lines.slice(0, Math.max(0, blank)).every((l) => l.includes(':')) && blank > 0 ? lines.slice(blank + 1) : lines).join('');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body.replace(/[ \t]/g, ''))) continue;
    blocks.push({ type: m[1]!, der: Buffer.from(body, 'base64') });
  }
  return blocks;
}

const isPrivateKeyType = (type: string): boolean => type === 'PRIVATE KEY' || type.endsWith(' PRIVATE KEY');
const goList = (items: string[]): string => `[${items.join(' ')}]`;

/** Go's tls.X509KeyPair(cert, key) error text, or undefined when they make a pair. */
export function keyPairError(certPEM: Buffer, keyPEM: Buffer): string | undefined {
  const certBlocks = pemBlocks(certPEM);
  const certs = certBlocks.filter((b) => b.type === 'CERTIFICATE');
  if (certs.length === 0) {
    const skipped = certBlocks.map((b) => b.type);
    if (skipped.length === 0) return 'tls: failed to find any PEM data in certificate input';
    if (skipped.length === 1 && skipped[0]!.endsWith('PRIVATE KEY')) {
      return 'tls: failed to find certificate PEM data in certificate input, but did find a private key; PEM inputs may have been switched';
    }
    return `tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: ${goList(skipped)}`;
  }
  const keyBlocks = pemBlocks(keyPEM);
  const keyAt = keyBlocks.findIndex((b) => isPrivateKeyType(b.type));
  if (keyAt < 0) {
    const skipped = keyBlocks.map((b) => b.type);
    if (skipped.length === 0) return 'tls: failed to find any PEM data in key input';
    if (skipped.length === 1 && skipped[0] === 'CERTIFICATE') return 'tls: found a certificate rather than a key in the PEM for the private key';
    return `tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: ${goList(skipped)}`;
  }
  let publicKey: KeyObject;
  try {
    publicKey = new X509Certificate(certs[0]!.der).publicKey;
  } catch {
    return 'x509: malformed certificate';
  }
  const privateKey = parsePrivateKey(keyBlocks[keyAt]!.der);
  if (privateKey === undefined) return 'tls: failed to parse private key';
  const type = publicKey.asymmetricKeyType;
  if (type !== 'rsa' && type !== 'ec' && type !== 'ed25519') return 'tls: unknown public key algorithm';
  if (privateKey.asymmetricKeyType !== type) return 'tls: private key type does not match public key type';
  const spki = (k: KeyObject): Buffer => k.export({ format: 'der', type: 'spki' });
  return spki(publicKey).equals(spki(createPublicKey(privateKey))) ? undefined : 'tls: private key does not match public key';
}

/** PKCS #1, then PKCS #8, then SEC 1 (EC), as crypto/tls's parsePrivateKey tries them. */
function parsePrivateKey(der: Buffer): KeyObject | undefined {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type });
    } catch {
      // the next form
    }
  }
  return undefined;
}

/** Upstream's GetWarningsForSecret: a TLS secret whose certificate and key do not make a pair. */
export function secretWarnings(obj: KubeObject): string[] {
  const secret = obj as Secret;
  if (secret.type !== 'kubernetes.io/tls') return [];
  const data = secret.data ?? {};
  const bytes = (key: string): Buffer => Buffer.from(data[key] ?? '', 'base64');
  const problem = keyPairError(bytes('tls.crt'), bytes('tls.key'));
  return problem === undefined ? [] : [problem];
}
