// Go's gnostic as a witness for the protobuf form of /openapi/v2: builds
// test/compat/openapiv2 (gnostic-models v0.6.8 and kube-openapi as client-go
// v0.32 pins them; modules from Go's module cache) and runs it against a real
// apiary. The program fetches the protobuf form with client-go's Accept,
// unmarshals it into openapi_v2.Document, reads it back as YAML and compares
// it with the JSON form (definitions, property types, group-version-kind
// extensions, paths, then the whole document), checks it equals gnostic's own
// conversion of the JSON, and builds kube-openapi's models from it as kubectl
// does. Then real kubectl reads the same form: `kubectl explain
// --output=plaintext-openapiv2` fetches /openapi/v2 in protobuf only.
// Fails loudly when `go` or kubectl is missing.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { runKubectl } from '../helpers/kubectl.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MODULE_DIR = path.resolve('test/compat/openapiv2');
const BINARY = path.join(MODULE_DIR, 'bin', 'openapiv2-witness');
const GO_ENV = { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };

describe('gnostic witness for /openapi/v2 in protobuf', { timeout: 360_000 }, () => {
  let server: TestServer;
  before(async () => {
    const version = spawnSync('go', ['version'], { env: GO_ENV, encoding: 'utf8' });
    assert.equal(version.error, undefined, `go is required for this test and was not found on PATH: ${version.error?.message}`);
    assert.equal(version.status, 0, `go version failed: ${version.stderr}`);
    // Built before the server starts: spawnSync would hold up the server's event loop.
    const build = spawnSync('go', ['build', '-o', BINARY, '.'], { cwd: MODULE_DIR, env: GO_ENV, encoding: 'utf8', timeout: 300_000 });
    assert.equal(build.status, 0, `go build failed (${build.signal ?? build.status}): ${build.stderr}`);
    server = await startTestServer();
  });
  after(() => server?.stop());

  it('gnostic decodes the protobuf form into the JSON document; kube-openapi builds its models from it', { timeout: 60_000 }, async (t) => {
    const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
      execFile(BINARY, ['-server', server.url], { timeout: 50_000 }, (err, stdout, stderr) => {
        const exit = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
        resolve({ code: exit, output: stdout + stderr });
      });
    });
    assert.equal(code, 0, output);
    assert.match(output, /^ok the whole protobuf document reads back as the JSON document$/m);
    assert.match(output, /^PASS$/m);
    t.diagnostic(output.split('\n').find((l) => l.includes('same bytes')) ?? '');
  });

  it('kubectl explain --output=plaintext-openapiv2 reads kinds and nested fields from the protobuf form', { timeout: 60_000 }, async () => {
    const cm = await runKubectl(server.kubeconfigPath, ['explain', 'configmap', '--output=plaintext-openapiv2']);
    assert.equal(cm.code, 0, cm.stderr);
    assert.match(cm.stdout, /^KIND: +ConfigMap$/m);
    assert.match(cm.stdout, /^ +data\t<map\[string\]string>/m);
    const strategy = await runKubectl(server.kubeconfigPath, ['explain', 'deployment.spec.strategy.rollingUpdate', '--output=plaintext-openapiv2']);
    assert.equal(strategy.code, 0, strategy.stderr);
    assert.match(strategy.stdout, /^VERSION: +apps\/v1$/m);
    assert.match(strategy.stdout, /^ +maxSurge\t<string>/m);
  });
});
