// Vitest: npx vitest run --root examples/test-control-plane/vitest
import { afterAll, beforeAll, test } from 'vitest';
import { greetsAndFollows, namespaceGoesAway, setUp } from '../scenario.mjs';

let env;
beforeAll(async () => {
  env = await setUp();
});
afterAll(() => env.tearDown());

test('the greeter fills in and follows the greeting', () => greetsAndFollows(env), 20_000);
test('a deleted namespace goes away', () => namespaceGoesAway(env), 20_000);
