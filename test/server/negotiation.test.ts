import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStatusError } from '../../src/machinery/errors.js';
import { negotiateInput, negotiateOutput, parseAccept } from '../../src/server/negotiation.js';
import { DISCOVERY_RESTRICTIONS } from '../../src/server/discovery.js';

test('Accept ranges sort by q, then specificity, then order', () => {
  const ranges = parseAccept('*/*;q=0.5, application/yaml;q=0.9, application/json, text/*');
  assert.deepEqual(
    ranges.map((r) => `${r.type}/${r.subtype}`),
    ['application/json', 'text/*', 'application/yaml', '*/*'],
  );
});

test('a missing or empty Accept is JSON', () => {
  assert.equal(negotiateOutput(undefined).mediaType, 'application/json');
  assert.equal(negotiateOutput('').mediaType, 'application/json');
});

test('wildcards and q-values choose among JSON and YAML', () => {
  assert.equal(negotiateOutput('*/*').mediaType, 'application/json');
  assert.equal(negotiateOutput('application/*').mediaType, 'application/json');
  assert.equal(negotiateOutput('application/yaml').mediaType, 'application/yaml');
  assert.equal(negotiateOutput('application/json;q=0.5, application/yaml').mediaType, 'application/yaml');
  assert.equal(negotiateOutput('text/html, application/yaml;q=0.1').mediaType, 'application/yaml');
  assert.equal(negotiateOutput('application/json;q=0, application/yaml;q=0.1').mediaType, 'application/yaml');
});

test('an unsatisfiable Accept is 406 with upstream message', () => {
  assert.throws(
    () => negotiateOutput('text/html'),
    (err: unknown) =>
      isStatusError(err) &&
      err.code === 406 &&
      err.reason === 'NotAcceptable' &&
      err.message === 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
});

test('a watch cannot be served as YAML: 406 lists the stream types', () => {
  assert.throws(
    () => negotiateOutput('application/yaml', undefined, undefined, true),
    (err: unknown) => isStatusError(err) && err.code === 406 && err.message === 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
  );
  assert.equal(negotiateOutput('application/json;stream=watch', undefined, undefined, true).stream, 'watch');
});

test('conversions (as=Table) are skipped where the endpoint cannot convert, and taken where it can', () => {
  const kubectlGet = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
  const out = negotiateOutput(kubectlGet);
  assert.equal(out.mediaType, 'application/json');
  assert.equal(out.convert, undefined);
  assert.throws(() => negotiateOutput('application/json;as=Table;v=v1;g=meta.k8s.io'), (err: unknown) => isStatusError(err) && err.code === 406);

  const aggregated = negotiateOutput(
    'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    DISCOVERY_RESTRICTIONS,
  );
  assert.deepEqual(aggregated.convert, { group: 'apidiscovery.k8s.io', version: 'v2', kind: 'APIGroupDiscoveryList' });
});

test('request bodies: JSON by default, YAML, charset ignored, others 415', () => {
  assert.equal(negotiateInput(undefined), 'application/json');
  assert.equal(negotiateInput('application/json; charset=utf-8'), 'application/json');
  assert.equal(negotiateInput('application/yaml'), 'application/yaml');
  assert.throws(
    () => negotiateInput('text/plain'),
    (err: unknown) =>
      isStatusError(err) &&
      err.code === 415 &&
      err.message === 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
});
