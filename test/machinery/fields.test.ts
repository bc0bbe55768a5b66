import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseFieldSelector,
  unsupportedFieldError,
  escapeFieldValue,
  fieldSelectorFromSet,
} from '../../src/machinery/fields.js';
import { StatusError } from '../../src/machinery/errors.js';

function parseError(text: string): string {
  try {
    parseFieldSelector(text);
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    return err.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to fail`);
}

test('parse: operators, sorting, empty terms, escapes', () => {
  const cases: [string, [string, string, string][], string][] = [
    ['', [], ''],
    ['metadata.name=a', [['metadata.name', '=', 'a']], 'metadata.name=a'],
    ['metadata.name==a', [['metadata.name', '=', 'a']], 'metadata.name=a'],
    ['status.phase!=Running', [['status.phase', '!=', 'Running']], 'status.phase!=Running'],
    ['b=1,,a=2,', [['a', '=', '2'], ['b', '=', '1']], 'a=2,b=1'],
    ['x=', [['x', '=', '']], 'x='],
    ['x=a\\,b\\=c\\\\d', [['x', '=', 'a,b=c\\d']], 'x=a\\,b\\=c\\\\d'],
  ];
  for (const [text, want, str] of cases) {
    const sel = parseFieldSelector(text);
    assert.deepEqual(sel.requirements.map((r) => [r.field, r.operator, r.value]), want, text);
    assert.equal(sel.toString(), str, text);
    assert.equal(sel.empty(), want.length === 0);
  }
});

test('matching: missing fields read as empty', () => {
  const fields = { 'metadata.name': 'web', 'metadata.namespace': 'default' };
  const cases: [string, boolean][] = [
    ['', true],
    ['metadata.name=web', true],
    ['metadata.name=db', false],
    ['metadata.name!=db', true],
    ['metadata.name=web,metadata.namespace=default', true],
    ['metadata.name=web,metadata.namespace!=default', false],
    ['spec.nodeName=', true],
    ['spec.nodeName!=', false],
    ['spec.nodeName!=node-1', true],
  ];
  for (const [text, want] of cases) assert.equal(parseFieldSelector(text).matches(fields), want, text);
  assert.equal(fieldSelectorFromSet({ 'metadata.name': 'web' }).matches(fields), true);
});

test('errors carry upstream messages', () => {
  assert.equal(parseError('foo'), "invalid selector: 'foo'; can't understand 'foo'");
  assert.equal(parseError('a=1,foo'), "invalid selector: 'a=1,foo'; can't understand 'foo'");
  // split at the first operator, so the rest is a value with a bare '='
  assert.equal(parseError('a!=b=c'), 'invalid field selector: unescaped character in value: 61');
  assert.equal(parseError('a=b\\,c,d=x,y'), "invalid selector: 'a=b\\,c,d=x,y'; can't understand 'y'");
  assert.equal(parseError('a=b\\n'), 'invalid field selector: invalid escape sequence: \\n');
  assert.equal(parseError('a=b\\'), 'invalid field selector: invalid escape sequence: \\');
});

test('escape round trip and the unsupported-field error', () => {
  const value = 'a,b=c\\d';
  const sel = parseFieldSelector(`x=${escapeFieldValue(value)}`);
  assert.equal(sel.requirements[0]!.value, value);
  const err = unsupportedFieldError('spec.foo');
  assert.equal(err.code, 400);
  assert.equal(err.reason, 'BadRequest');
  assert.equal(err.message, 'field label not supported: spec.foo');
});
