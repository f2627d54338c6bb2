// Two Jest projects: `unit` (fast, no services) and `integration` (real nats-server, Redis,
// MongoDB wire protocol, child processes). Both use @swc/jest for a fast TypeScript transform.
const { readFileSync } = require('node:fs');

const tsconfig = JSON.parse(readFileSync(`${__dirname}/tsconfig.base.json`, 'utf8'));
const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(tsconfig.compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace('/', '\\/')}$`] = `<rootDir>/${target}`;
}

const common = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }] },
  moduleNameMapper,
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  // jose (JWT) ships ESM only; Node 20.19+ require()s it natively, Jest needs it transformed.
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  // Staged npm packages (scripts/pack-packages.mjs) carry the same package names as libs/*.
  modulePathIgnorePatterns: ['<rootDir>/tmp/', '<rootDir>/dist/'],
};

module.exports = {
  // Many tests start servers, child processes or openssl and wait for outcomes with their own
  // deadlines (up to 30 s); Jest's 5 s default would cut them short on a busy 2-core CI machine.
  testTimeout: 30_000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{libs,apps,test,examples}/**/*.test.ts'], testPathIgnorePatterns: [...common.testPathIgnorePatterns, '\\.int\\.test\\.ts$'] },
    { ...common, displayName: 'integration', testMatch: ['<rootDir>/{libs,apps,test}/**/*.int.test.ts'] },
  ],
};
