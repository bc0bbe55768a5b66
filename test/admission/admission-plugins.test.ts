// --enable-admission-plugins / --disable-admission-plugins, checked as
// kube-apiserver checks them (and through the real `apiary serve`).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAdmissionPluginFlags } from '../../src/admission/admission-plugins.js';
import { spawnApiary } from '../helpers/apiary-process.js';

test('upstream names are accepted; unknown names and overlaps refused in upstream words', () => {
  assert.deepEqual(parseAdmissionPluginFlags('NamespaceLifecycle,MutatingAdmissionWebhook', 'ResourceQuota, AlwaysPullImages').disabled, ['ResourceQuota', 'AlwaysPullImages']);
  assert.throws(() => parseAdmissionPluginFlags('Nope', ''), { message: 'enable-admission-plugins plugin "Nope" is unknown' });
  assert.throws(() => parseAdmissionPluginFlags('', 'Nope'), { message: 'disable-admission-plugins plugin "Nope" is unknown' });
  assert.throws(() => parseAdmissionPluginFlags('LimitRanger', 'LimitRanger'), { message: '[LimitRanger] in enable-admission-plugins and disable-admission-plugins overlapped' });
  // A plugin kube-apiserver has but apiary does not: enabling it is refused rather than ignored.
  assert.throws(() => parseAdmissionPluginFlags('AlwaysPullImages', ''), { message: 'enable-admission-plugins plugin "AlwaysPullImages" is not implemented by apiary' });
});

test('apiary serve refuses an unknown plugin name at start', async () => {
  const proc = spawnApiary(['serve', '--insecure-serving', '--port', '0', '--disable-admission-plugins', 'Bogus']);
  proc.url.catch(() => undefined);
  const code = await proc.exited;
  assert.equal(code, 2);
  assert.match(proc.output(), /apiary: disable-admission-plugins plugin "Bogus" is unknown/);
});
