import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDepthError, MAX_JSON_DEPTH } from '../../src/machinery/json-depth.js';

const arrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('jsonDepthError', () => {
  it('refuses the shortest text one level too deep, and takes the deepest allowed', () => {
    assert.equal(jsonDepthError(arrays(MAX_JSON_DEPTH + 1)), "invalid character '[' exceeded max depth");
    assert.equal(jsonDepthError(arrays(MAX_JSON_DEPTH)), undefined);
  });

  it('names the opener that goes one level too deep, and skips strings', () => {
    const text = `{"a":"${'{'.repeat(3000)}","b":${'{"c":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`;
    assert.equal(jsonDepthError(text), "invalid character '{' exceeded max depth");
    const shallow = `{"a":"${'{['.repeat(3000)}","b":[1]}`;
    assert.equal(jsonDepthError(shallow), undefined);
  });
});
