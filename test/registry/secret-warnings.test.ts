// A TLS secret's certificate and key checked as Go's tls.X509KeyPair checks
// them (the differential pass compares the warnings of a pair, a foreign key
// and switched inputs with kube-apiserver's); here the other branches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createCertificateAuthority } from '../../src/auth/pki/pki.js';
import { keyPairError } from '../../src/api/core/v1/secret-warnings.js';

test('certificate and key pairs: every answer of tls.X509KeyPair this server words', async () => {
  const a = await createCertificateAuthority('a');
  const b = await createCertificateAuthority('b');
  const pem = (s: string): Buffer => Buffer.from(s);
  assert.equal(keyPairError(pem(a.certPem), pem(a.keyPem)), undefined);
  assert.equal(keyPairError(pem(a.certPem), pem(b.keyPem)), 'tls: private key does not match public key');
  assert.equal(keyPairError(pem(''), pem(a.keyPem)), 'tls: failed to find any PEM data in certificate input');
  assert.equal(keyPairError(pem(a.certPem), pem('not pem')), 'tls: failed to find any PEM data in key input');
  assert.equal(keyPairError(pem(a.certPem), pem(a.certPem)), 'tls: found a certificate rather than a key in the PEM for the private key');
  const other = '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n';
  assert.equal(
    keyPairError(pem(other + other.replace(/PUBLIC KEY/g, 'X')), pem(a.keyPem)),
    'tls: failed to find "CERTIFICATE" PEM block in certificate input after skipping PEM blocks of the following types: [PUBLIC KEY X]',
  );
  assert.equal(
    keyPairError(pem(a.certPem), pem(other + a.certPem)),
    'tls: failed to find PEM block with type ending in "PRIVATE KEY" in key input after skipping PEM blocks of the following types: [PUBLIC KEY CERTIFICATE]',
  );
  assert.equal(keyPairError(pem('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'), pem(a.keyPem)), 'x509: malformed certificate');
  assert.equal(keyPairError(pem(a.certPem), pem('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n')), 'tls: failed to parse private key');
});
