// ES modules as they are (no transform); run with NODE_OPTIONS=--experimental-vm-modules.
export default {
  testEnvironment: 'node',
  transform: {},
  testMatch: ['**/jest/*.test.mjs'],
};
