// The Kubernetes CEL libraries and standard functions at run time. Each expected value is what
// kube-apiserver 1.32 printed for the expression (as a messageExpression `string(<expr>)` on a
// failing rule, or the runtime error of a rule using it) on this object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileValidationRules, compileExpression, ExpressionEnvironment } from '../../../src/machinery/cel/index.js';

const object = {
  spec: { s: 'abcbd', q: 'x12y', d: '90s', t: '2024-05-06T07:08:09Z', ios: 5, m: { a: 'v1', b: 'v2' }, l: [1, 2, 3] },
};
const properties = {
  s: { type: 'string', maxLength: 20 },
  q: { type: 'string', maxLength: 20 },
  d: { type: 'string', format: 'duration' },
  t: { type: 'string', format: 'date-time' },
  ios: { 'x-kubernetes-int-or-string': true },
  missing: { type: 'string', maxLength: 5 },
  m: { type: 'object', maxProperties: 5, additionalProperties: { type: 'string', maxLength: 5 } },
  l: { type: 'array', maxItems: 5, items: { type: 'integer' } },
};

/** What the rule pair shows: the value (or the fallback message when it prints nothing), or "ERROR <runtime error>". */
function answer(expr: string): string {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties,
        'x-kubernetes-validations': [
          { rule: 'false', messageExpression: `string(${expr})` },
          { rule: `[${expr}].size() == 1`, message: 'ERR' },
        ],
      },
    },
  };
  const { rules, errors } = compileValidationRules(schema, 'spec.validation.openAPIV3Schema');
  assert.deepEqual(errors.map((e) => e.toString()), [], expr);
  const details = rules!.validate(object, undefined).map((e) => e.detail);
  const err = details.find((d) => d.endsWith(' evaluating rule: ERR'));
  return err ? `ERROR ${err.replace(/ evaluating rule: ERR$/, '')}` : details[0]!;
}

test('library functions answer as kube-apiserver', () => {
  const cases: [string, string][] = [
    ["self.s.lowerAscii()", "abcbd"],
    ["self.s.upperAscii()", "ABCBD"],
    ["self.s.replace('b', 'X')", "aXcXd"],
    ["self.s.replace('b', 'X', 1)", "aXcbd"],
    ["self.s.indexOf('c')", "2"],
    ["self.s.lastIndexOf('b')", "3"],
    ["self.s.substring(1)", "bcbd"],
    ["self.s.substring(1, 3)", "bc"],
    ["self.s.charAt(1)", "b"],
    ["'  x  '.trim()", "x"],
    ["strings.quote('a\"b\\n')", "\"a\\\"b\\n\""],
    ["self.s.substring(5, 2)", "ERROR invalid substring range. start: 5, end: 2"],
    ["self.s.charAt(40)", "ERROR index out of range: 40"],
    ["[3, 1, 2].isSorted()", "false"],
    ["[1, 2, 3].isSorted()", "true"],
    ["[1, 2, 3].sum()", "6"],
    ["[1.5, 2.0].sum()", "3.5"],
    ["[3, 1, 2].min()", "1"],
    ["[1, 2, 1].indexOf(1)", "0"],
    ["[1, 2, 1].lastIndexOf(1)", "2"],
    ["'abc123def456'.find('[0-9]+')", "123"],
    ["'abc'.find('x')", "failed rule: false"],
    ["'abc'.matches('^a')", "true"],
    ["'ABC'.matches('(?i)^abc$')", "true"],
    ["isURL('https://example.com:80/path?x=1&x=2&y')", "true"],
    ["isURL('example.com')", "false"],
    ["url('https://user@example.com:8080/a%20b?x=1&x=2').getHost()", "example.com:8080"],
    ["url('https://[::1]:8080/a').getHostname()", "::1"],
    ["url('https://[::1]:8080/a').getPort()", "8080"],
    ["url('https://example.com/a%20b').getEscapedPath()", "/a%20b"],
    ["url('https://example.com/p?x=1&x=2&y=').getQuery()['x'].join(',')", "1,2"],
    ["url('https://example.com').getScheme()", "https"],
    ["url('/path/only').getHost()", "failed rule: false"],
    ["isQuantity('1.5Gi')", "true"],
    ["isQuantity('1.5GG')", "false"],
    ["quantity('1.5Gi').isInteger()", "true"],
    ["quantity('1.5').isInteger()", "false"],
    ["quantity('1500m').asInteger()", "ERROR cannot convert value to integer"],
    ["quantity('1.5').asInteger()", "ERROR cannot convert value to integer"],
    ["quantity('1Gi').asApproximateFloat()", "1.073741824e+09"],
    ["quantity('1Gi').add(quantity('512Mi')).compareTo(quantity('1536Mi'))", "0"],
    ["quantity('1').add(2).isGreaterThan(quantity('2'))", "true"],
    ["quantity('1') == quantity('1000m')", "true"],
    ["sets.contains([1, 2, 3], [1, 2])", "true"],
    ["sets.equivalent([1, 2], [2, 1, 1])", "true"],
    ["sets.intersects([1], [2])", "false"],
    ["self.s.size()", "5"],
    ["duration('1h30m').getMinutes()", "90"],
    ["timestamp('2024-01-02T03:04:05Z').getFullYear()", "2024"],
    ["self.d.getSeconds()", "90"],
    ["self.t.getDayOfMonth()", "5"],
    ["self.ios + 1", "6"],
    ["self.ios == 'x'", "false"],
    ["self.?missing.orValue('dflt')", "dflt"],
    ["optional.of(1).hasValue()", "true"],
    ["self.q.find('[0-9]+')", "12"],
    ["int('12') + 1", "13"],
    ["1 / 0", "ERROR division by zero"],
    ["9223372036854775807 + 1", "ERROR integer overflow"],
    ["['a'][3]", "ERROR index out of bounds: 3"],
    ["{'a': 1}['b']", "ERROR no such key: b"],
    ["self.m.all(k, k != 'zz')", "true"],
    ["self.m.exists_one(k, self.m[k] == 'v1')", "true"],
    ["self.l.filter(x, x > 1).map(x, x * 2).sum()", "10"],
    ["type(1) == int", "true"],
    ["string(1.5)", "1.5"],
    ["double(1) / 2.0", "0.5"],
  ];
  for (const [expr, want] of cases) assert.equal(answer(expr), want, expr);
});

