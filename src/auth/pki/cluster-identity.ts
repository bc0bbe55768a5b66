// One cluster, several servers: the cluster's identity (the CA that signs
// serving and client certificates, and the service-account signing key pair)
// is kept in the shared store, sealed with the cluster token, as k3s keeps its
// HA servers' bootstrap data. The first server to start makes the identity
// (or takes its data directory's), seals it and creates the store key (a
// create that fails if the key exists, so two first servers cannot both win);
// every later server opens it with the token and writes it into its own
// DATA_DIR/pki, then issues its own serving and admin certificates from the
// shared CA. A token or certificate issued through one server is accepted by
// all.
//
// The token: --token, else DATA_DIR/token (owner-only), else (first server
// only) a new random one, written there for the operator to give the others.
// A store that holds an identity but no token, or a token that does not open
// it, is a ClusterIdentityError: the server never makes a second CA.
//
// Sealing: AES-256-GCM with a key derived from the token by scrypt (random
// salt per seal); the GCM tag makes a wrong token fail to open.

import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ensureClusterPki, type ClusterIdentity, type ClusterPki, type PkiOptions } from './pki.js';

/** The one store key the identity lives under (the server binds it to its storage). */
export interface IdentityStore {
  /** The sealed identity, or undefined when the store holds none. */
  read(): Promise<string | undefined>;
  /** Creates the key; false when it already exists (another server was first). */
  create(sealed: string): Promise<boolean>;
}

/** A startup refusal the operator must fix (missing or wrong token): printed without a stack. */
export class ClusterIdentityError extends Error {
  override name = 'ClusterIdentityError';
}

export const TOKEN_FILE = 'token';

interface Sealed {
  version: 1;
  salt: string;
  iv: string;
  tag: string;
  data: string;
}

function keyFor(token: string, salt: Buffer): Buffer {
  return crypto.scryptSync(token, salt, 32);
}

export function sealIdentity(identity: ClusterIdentity, token: string): string {
  const salt = crypto.randomBytes(16);
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', keyFor(token, salt), iv);
  const data = Buffer.concat([cipher.update(JSON.stringify(identity), 'utf8'), cipher.final()]);
  const sealed: Sealed = { version: 1, salt: salt.toString('base64'), iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  return JSON.stringify(sealed);
}

/** Opens a sealed identity; throws ClusterIdentityError when the token does not fit. */
export function openIdentity(text: string, token: string): ClusterIdentity {
  let sealed: Sealed;
  try {
    sealed = JSON.parse(text) as Sealed;
  } catch {
    throw new ClusterIdentityError('the cluster identity in the store is not readable (not written by apiary?)');
  }
  const salt = Buffer.from(sealed.salt, 'base64');
  const decipher = crypto.createDecipheriv('aes-256-gcm', keyFor(token, salt), Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  try {
    const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as ClusterIdentity;
  } catch {
    throw new ClusterIdentityError(
      'wrong --token: it does not open the cluster identity held in the store (use the token from the first server\'s DATA_DIR/token)',
    );
  }
}

function readToken(dataDir: string): string | undefined {
  try {
    const text = fs.readFileSync(path.join(dataDir, TOKEN_FILE), 'utf8').trim();
    return text === '' ? undefined : text;
  } catch {
    return undefined;
  }
}

function writeToken(dataDir: string, token: string): void {
  const file = path.join(dataDir, TOKEN_FILE);
  if (readToken(dataDir) === token) return;
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
}

export interface SharedPki {
  pki: ClusterPki;
  token: string;
  /** True when this server made the identity the store now holds. */
  created: boolean;
}

/** The cluster PKI of a server on a shared store (see the file comment). */
export async function ensureSharedClusterPki(
  dataDir: string,
  store: IdentityStore,
  token: string | undefined,
  options: PkiOptions = {},
): Promise<SharedPki> {
  if (token !== undefined && token.trim() === '') throw new ClusterIdentityError('--token is empty');
  for (let attempt = 0; attempt < 2; attempt++) {
    const sealed = await store.read();
    if (sealed !== undefined) {
      const known = token ?? readToken(dataDir);
      if (known === undefined) {
        throw new ClusterIdentityError(
          'the store already holds a cluster identity made by another server: start this one with --token (the first server\'s DATA_DIR/token)',
        );
      }
      const identity = openIdentity(sealed, known);
      writeToken(dataDir, known);
      return { pki: await ensureClusterPki(dataDir, { ...options, identity }), token: known, created: false };
    }
    const pki = await ensureClusterPki(dataDir, options);
    const chosen = token ?? readToken(dataDir) ?? crypto.randomBytes(24).toString('hex');
    const identity: ClusterIdentity = {
      caCertPem: pki.caCertPem,
      caKeyPem: pki.caKeyPem,
      serviceAccountKeyPem: pki.serviceAccountKeyPem,
      serviceAccountPublicKeyPem: pki.serviceAccountPublicKeyPem,
    };
    if (await store.create(sealIdentity(identity, chosen))) {
      writeToken(dataDir, chosen);
      return { pki, token: chosen, created: true };
    }
    // Another server created it between our read and our create: take theirs.
  }
  throw new ClusterIdentityError('the cluster identity in the store changed while this server started; start it again');
}
