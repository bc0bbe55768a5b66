import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector, labelSelectorFromMeta } from '../../src/machinery/labels.js';
import { StatusError } from '../../src/machinery/errors.js';

function parseError(text: string): string {
  try {
    parseLabelSelector(text);
  } catch (err) {
    assert.ok(err instanceof StatusError);
    assert.equal(err.code, 400);
    assert.equal(err.reason, 'BadRequest');
    return err.message;
  }
  assert.fail(`expected ${JSON.stringify(text)} to fail`);
}

test('parse and print: canonical strings as upstream (sorted keys and values)', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['x=a', 'x=a'],
    ['x==a', 'x==a'],
    ['x!=a', 'x!=a'],
    ['x=', 'x='],
    ['x', 'x'],
    ['!x', '!x'],
    ['  x  ,  !y  ', 'x,!y'],
    ['!b,a', 'a,!b'],
    ['z=1,a in (c,b,b),m notin (x)', 'a in (b,c),m notin (x),z=1'],
    ['x in (a,,b)', 'x in (,a,b)'],
    ['x in ()', 'x in ()'],
    ['x in (a,)', 'x in (,a)'],
    ['x notin (in, notin)', 'x notin (in,notin)'],
    ['x>1,y<2', 'x>1,y<2'],
    ['example.com/app=web', 'example.com/app=web'],
    ['x\tin\n(a)', 'x in (a)'],
  ];
  for (const [text, want] of cases) assert.equal(parseLabelSelector(text).toString(), want, text);
  assert.ok(parseLabelSelector('').empty());
  assert.ok(!parseLabelSelector('x').empty());
  assert.deepEqual(parseLabelSelector('x in (b,a)').requirements.map((r) => [r.key, r.operator, r.values]), [
    ['x', 'in', ['a', 'b']],
  ]);
});

test('matching', () => {
  const labels = { app: 'web', tier: 'front', n: '10' };
  const cases: [string, Record<string, string> | undefined, boolean][] = [
    ['', undefined, true],
    ['app=web', labels, true],
    ['app==web', labels, true],
    ['app=db', labels, false],
    ['app!=db', labels, true],
    ['missing!=x', labels, true],
    ['app', labels, true],
    ['!app', labels, false],
    ['!missing', labels, true],
    ['app in (db,web)', labels, true],
    ['app notin (db,web)', labels, false],
    ['missing notin (a)', labels, true],
    ['missing in (a)', labels, false],
    ['missing=', labels, false],
    ['app=web,tier=back', labels, false],
    ['n>9', labels, true],
    ['n<10', labels, false],
    ['app>1', labels, false],
    ['app', undefined, false],
    ['!app', undefined, true],
  ];
  for (const [text, l, want] of cases) assert.equal(parseLabelSelector(text).matches(l), want, text);
  // Inherited properties are not labels.
  assert.equal(parseLabelSelector('constructor').matches({}), false);
});

const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

test('syntax errors carry upstream messages', () => {
  const cases: [string, string][] = [
    ['x y', "unable to parse requirement: found 'y', expected: in, notin, =, ==, !=, gt, lt"],
    ['x=a b', "found 'b', expected: ',' or 'end of string'"],
    ['x=a,', "found '', expected: identifier after ','"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!=x', "found '!=', expected: !, identifier, or 'end of string'"],
    ['!(', "unable to parse requirement: found '(', expected: identifier"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x>a', "unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer"],
  ];
  for (const [text, want] of cases) assert.equal(parseError(text), want, text);
});

test('key and value validation errors carry upstream field paths', () => {
  assert.equal(parseError('-bad=x'), `unable to parse requirement: <nil>: Invalid value: "-bad": ${NAME_PART}`);
  assert.equal(parseError('a/b/c'), `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`);
  assert.equal(parseError('app=-web'), `unable to parse requirement: values[0][app]: Invalid value: "-web": ${LABEL_VALUE}`);
  assert.equal(
    parseError('app in (ok,-x,-y)'),
    `unable to parse requirement: [values[0][app]: Invalid value: "-x": ${LABEL_VALUE}, values[1][app]: Invalid value: "-y": ${LABEL_VALUE}]`,
  );
});

test('metav1.LabelSelector → selector', () => {
  const sel = labelSelectorFromMeta({
    matchLabels: { app: 'web' },
    matchExpressions: [
      { key: 'tier', operator: 'In', values: ['front', 'edge'] },
      { key: 'legacy', operator: 'DoesNotExist' },
      { key: 'env', operator: 'Exists' },
    ],
  });
  assert.equal(sel.toString(), 'app=web,env,!legacy,tier in (edge,front)');
  assert.equal(sel.matches({ app: 'web', tier: 'edge', env: 'prod' }), true);
  assert.equal(sel.matches({ app: 'web', tier: 'edge', env: 'prod', legacy: 'y' }), false);
  assert.ok(labelSelectorFromMeta({}).empty());
  assert.ok(labelSelectorFromMeta({}).matches({ any: 'thing' }));
  assert.throws(
    () => labelSelectorFromMeta({ matchExpressions: [{ key: 'a', operator: 'Like' }] }),
    (err: StatusError) => err.code === 400 && err.message === '"Like" is not a valid label selector operator',
  );
  assert.throws(
    () => labelSelectorFromMeta({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }),
    (err: StatusError) => err.message === "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
  );
});
