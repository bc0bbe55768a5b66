// ListOptions validation, as kube-apiserver 1.32's ListResource runs it before
// a list or watch touches storage (apimachinery's ValidateListOptions with the
// WatchList feature on): the rejected combinations of resourceVersionMatch,
// continue and sendInitialEvents are a 422 Invalid Status of kind
// ListOptions.meta.k8s.io with upstream's field errors.
//
// Contract: validateListOptions(query, watch) throws that StatusError or
// returns. Parsing of the values themselves (a non-numeric resourceVersion is
// 400, a malformed continue token 400) stays with the storage layer, as
// upstream's etcd3 store and cacher do it.

import { invalid } from '../machinery/errors.js';
import { type FieldError, fieldErrors } from '../machinery/field-errors.js';

function present(query: URLSearchParams, key: string): string {
  return query.get(key) ?? '';
}

export function validateListOptions(query: URLSearchParams, watch: boolean): void {
  const errors = watch ? watchErrors(query) : listErrors(query);
  if (errors.length > 0) throw invalid('meta.k8s.io', 'ListOptions', '', errors);
}

function listErrors(query: URLSearchParams): FieldError[] {
  const errors: FieldError[] = [];
  const match = present(query, 'resourceVersionMatch');
  const rv = present(query, 'resourceVersion');
  if (match !== '') {
    if (rv === '') {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    }
    if (present(query, 'continue') !== '') {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errors.push(fieldErrors.notSupported('resourceVersionMatch', match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && rv === '0') {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
    }
  }
  if (query.has('sendInitialEvents')) {
    errors.push(fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'));
  }
  return errors;
}

function watchErrors(query: URLSearchParams): FieldError[] {
  const errors: FieldError[] = [];
  const match = present(query, 'resourceVersionMatch');
  const sendInitialEvents = query.has('sendInitialEvents');
  if (sendInitialEvents && match !== 'NotOlderThan') {
    errors.push(fieldErrors.forbidden('resourceVersionMatch', 'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'));
  }
  if (match !== '') {
    if (!sendInitialEvents) {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    }
    if (match !== 'NotOlderThan') errors.push(fieldErrors.notSupported('resourceVersionMatch', match, ['NotOlderThan']));
    if (present(query, 'continue') !== '') {
      errors.push(fieldErrors.forbidden('resourceVersionMatch', 'resourceVersionMatch is forbidden when continue is provided'));
    }
  }
  return errors;
}
