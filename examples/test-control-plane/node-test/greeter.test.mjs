// node:test: node --test examples/test-control-plane/node-test/
import { after, before, test } from 'node:test';
import { greetsAndFollows, namespaceGoesAway, setUp } from '../scenario.mjs';

let env;
before(async () => (env = await setUp()));
after(() => env.tearDown());

test('the greeter fills in and follows the greeting', () => greetsAndFollows(env));
test('a deleted namespace goes away', () => namespaceGoesAway(env));