test('format, ip and cidr, and string formatting answer as kube-apiserver', () => {
  const cases: [string, string][] = [
    ["format.dns1123Label().validate('ok').hasValue()", "false"],
    ["format.named('nope').hasValue()", "false"],
    ["format.dns1123LabelPrefix().validate('abc-').hasValue()", "false"],
    ["isIP('10.0.0.1')", "true"],
    ["isIP('10.0.0.01')", "false"],
    ["isIP('::ffff:1.2.3.4')", "false"],
    ["isIP('fe80::1%eth0')", "false"],
    ["string(ip('2001:DB8:0:0:0:0:0:1'))", "2001:db8::1"],
    ["ip('10.0.0.1').family()", "4"],
    ["ip('::1').isLoopback()", "true"],
    ["ip('169.254.1.1').isLinkLocalUnicast()", "true"],
    ["ip('224.0.0.5').isLinkLocalMulticast()", "true"],
    ["ip('0.0.0.0').isUnspecified()", "true"],
    ["ip('8.8.8.8').isGlobalUnicast()", "true"],
    ["ip('10.0.0.1') == ip('10.0.0.1')", "true"],
    ["isCIDR('10.0.0.0/8')", "true"],
    ["isCIDR('10.0.0.0/33')", "false"],
    ["cidr('10.1.2.3/8').containsIP('10.200.0.1')", "true"],
    ["cidr('10.1.2.3/8').containsIP(ip('11.0.0.1'))", "false"],
    ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", "true"],
    ["cidr('10.0.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", "false"],
    ["string(cidr('10.1.2.3/8').masked())", "10.0.0.0/8"],
    ["string(cidr('10.1.2.3/8').ip())", "10.1.2.3"],
    ["cidr('2001:db8::/32').prefixLength()", "32"],
    ["string(cidr('2001:db8:ffff::1/32').masked())", "2001:db8::/32"],
    ["ip('bad')", "ERROR IP Address \"bad\" parse error during conversion from string: ParseAddr(\"bad\"): unable to parse IP"],
    ["cidr('bad')", "ERROR network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix(\"bad\"): no '/'"],
    ["'%s-%d'.format(['a', 1])", "a-1"],
    ["'%.2f|%e|%x|%X|%o|%b|%%'.format([3.14159, 1234.5, 255, 255, 8, 5])", "3.14|1.234500 × 10⁰³|ff|FF|10|101|%"],
    ["'%s'.format([[1, 2]])", "[1, 2]"],
    ["'%s'.format([true])", "true"],
    ["format.dns1123Label().validate('Bad_Name').value()[0]", "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"],
    ["format.named('dns1123Subdomain').value().validate('a..b').value()[0]", "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"],
    ["format.labelValue().validate('-x').value()[0]", "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"],
    ["format.qualifiedName().validate('a/b/c').value()[0]", "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"],
    ["format.dns1035Label().validate('1abc').value()[0]", "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"],
    ["format.uri().validate('not a uri').value()[0]", "parse \"not a uri\": invalid URI for request"],
    ["format.uuid().validate('123').value()[0]", "does not match the UUID format"],
    ["format.byte().validate('!!').value()[0]", "invalid base64"],
    ["format.date().validate('2024-13-01').value()[0]", "invalid date"],
    ["format.datetime().validate('2024-01-01').value()[0]", "invalid datetime"],
  ];
  for (const [expr, want] of cases) assert.equal(answer(expr), want, expr);
});

