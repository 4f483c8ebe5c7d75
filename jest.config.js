/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true, diagnostics: false }],
  },
  testTimeout: 60000,
  // DynamoDB Local (Java) and the CDK synth tests are heavy on a 2-core machine.
  maxWorkers: 2,
};
