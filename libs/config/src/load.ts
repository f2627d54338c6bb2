/** `loadConfig()`: typed environment loading for a plain zod object or a `defineConfig()` definition. */
import type { z } from 'zod';
import { isConfigDefinition, type ConfigDefinition, type ConfigInput, type ConfigOf, type ConfigSpec } from './define';
import { envNameFor, loadFields, looksSecret, type FieldInfo, type LoadConfigOptions } from './fields';

/** Options of {@link loadConfig} for a plain zod object. */
export interface LoadSchemaOptions<I = Record<string, unknown>> extends LoadConfigOptions<I> {
  /** Prefix of the variable names derived from the keys (`TOOLHUB` → `grpcPort` reads `TOOLHUB_GRPC_PORT`). @default '' */
  prefix?: string;
}

/**
 * Loads a definition's configuration; same as `definition.load(options)`.
 * @throws ConfigError listing every invalid or missing variable at once.
 */
export function loadConfig<S extends ConfigSpec>(
  definition: ConfigDefinition<S>,
  options?: LoadConfigOptions<ConfigInput<S>>,
): Readonly<ConfigOf<S>>;
/**
 * Loads a configuration described by a zod object: each key is read from the variable named after
 * it (`prefix` + SCREAMING_SNAKE_CASE); precedence explicit overrides > environment > schema
 * defaults. The object's own refinements run too, and their issues name the variables.
 * Keys that look like credentials are never echoed in errors.
 * @throws ConfigError listing every invalid or missing variable at once.
 */
export function loadConfig<T extends z.ZodObject>(schema: T, options?: LoadSchemaOptions<z.input<T>>): Readonly<z.output<T>>;
export function loadConfig(
  source: ConfigDefinition<ConfigSpec> | z.ZodObject,
  options: LoadSchemaOptions<Record<string, unknown>> = {},
): unknown {
  if (isConfigDefinition(source)) return source.load(options);
  const fields: FieldInfo[] = Object.keys(source.shape).map((key) => {
    const env = envNameFor(key, options.prefix);
    return { key, env, secret: looksSecret(key, env) };
  });
  return loadFields(source, fields, options);
}