test('format() on literals is checked at compile time, as cel-go does', () => {
  const errs = (rule: string) =>
    compileValidationRules({ type: 'object', 'x-kubernetes-validations': [{ rule }] }, 'spec.validation.openAPIV3Schema').errors.map((e) => e.detail.split('\n')[0]);
  assert.deepEqual(errs("'%d'.format(['x']) == ''"), ['compilation failed: ERROR: <input>:1:14: error during formatting: decimal clause can only be used on integers, was given string']);
  assert.deepEqual(errs("'%s %s'.format(['only']) == ''"), ['compilation failed: ERROR: <input>:1:15: index 1 out of range']);
  assert.deepEqual(errs("'%f'.format([2]) == ''"), ['compilation failed: ERROR: <input>:1:14: error during formatting: fixed-point clause can only be used on doubles, was given int']);
  // format's argument list may mix types; other list literals may not
  assert.deepEqual(errs("'%s-%d'.format(['a', 1]) == 'a-1'"), []);
  assert.deepEqual(errs("['a', 1].size() == 2"), ["compilation failed: ERROR: <input>:1:7: expected type 'string' but found 'int'"]);
});

test('the general layer: declared variables, output types, references, runtime errors', () => {
  const env = new ExpressionEnvironment({ variables: { object: 'map<string, dyn>', params: 'dyn', limit: 'int' } });
  const ok = compileExpression("object.metadata.name.startsWith('a') && size(object.data) <= limit", env);
  assert.ok(ok.expression);
  assert.equal(ok.expression.outputType, 'bool');
  assert.deepEqual([...ok.expression.references].sort(), ['limit', 'object']);
  const data = new Map<string, unknown>([['metadata', new Map([['name', 'abc']])], ['data', new Map([['k', 'v']])]]);
  assert.equal(ok.expression.evaluate({ object: data, params: null, limit: 1n }), true);
  assert.equal(ok.expression.evaluate({ object: data, params: null, limit: 0n }), false);
  const bad = compileExpression('object.x + limit', env);
  assert.ok(bad.expression);
  assert.throws(() => bad.expression.evaluate({ object: new Map(), params: null, limit: 1n }), /^Error: no such key: x$/);
  const undeclared = compileExpression('request.name', env);
  assert.equal(undeclared.error?.message, "ERROR: <input>:1:1: undeclared reference to 'request' (in container '')\n | request.name\n | ^");
});

test('the general layer with a schema-typed variable, as ValidatingAdmissionPolicy will use it', async () => {
  const { schemaDeclType, celTypeName, objectTypes, celEquals, toCelValue, jsonToCel, estimateCost } = await import('../../../src/machinery/cel/index.js');
  const t = schemaDeclType({ type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } } }, true, 'Object')!;
  const env = new ExpressionEnvironment({ variables: { object: celTypeName(t), request: 'dyn' }, types: objectTypes(t), objectEquals: celEquals });
  const c = compileExpression("object.spec.replicas <= 5 && request.operation == 'CREATE' && object.metadata.name != ''", env);
  assert.ok(c.expression, c.error?.message);
  const obj = { apiVersion: 'v1', kind: 'X', metadata: { name: 'a' }, spec: { replicas: 3 } };
  assert.equal(c.expression.evaluate({ object: toCelValue(obj, t), request: jsonToCel({ operation: 'CREATE' }) }), true);
  assert.equal(c.expression.evaluate({ object: toCelValue({ ...obj, spec: { replicas: 9 } }, t), request: jsonToCel({ operation: 'CREATE' }) }), false);
  assert.ok(estimateCost(c.expression.ast, { object: t }) > 0);
  assert.equal(
    compileExpression('object.spec.replica > 1', env).error?.message,
    "ERROR: <input>:1:12: undefined field 'replica'\n | object.spec.replica > 1\n | ...........^",
  );
});

