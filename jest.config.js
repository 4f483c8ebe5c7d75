/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // Types stripped per file by esbuild (scripts/jest-transform.cjs); `npm run build` type-checks.
  transform: {
    '^.+\\.ts$': '<rootDir>/scripts/jest-transform.cjs',
  },
  // One DynamoDB Local for the whole run (test/support/dynamodb.ts).
  globalSetup: '<rootDir>/test/support/jest-global-setup.ts',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.ts',
  testTimeout: 60000,
  // DynamoDB Local (Java) and the CDK synth tests are heavy on a 2-core machine.
  maxWorkers: 2,
};
