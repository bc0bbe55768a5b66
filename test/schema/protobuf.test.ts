import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  decodeProtobuf,
  decodeWatchEventFrame,
  encodeProtobuf,
  encodeWatchEventFrame,
} from '../../src/api/schema/protobuf.js';
import { isStatusError } from '../../src/machinery/errors.js';

// Fixtures written by tools/schemagen/witness with upstream's Go types and serializer:
// input/NAME.json (what a client sends), NAME.pb (Go's protobuf for it), NAME.go.json
// (the JSON Go reads back from NAME.pb).
const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const names = readdirSync(join(fixtures, 'input')).map((f) => f.replace(/\.json$/, '')).sort();
const readJson = (p: string): Record<string, unknown> => JSON.parse(readFileSync(join(fixtures, p), 'utf8')) as Record<string, unknown>;

/** Every non-null leaf of `sub` is present, equal, in `sup`: nothing the client sent was lost. */
function assertContains(sup: unknown, sub: unknown, path = ''): void {
  if (sub === null || sub === undefined) return;
  if (Array.isArray(sub)) {
    assert.ok(Array.isArray(sup), `${path} should be an array`);
    assert.equal(sup.length, sub.length, `${path} length`);
    sub.forEach((v, i) => assertContains(sup[i], v, `${path}[${i}]`));
  } else if (typeof sub === 'object') {
    assert.ok(sup !== null && typeof sup === 'object', `${path} should be an object`);
    for (const [k, v] of Object.entries(sub)) assertContains((sup as Record<string, unknown>)[k], v, `${path}.${k}`);
  } else {
    assert.equal(sup, sub, path);
  }
}

test('fixtures cover the rich kinds', () => {
  for (const n of ['pod', 'deployment', 'service', 'secret', 'node', 'event', 'lease', 'eventsv1']) assert.ok(names.includes(n), n);
});

for (const name of names) {
  test(`${name}: Go's protobuf decodes to Go's JSON`, () => {
    const pb = new Uint8Array(readFileSync(join(fixtures, `${name}.pb`)));
    assert.deepEqual(decodeProtobuf(pb), readJson(`${name}.go.json`));
  });

  test(`${name}: our encoding is byte-identical to Go's`, () => {
    const pb = readFileSync(join(fixtures, `${name}.pb`));
    const ours = Buffer.from(encodeProtobuf(readJson(`${name}.go.json`)));
    assert.equal(ours.toString('hex'), pb.toString('hex'));
  });

  test(`${name}: JSON -> protobuf -> JSON keeps every field`, () => {
    const input = readJson(`input/${name}.json`);
    const back = decodeProtobuf(encodeProtobuf(input));
    assertContains(back, input);
    assert.deepEqual(back, readJson(`${name}.go.json`));
  });
}

test('watch frames match upstream and round-trip', () => {
  const goFrame = readFileSync(join(fixtures, 'lease.watch'));
  const lease = readJson('lease.go.json');
  assert.equal(Buffer.from(encodeWatchEventFrame('MODIFIED', lease)).toString('hex'), goFrame.toString('hex'));
  const ev = decodeWatchEventFrame(new Uint8Array(goFrame));
  assert.equal(ev.type, 'MODIFIED');
  assert.equal(ev.length, goFrame.length);
  assert.deepEqual(ev.object, lease);
});

test('malformed protobuf is a 400 BadRequest', () => {
  const good = encodeProtobuf(readJson('input/configmap-list.json'));
  const cases: Uint8Array[] = [
    new Uint8Array(0),
    Uint8Array.from(Buffer.from('{"kind":"ConfigMap"}')),
    Uint8Array.of(0x6b, 0x38, 0x73, 0x00),
    good.subarray(0, good.length - 7), // truncated
    Uint8Array.of(0x6b, 0x38, 0x73, 0x00, 0x0a, 0x05, 0xff, 0xff, 0xff),
  ];
  for (const bytes of cases) {
    assert.throws(
      () => decodeProtobuf(bytes),
      (err: unknown) => isStatusError(err) && err.code === 400 && err.reason === 'BadRequest',
      Buffer.from(bytes).toString('hex'),
    );
  }
});

test('a kind with no protobuf form is refused with 406', () => {
  const table = { apiVersion: 'meta.k8s.io/v1', kind: 'Table', metadata: {}, columnDefinitions: [], rows: [] };
  assert.throws(() => encodeProtobuf(table), (err: unknown) => isStatusError(err) && err.code === 406);
});
