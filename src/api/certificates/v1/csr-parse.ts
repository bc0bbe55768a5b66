// A PKCS#10 certificate request checked as upstream's validateCSR does
// (certificates.ParseCSR, then CheckSignature): the PEM block, the DER
// structure, and the signature over the request info by its own public key.
// Synchronous (node:crypto's verify), since validation hooks are.

import crypto from 'node:crypto';

interface Der {
  tag: number;
  /** The whole element (header and content). */
  raw: Buffer;
  content: Buffer;
}

function readDer(buf: Buffer, offset: number): { el: Der; next: number } {
  if (offset + 2 > buf.length) throw new Error('truncated');
  const tag = buf[offset]!;
  let len = buf[offset + 1]!;
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || offset + 2 + n > buf.length) throw new Error('bad length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[offset + 2 + i]!;
    header += n;
  }
  const end = offset + header + len;
  if (end > buf.length) throw new Error('truncated');
  return { el: { tag, raw: buf.subarray(offset, end), content: buf.subarray(offset + header, end) }, next: end };
}

function children(el: Der): Der[] {
  const out: Der[] = [];
  for (let at = 0; at < el.content.length; ) {
    const { el: child, next } = readDer(el.content, at);
    out.push(child);
    at = next;
  }
  return out;
}

function oid(el: Der): string {
  const b = el.content;
  const parts = [Math.floor(b[0]! / 40), b[0]! % 40];
  let v = 0;
  for (let i = 1; i < b.length; i++) {
    v = v * 128 + (b[i]! & 0x7f);
    if (!(b[i]! & 0x80)) {
      parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

/** Signature algorithm OIDs Go verifies, with node's digest name (null: the key decides, Ed25519). */
const SIGNATURE_ALGORITHMS: Record<string, string | null> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': null,
};

/** Decodes the first PEM block: its type and DER bytes, or undefined (pem.Decode finding none). */
function pemDecode(text: string): { type: string; der: Buffer } | undefined {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/.exec(text);
  if (m === null) return undefined;
  const body = m[2]!.split(/\r?\n/).filter((l) => !l.includes(':'));
  return { type: m[1]!, der: Buffer.from(body.join(''), 'base64') };
}

/** The error upstream reports for a spec.request, or undefined when it is a well-signed request. */
export function certificateRequestError(request: Buffer): string | undefined {
  const block = pemDecode(request.toString('latin1'));
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  let info: Der;
  let algorithm: string;
  let signature: Buffer;
  let spki: Der;
  try {
    const { el: top } = readDer(block.der, 0);
    const [reqInfo, algId, sig] = children(top);
    if (top.tag !== 0x30 || reqInfo === undefined || algId === undefined || sig === undefined || sig.tag !== 0x03) throw new Error('structure');
    info = reqInfo;
    const infoParts = children(reqInfo);
    spki = infoParts[2]!;
    if (spki === undefined || spki.tag !== 0x30) throw new Error('structure');
    algorithm = oid(children(algId)[0]!);
    signature = sig.content.subarray(1);
  } catch {
    return 'asn1: structure error: tags don\'t match';
  }
  if (!(algorithm in SIGNATURE_ALGORITHMS)) return 'x509: cannot verify signature: algorithm unimplemented';
  try {
    const key = crypto.createPublicKey({ key: spki.raw, format: 'der', type: 'spki' });
    const ok = crypto.verify(SIGNATURE_ALGORITHMS[algorithm] ?? null, info.raw, key, signature);
    if (!ok) return key.asymmetricKeyType === 'rsa' ? 'crypto/rsa: verification error' : key.asymmetricKeyType === 'ec' ? 'x509: ECDSA verification failure' : 'x509: Ed25519 verification failure';
  } catch {
    return 'x509: cannot verify signature: algorithm unimplemented';
  }
  return undefined;
}

const ORGANIZATION_OID = '2.5.4.10';

/** The subject's organization (O) values of a PEM certificate request, or undefined when it does not parse. */
export function subjectOrganizations(request: Buffer): string[] | undefined {
  const block = pemDecode(request.toString('latin1'));
  if (block === undefined || block.type !== 'CERTIFICATE REQUEST') return undefined;
  try {
    const { el: top } = readDer(block.der, 0);
    const info = children(top)[0];
    const subject = info === undefined ? undefined : children(info)[1];
    if (subject === undefined || subject.tag !== 0x30) return undefined;
    const out: string[] = [];
    // Name: SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue).
    for (const rdn of children(subject)) {
      for (const atv of children(rdn)) {
        const [type, value] = children(atv);
        if (type !== undefined && value !== undefined && oid(type) === ORGANIZATION_OID) out.push(value.content.toString('utf8'));
      }
    }
    return out;
  } catch {
    return undefined;
  }
}
