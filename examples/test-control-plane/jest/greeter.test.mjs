// Jest (ESM): NODE_OPTIONS=--experimental-vm-modules npx jest --config examples/test-control-plane/jest/jest.config.mjs
import { afterAll, beforeAll, test } from '@jest/globals';
import { greetsAndFollows, namespaceGoesAway, setUp } from '../scenario.mjs';

let env;
beforeAll(async () => {
  env = await setUp();
});
afterAll(() => env.tearDown());

test('the greeter fills in and follows the greeting', () => greetsAndFollows(env), 20_000);
test('a deleted namespace goes away', () => namespaceGoesAway(env), 20_000);
