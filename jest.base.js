// One jest setup for every workspace: TypeScript through ts-jest, and workspace packages
// resolved to their sources so unit tests never depend on a stale build.
const path = require('node:path');

module.exports = (dir) => ({
  rootDir: dir,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(dir, 'tsconfig.json') }] },
  moduleNameMapper: {
    '^@custos/(contracts|service-kit|policy-engine|test-kit|pep|cli)$': path.join(__dirname, 'packages/$1/src/index.ts'),
  },
  testTimeout: 30000,
});
