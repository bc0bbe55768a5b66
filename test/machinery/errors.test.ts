import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invalid, notFound, staleResourceVersion, forbidden } from '../../src/machinery/errors.js';
import { fieldErrors } from '../../src/machinery/field-errors.js';

test('NotFound names the qualified resource as upstream does', () => {
  const err = notFound({ group: 'apps', resource: 'deployments' }, 'web');
  assert.equal(err.status.code, 404);
  assert.equal(err.status.message, 'deployments.apps "web" not found');
  assert.deepEqual(err.status.details, { kind: 'deployments', name: 'web', group: 'apps' });
});

test('Invalid aggregates field errors and lists one cause per field', () => {
  const err = invalid('', 'ConfigMap', 'Bad', [
    fieldErrors.invalid('metadata.name', 'Bad', 'a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters'),
    fieldErrors.required('data'),
  ]);
  assert.equal(err.status.code, 422);
  assert.equal(
    err.status.message,
    'ConfigMap "Bad" is invalid: [metadata.name: Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, data: Required value]',
  );
  assert.deepEqual(err.status.details?.causes?.[1], { reason: 'FieldValueRequired', message: 'Required value', field: 'data' });
});

test('Conflict and Forbidden messages', () => {
  assert.equal(
    staleResourceVersion({ group: '', resource: 'configmaps' }, 'a').message,
    'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
  );
  assert.equal(
    forbidden({ group: '', resource: 'namespaces' }, 'default', 'this namespace may not be deleted').message,
    'namespaces "default" is forbidden: this namespace may not be deleted',
  );
});
