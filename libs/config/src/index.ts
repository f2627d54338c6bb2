/**
 * @toolhub/config — typed environment configuration for ToolHub apps: declare each setting once
 * (variable, schema, default, description), load it with overrides > env > defaults, and get every
 * problem reported at once by variable name. Any new export added here becomes public API.
 */
export {
  defineConfig,
  isConfigDefinition,
  formatEnvTable,
  type ConfigEntry,
  type ConfigSpec,
  type ConfigOf,
  type ConfigInput,
  type ConfigShape,
  type ConfigDefinition,
  type DefineConfigOptions,
  type EnvVarInfo,
} from './define';
export { loadConfig, type LoadSchemaOptions } from './load';
export { SecretRedactor } from './redactor';
export { envNameFor, REDACTED, type ConfigRule, type EnvMap, type LoadConfigOptions } from './fields';
export { parseDuration, parseBoolean, zDuration, zBoolean, zList, type DurationBounds } from './parsers';
export { ConfigError, isConfigError, type ConfigIssue, type ConfigSource } from './errors';
