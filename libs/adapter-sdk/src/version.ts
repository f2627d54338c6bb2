/**
 * The SDK's own name and version, announced in every heartbeat (`sdk_version`) so operators see
 * which SDK each replica runs. Kept equal to package.json by test/version.test.ts (a JSON import
 * would pull package.json into the built package's source tree).
 */
export const SDK_NAME = '@toolhub/adapter-sdk';
/** Semver of this SDK release. */
export const SDK_VERSION = '0.2.0';
