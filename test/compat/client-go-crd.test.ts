// Go's client-go as a witness for CRDs: builds test/compat/clientgo/crd
// (client-go v0.32's dynamic client and dynamic informer, as
// controller-runtime uses them) and runs it against a real apiary: it creates
// a CRD, waits for Established, and checks that a dynamic informer on the
// custom resources sees a create, an update and a delete, in order.
// Fails loudly when `go` is missing.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync, spawn } from 'node:child_process';
import path from 'node:path';
import { RestClient } from '../../src/client/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MODULE_DIR = path.resolve('test/compat/clientgo');
const BINARY = path.join(MODULE_DIR, 'bin', 'clientgo-crd-witness');
const GO_ENV = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };

describe('client-go CRD witness', { timeout: 400_000 }, () => {
  let server: TestServer;
  before(async () => {
    const build = spawnSync('go', ['build', '-o', BINARY, './crd'], { cwd: MODULE_DIR, env: GO_ENV, encoding: 'utf8', timeout: 300_000 });
    assert.equal(build.error, undefined, `go is required for this test: ${build.error?.message}`);
    assert.equal(build.status, 0, `go build failed (${build.signal ?? build.status}): ${build.stderr}`);
    server = await startTestServer();
    const setup = RestClient.fromKubeconfig(server.kubeconfigPath);
    await setup.namespaces().create({ metadata: { name: 'witness' } });
    await setup.close();
  });
  after(() => server?.stop());

  it('creates a CRD, waits for Established, and a dynamic informer sees create, update and delete', { timeout: 60_000 }, async () => {
    const child = spawn(BINARY, ['-kubeconfig', server.kubeconfigPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, output);
    assert.match(output, /^events: add g1=red, update g1=blue, delete g1=blue$/m);
    assert.match(output, /^PASS$/m);
  });
});
