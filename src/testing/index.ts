// apiary/testing: a Kubernetes API server for tests, started in the test's
// process (see test-server.ts).

export { startTestServer, type TestServer, type TestServerOptions, type KubeconfigObject } from './test-server.js';
