import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kubeconfigFromText, loadKubeconfig } from '../../src/client/kubeconfig.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apiary-kubeconfig-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('kubeconfig', () => {
  it('follows current-context to its cluster and user; file paths are relative to the kubeconfig', () => {
    fs.writeFileSync(path.join(dir, 'ca.pem'), 'CA PEM');
    fs.writeFileSync(path.join(dir, 'token'), 'file-token\n');
    const file = path.join(dir, 'config');
    fs.writeFileSync(
      file,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: work',
        'clusters:',
        '- name: other',
        '  cluster: { server: "http://other:1" }',
        '- name: main',
        '  cluster: { server: "https://main:6443/", certificate-authority: ca.pem }',
        'users:',
        '- name: me',
        '  user: { tokenFile: token }',
        'contexts:',
        '- name: work',
        '  context: { cluster: main, user: me, namespace: team }',
        '- name: play',
        '  context: { cluster: other }',
      ].join('\n'),
    );
    assert.deepEqual(loadKubeconfig(file), {
      server: 'https://main:6443',
      namespace: 'team',
      caData: 'CA PEM',
      bearerToken: 'file-token',
    });
    assert.deepEqual(loadKubeconfig(file, { context: 'play' }), { server: 'http://other:1', namespace: 'default' });
  });

  it('reads inline token, basic auth and base64 data fields', () => {
    const text = [
      'current-context: c',
      'clusters: [{ name: k, cluster: { server: "http://127.0.0.1:1", insecure-skip-tls-verify: true } }]',
      `users: [{ name: u, user: { username: admin, password: secret, client-certificate-data: ${Buffer.from('CERT').toString('base64')} } }]`,
      'contexts: [{ name: c, context: { cluster: k, user: u } }]',
    ].join('\n');
    const config = kubeconfigFromText(text, dir);
    assert.equal(config.username, 'admin');
    assert.equal(config.password, 'secret');
    assert.equal(config.certData, 'CERT');
    assert.equal(config.insecureSkipTLSVerify, true);
  });

  it('names what is missing', () => {
    assert.throws(() => kubeconfigFromText('clusters: []', dir), /no current-context/);
    assert.throws(() => kubeconfigFromText('current-context: x\ncontexts: []', dir), /context "x" not found/);
  });
});
