/** `defineConfig()`: one declaration per app gives the parser and the list of variables it reads. */
import { z } from 'zod';
import {
  checkEnvName,
  describeDefault,
  envNameFor,
  loadFields,
  looksSecret,
  REDACTED,
  type ConfigRule,
  type FieldInfo,
  type LoadConfigOptions,
} from './fields';

/** One setting of an app. */
export interface ConfigEntry<S extends z.ZodType = z.ZodType> {
  /** Environment variable it is read from. @default the prefix + the key in SCREAMING_SNAKE_CASE */
  env?: string;
  /** Parses and checks the value (text from the environment, or an override); `.default()` sets the default. */
  schema: S;
  /** What it does, for docs and `--help`. */
  description: string;
  /**
   * Never echo the value (errors, `redact()`).
   * @default true when the key or variable name looks like a credential (password, secret, token, api key)
   */
  secret?: boolean;
}

/** The settings of an app, by key. */
export type ConfigSpec = Record<string, ConfigEntry>;

/** The parsed configuration of a spec. */
export type ConfigOf<S extends ConfigSpec> = { [K in keyof S]: z.output<S[K]['schema']> };

/** What overrides may hold: any input a field's schema accepts. */
export type ConfigInput<S extends ConfigSpec> = { [K in keyof S]?: z.input<S[K]['schema']> };

/** The zod shape of a spec. */
export type ConfigShape<S extends ConfigSpec> = { [K in keyof S]: S[K]['schema'] };

/** One environment variable an app reads: for docs, `--help`, and docker-compose / Helm consistency tests. */
export interface EnvVarInfo {
  /** Config key, e.g. `grpcPort`. */
  readonly key: string;
  /** Variable name, e.g. `TOOLHUB_GRPC_PORT`. */
  readonly env: string;
  readonly description: string;
  readonly secret: boolean;
  /** Unset is an error (the schema has no default and is not optional). */
  readonly required: boolean;
  /** The default as the text one would set the variable to (lists comma-joined), if any. */
  readonly default?: string;
}

/** Options of {@link defineConfig}. */
export interface DefineConfigOptions<S extends ConfigSpec> {
  /** Prefix of derived variable names (`TOOLHUB` or `TOOLHUB_`); explicit `env` names are used as is. @default '' */
  prefix?: string;
  /**
   * Cross-field rules, run once every field is valid; return the problems found (empty when fine).
   * @example (c) => (c.cache === 'redis' && !c.redisUrl ? [{ keys: ['redisUrl', 'cache'], message: 'set when cache is "redis"' }] : [])
   */
  check?: (config: ConfigOf<S>) => readonly ConfigRule<keyof S & string>[];
}

/** An app's configuration: its parser, its variables, and how to load and print it. */
export interface ConfigDefinition<S extends ConfigSpec> {
  readonly spec: S;
  /** The zod object for the whole configuration (field rules only; `check` runs in `load`). */
  readonly schema: z.ZodObject<ConfigShape<S>>;
  /** Every variable the app reads, in declaration order. */
  readonly vars: readonly EnvVarInfo[];
  /**
   * Loads the configuration: explicit overrides > environment > schema defaults.
   * @throws ConfigError listing every invalid or missing variable at once.
   */
  load(options?: LoadConfigOptions<ConfigInput<S>>): Readonly<ConfigOf<S>>;
  /** A copy safe to log: secret values replaced by `[REDACTED]`. */
  redact(config: Readonly<ConfigOf<S>>): Record<keyof S & string, unknown>;
}

const DEFINITION = Symbol('toolhub.config.definition');

/**
 * Declares an app's configuration in one place:
 * ```ts
 * export const dispatcherConfig = defineConfig({
 *   grpcPort: { env: 'TOOLHUB_GRPC_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50051), description: 'gRPC listen port' },
 *   runTimeoutMs: { schema: zDuration().default(30_000), description: 'Default tool run timeout' },
 * }, { prefix: 'TOOLHUB' });
 * const config = dispatcherConfig.load(); // { grpcPort: number; runTimeoutMs: number }
 * ```
 * @throws TypeError (a bug in the declaration) for an invalid or duplicated variable name.
 */
export function defineConfig<const S extends ConfigSpec>(spec: S, options: DefineConfigOptions<S> = {}): ConfigDefinition<S> {
  const fields: FieldInfo[] = [];
  const vars: EnvVarInfo[] = [];
  const seen = new Map<string, string>();
  for (const [key, entry] of Object.entries(spec)) {
    const env = entry.env ?? envNameFor(key, options.prefix);
    checkEnvName(env, key);
    const clash = seen.get(env);
    if (clash !== undefined) throw new TypeError(`config keys "${clash}" and "${key}" both read ${env}`);
    seen.set(env, key);
    const secret = entry.secret ?? looksSecret(key, env);
    fields.push({ key, env, secret });
    vars.push(Object.freeze({ key, env, description: entry.description, secret, ...describeDefault(entry.schema) }));
  }
  const shape = Object.fromEntries(Object.entries(spec).map(([key, entry]) => [key, entry.schema])) as ConfigShape<S>;
  const schema = z.object(shape) as unknown as z.ZodObject<ConfigShape<S>>;
  const check = options.check as ((config: unknown) => readonly ConfigRule[]) | undefined;
  const definition: ConfigDefinition<S> & { [DEFINITION]: true } = {
    [DEFINITION]: true,
    spec,
    schema,
    vars: Object.freeze(vars),
    load: (loadOptions = {}) =>
      loadFields(schema as z.ZodType<ConfigOf<S>>, fields, loadOptions as LoadConfigOptions, check),
    redact(config) {
      return Object.fromEntries(
        fields.map((f) => [f.key, f.secret && config[f.key] !== undefined ? REDACTED : config[f.key]]),
      ) as Record<keyof S & string, unknown>;
    },
  };
  return definition;
}

/** Whether `value` came from {@link defineConfig}. */
export function isConfigDefinition(value: unknown): value is ConfigDefinition<ConfigSpec> {
  return typeof value === 'object' && value !== null && DEFINITION in value;
}

/**
 * A Markdown table of the variables (variable, default, description) for READMEs; secrets and
 * required variables are marked.
 */
export function formatEnvTable(vars: readonly EnvVarInfo[]): string {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const rows = vars.map((v) => {
    const dflt = v.required ? '*(required)*' : v.default === undefined ? '' : `\`${cell(v.default)}\``;
    const note = v.secret ? ' (secret)' : '';
    return `| \`${v.env}\` | ${dflt} | ${cell(v.description)}${note} |`;
  });
  return ['| Variable | Default | Description |', '|---|---|---|', ...rows].join('\n');
}
