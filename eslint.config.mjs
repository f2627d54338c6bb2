import js from '@eslint/js';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'tmp/**', 'libs/contracts/src/gen/**', '**/*.js', '**/*.mjs', '.nx/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    // One program for the whole workspace: the project service opened one per lib/app tsconfig, each
    // pulling in every other lib through the path aliases, and ran out of heap past 4 GB.
    languageOptions: { parserOptions: { project: ['./tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'warn',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib'] },
            { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib'] },
            // Scopes: who may import whom (direct imports; scripts/check-boundaries.mjs proves what a
            // bundle reaches). The dispatcher never imports the registry's code or its store.
            { sourceTag: 'scope:contracts', onlyDependOnLibsWithTags: ['scope:contracts'] },
            { sourceTag: 'scope:platform', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:platform'] },
            { sourceTag: 'scope:agent', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:agent'] },
            { sourceTag: 'scope:adapter', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:platform', 'scope:ops', 'scope:adapter'] },
            {
              sourceTag: 'scope:dispatcher',
              onlyDependOnLibsWithTags: ['scope:contracts', 'scope:platform', 'scope:ops', 'scope:adapter', 'scope:agent', 'scope:dispatcher'],
              bannedExternalImports: ['mongodb', '@seald-io/nedb', 'pg', 'minisearch'],
            },
            { sourceTag: 'scope:registry', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:platform', 'scope:ops', 'scope:adapter', 'scope:agent', 'scope:registry'] },
            // Operations glue (health, metrics) is typed against both cores (type imports only).
            { sourceTag: 'scope:ops', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:platform', 'scope:adapter', 'scope:dispatcher', 'scope:registry'] },
          ],
        },
      ],
    },
  },
  {
    // The console's browser code has its own program (DOM types, JSX).
    files: ['libs/console/ui/**/*.ts', 'libs/console/ui/**/*.tsx'],
    languageOptions: { parserOptions: { project: ['./libs/console/ui/tsconfig.json'], tsconfigRootDir: import.meta.dirname } },
    plugins: { '@nx': nx },
    rules: { '@typescript-eslint/no-floating-promises': 'error', '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }] },
  },
  {
    // Database drivers live behind the backend entries (@toolhub/store/mongo, /embedded, @toolhub/cache/redis),
    // and only the apps that open a backend import those; a core lib works against the port.
    files: ['libs/**/src/**/*.ts'],
    ignores: ['libs/store/src/mongo.ts', 'libs/store/src/mongo/**', 'libs/store/src/embedded.ts', 'libs/store/src/embedded/**', 'libs/run-store/src/mongo.ts', 'libs/run-store/src/embedded.ts', 'libs/cache/src/redis-cache.ts', 'libs/test-harness/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'mongodb', message: 'Only libs/store/src/mongo/ talks to MongoDB; use the RegistryStore port from @toolhub/store.' },
            { name: '@seald-io/nedb', message: 'Only libs/store/src/embedded/ talks to NeDB; use the RegistryStore port from @toolhub/store.' },
            { name: '@toolhub/store/mongo', message: 'A lib works against the RegistryStore port; the app picks the backend (apps/registry).' },
            { name: '@toolhub/store/embedded', message: 'A lib works against the RegistryStore port; the app picks the backend (apps/toolhub).' },
            { name: 'ioredis', message: 'Only libs/cache/src/redis-cache.ts talks to Redis; use the Cache port (RedisCache from @toolhub/cache/redis in an app).' },
          ],
        },
      ],
    },
  },
  {
    files: ['libs/**/*.ts'],
    ignores: ['**/*.test.ts', 'libs/test-harness/**'],
    rules: { 'no-console': 'error' },
  },
  {
    // Examples and tests import their own package by its public name: they exercise the public API
    // exactly as another team would use it.
    files: ['libs/*/examples/**/*.ts', '**/test/**/*.ts', '**/*.test.ts'],
    rules: { '@nx/enforce-module-boundaries': 'off' },
  },
);
