// examples/configmap-mirror as a user runs it: a separate process pointed at
// a real apiary by a kubeconfig. We change configmaps in the source namespace
// (and tamper with the copies) and watch the copies follow.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { RestClient, isNotFound, type KubeObject } from '../../src/client/index.js';
import { startTestServer } from '../helpers/server.js';
import { until } from '../helpers/wait.js';

const MAIN = path.resolve('examples/configmap-mirror/main.ts');
const LABEL = 'configmap-mirror.example.com/source';
type ConfigMap = KubeObject & { data?: Record<string, string> };

it('configmap-mirror keeps copies in step with the source namespace', { timeout: 60_000 }, async (t) => {
  const server = await startTestServer();
  t.after(() => server.stop());
  const client = RestClient.fromKubeconfig(server.kubeconfigPath);
  t.after(() => client.close());
  for (const name of ['src', 'dst']) await client.namespaces().create({ metadata: { name } });
  const src = client.configMaps<ConfigMap>('src');
  const dst = client.configMaps<ConfigMap>('dst');
  await src.create({ metadata: { name: 'one', labels: { app: 'demo' } }, data: { k: '1' } });
  await dst.create({ metadata: { name: 'local' }, data: { mine: 'yes' } });
  await dst.create({ metadata: { name: 'clash' }, data: { mine: 'yes' } });

  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--kubeconfig', server.kubeconfigPath, '--from', 'src', '--to', 'dst'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  t.after(() => void child.kill('SIGKILL'));

  const copy = async (name: string): Promise<ConfigMap | undefined> => {
    try {
      return await dst.get(name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
  const copyData = async (name: string): Promise<string> => JSON.stringify((await copy(name))?.data ?? null);

  await until(`the existing configmap is copied (${output})`, async () => (await copyData('one')) === '{"k":"1"}');
  assert.deepEqual((await copy('one'))?.metadata.labels, { app: 'demo', [LABEL]: 'src' });

  await src.create({ metadata: { name: 'two' }, data: { k: '2' } });
  await src.create({ metadata: { name: 'clash' }, data: { theirs: 'yes' } });
  const one = await src.get('one');
  await src.update({ ...one, data: { k: '1b' } });
  await until('a new configmap is copied', async () => (await copyData('two')) === '{"k":"2"}');
  await until('an update is copied', async () => (await copyData('one')) === '{"k":"1b"}');

  await src.delete('two');
  await until('the copy of a deleted configmap is deleted', async () => (await copy('two')) === undefined);

  // Tampering with a copy is undone; deleting one brings it back.
  const tampered = (await copy('one'))!;
  await dst.update({ ...tampered, data: { k: 'edited by hand' } });
  await until('a tampered copy is restored', async () => (await copyData('one')) === '{"k":"1b"}');
  await dst.delete('one');
  await until('a deleted copy is recreated', async () => (await copyData('one')) === '{"k":"1b"}');

  // Configmaps it did not create are left alone, even under a source's name.
  assert.equal(await copyData('local'), '{"mine":"yes"}');
  assert.equal(await copyData('clash'), '{"mine":"yes"}');

  child.kill('SIGTERM');
  assert.equal(await exited, 0, output);
  assert.match(output, /configmap-mirror: stopped/);
});