test("regular expressions are Go's (RE2), as cel-go's: semantics at run time", () => {
  // each answer is what kube-apiserver 1.32 printed; JavaScript's RegExp answers several differently
  const cases: [string, string][] = [
    ["'a\u2028b'.matches('a.b')", 'true'], // JS: '.' stops at U+2028
    ["'\u00a0'.matches('^\\\\s$')", 'false'], // JS: \s includes NBSP
    ["'abc'.matches('abc\\\\z')", 'true'],
    ["'aaa'.findAll('a*').size()", '1'], // Go drops the empty match abutting the previous one
    ["'baaab'.findAll('a*').size()", '3'],
    ["'ab'.findAll('').size()", '3'],
    ["'abc'.findAll('[a-c]', 2).size()", '2'],
    ["'abc'.findAll('[a-c]', 0).size()", '0'],
    ["'\u017f'.matches('(?i)s')", 'true'],
    ["'\u212a'.matches('(?i)k')", 'true'],
    ["'é'.matches('^\\\\w$')", 'false'],
    ["'x'.matches('^\\\\pL$')", 'true'],
    ["'ab'.matches('(?U)a+?')", 'true'],
    ["self.s.find('b|bc')", 'b'],
    ["self.s.matches('^(a|ab)(c|bcd)(d*)$')", 'false'],
    ["self.s.matches('^(a|ab)(c|bcb)(d*)$')", 'true'],
  ];
  for (const [expr, want] of cases) assert.equal(answer(expr), want, expr);
});

test('regular expressions: patterns Go refuses are refused when the CRD is created, with upstream texts', () => {
  const errs = (rule: string) =>
    compileValidationRules(
      { type: 'object', properties: { a: { type: 'string', maxLength: 10 } }, 'x-kubernetes-validations': [{ rule }] },
      'spec.validation.openAPIV3Schema',
    ).errors.map((e) => e.detail.split('\n')[0]);
  // matches(): the checker's error; find()/findAll(): the regexp error when the program is planned
  assert.deepEqual(errs("self.a.matches('(?=a)b')"), ['compilation failed: ERROR: <input>:1:16: invalid matches argument']);
  assert.deepEqual(errs("self.a.matches('(a)\\\\1')"), ['compilation failed: ERROR: <input>:1:16: invalid matches argument']);
  assert.deepEqual(errs("self.a.find('(?<=a)b') == ''"), ['program instantiation failed: error parsing regexp: invalid named capture: `(?<=a)b`']);
  assert.deepEqual(errs("self.a.findAll('[[:alpha:]') == []"), ['program instantiation failed: error parsing regexp: missing closing ]: `[[:alpha:]`']);
  // accepted by Go (JavaScript's RegExp refuses or misreads some of them)
  assert.deepEqual(errs("self.a.matches('a\\\\z')"), []);
  assert.deepEqual(errs("self.a.matches('(?P<n>a)\\\\pL')"), []);
  assert.deepEqual(errs('self.a.matches(self.a)'), []);
  // a pattern known only at run time fails when evaluated, with Go's message
  const { rules } = compileValidationRules(
    {
      type: 'object',
      properties: { a: { type: 'string', maxLength: 10 } },
      'x-kubernetes-validations': [{ rule: "'x'.matches(self.a)" }, { rule: "self.a.find(self.a) == ''" }],
    },
    'spec.validation.openAPIV3Schema',
  );
  assert.deepEqual(rules!.validate({ a: 'a++' }, undefined).map((e) => e.toString()), [
    '<nil>: Invalid value: "object": error parsing regexp: invalid nested repetition operator: `++` evaluating rule: \'x\'.matches(self.a)',
    '<nil>: Invalid value: "object": Illegal regex: error parsing regexp: invalid nested repetition operator: `++` evaluating rule: self.a.find(self.a) == \'\'',
  ]);
});
