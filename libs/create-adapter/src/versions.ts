/**
 * The exact versions of the published `@toolhub/*` packages a new adapter depends on: the ones
 * released together with this scaffold. A unit test (test/versions.test.ts) and
 * scripts/pack-packages.mjs fail when they differ from libs/<name>/package.json, so a release
 * never scaffolds against versions it did not publish.
 */
export const SCAFFOLD_VERSIONS = {
  '@toolhub/adapter-sdk': '0.2.0',
  '@toolhub/bus': '0.2.0',
  '@toolhub/contracts': '1.1.0',
  '@toolhub/adapter-conformance': '0.1.0',
} as const;

/** Third-party packages of the scaffold (ranges: the team upgrades them on its own schedule). */
export const THIRD_PARTY_VERSIONS = {
  '@opentelemetry/api': '^1.9.0',
  '@types/node': '^20.19.0',
  typescript: '^5.9.0',
} as const;

/** Provider names (the same rule as PROVIDER_NAME_PATTERN in @toolhub/contracts; kept here so `npm create` installs nothing else). */
export const PROVIDER_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
