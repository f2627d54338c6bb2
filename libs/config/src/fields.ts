/**
 * The core of loading: read each field from overrides, then the environment, then the schema
 * default; validate everything at once; report every problem by environment variable name.
 * Internal: `defineConfig()` and `loadConfig()` build on it.
 */
import type { z } from 'zod';
import { ConfigError, type ConfigIssue, type ConfigSource } from './errors';

/** Environment map as `process.env` has it. */
export type EnvMap = Readonly<Record<string, string | undefined>>;

/** One configuration field and where it is read from. */
export interface FieldInfo {
  readonly key: string;
  readonly env: string;
  readonly secret: boolean;
}

/** A cross-field rule's verdict: which keys are in conflict and why. */
export interface ConfigRule<K extends string = string> {
  /** Keys involved; their environment variables are named in the error. */
  readonly keys: readonly K[];
  /** What is wrong and how to fix it, e.g. `redisUrl is required when cache is "redis"`. */
  readonly message: string;
}

/** Options every load takes. */
export interface LoadConfigOptions<I = Record<string, unknown>> {
  /** Environment to read. Empty values count as unset (as the OpenTelemetry spec has it). @default process.env */
  env?: EnvMap;
  /** Explicit values (e.g. from code or CLI flags); they win over the environment. `undefined` entries are ignored. @default {} */
  overrides?: Partial<I>;
}

export const REDACTED = '[REDACTED]';
const SECRET_NAME = /pass(word)?|secret|token|api_?key|credential|private_?key/i;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `grpcPort` → `GRPC_PORT`, `natsURL` → `NATS_URL`, with `prefix` (`TOOLHUB` or `TOOLHUB_`) in front. */
export function envNameFor(key: string, prefix = ''): string {
  const snake = key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
  const head = prefix === '' || prefix.endsWith('_') ? prefix : `${prefix}_`;
  return `${head}${snake}`;
}

/** Whether a name looks like it holds a credential; such values are never echoed in errors. */
export function looksSecret(...names: string[]): boolean {
  return names.some((n) => SECRET_NAME.test(n));
}

/** @throws TypeError for a name the shell could not export. */
export function checkEnvName(name: string, key: string): void {
  if (!ENV_NAME.test(name)) throw new TypeError(`config key "${key}": "${name}" is not a valid environment variable name`);
}

/**
 * The default of a field as the text one would put in its variable, or `undefined` when it has
 * none; `required` when an unset variable is an error.
 */
export function describeDefault(schema: z.ZodType): { required: boolean; default?: string } {
  const result = schema.safeParse(undefined);
  if (!result.success) return { required: true };
  return result.data === undefined ? { required: false } : { required: false, default: asEnvText(result.data) };
}

function asEnvText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object')) return value.join(',');
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/**
 * Builds the input from overrides > env > (absent, so the schema default applies), validates it
 * with `schema` and `check`, and returns the frozen result.
 * @throws ConfigError listing every problem.
 */
export function loadFields<T>(
  schema: z.ZodType<T>,
  fields: readonly FieldInfo[],
  options: LoadConfigOptions<Record<string, unknown>>,
  check?: (config: T) => readonly ConfigRule[],
): Readonly<T> {
  const env = options.env ?? process.env;
  const overrides = options.overrides ?? {};
  const input: Record<string, unknown> = {};
  const sources = new Map<string, ConfigSource>();
  for (const field of fields) {
    const override = overrides[field.key];
    const fromEnv = env[field.env];
    if (override !== undefined) {
      input[field.key] = override;
      sources.set(field.key, 'override');
    } else if (fromEnv !== undefined && fromEnv.trim() !== '') {
      input[field.key] = fromEnv;
      sources.set(field.key, 'env');
    } else {
      sources.set(field.key, 'default');
    }
  }

  const parsed = schema.safeParse(input);
  const byKey = new Map(fields.map((f) => [f.key, f]));
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const field = typeof issue.path[0] === 'string' ? byKey.get(issue.path[0]) : undefined;
        return field ? fieldIssue(field, sources.get(field.key) ?? 'default', input[field.key], issue.message) : { expected: issue.message, message: issue.message };
      }),
    );
  }
  const issues = (check?.(parsed.data) ?? []).map((rule) => ruleIssue(rule, byKey, sources, input));
  if (issues.length > 0) throw new ConfigError(issues);
  return Object.freeze(parsed.data);
}

function fieldIssue(field: FieldInfo, source: ConfigSource, raw: unknown, expected: string): ConfigIssue {
  const value = raw === undefined ? undefined : field.secret ? REDACTED : show(raw);
  let message: string;
  if (raw === undefined) message = `${field.env} is required but not set (${expected})`;
  else if (source === 'override') message = `${field.key}=${value} (explicit option, overrides ${field.env}): ${expected}`;
  else message = `${field.env}=${JSON.stringify(value)}: ${expected}`;
  return { key: field.key, env: field.env, source, ...(value === undefined ? {} : { value }), expected, message };
}

function ruleIssue(
  rule: ConfigRule,
  byKey: ReadonlyMap<string, FieldInfo>,
  sources: ReadonlyMap<string, ConfigSource>,
  input: Readonly<Record<string, unknown>>,
): ConfigIssue {
  const envs = rule.keys.map((k) => byKey.get(k)?.env ?? k);
  const first = rule.keys[0] === undefined ? undefined : byKey.get(rule.keys[0]);
  if (!first) return { expected: rule.message, message: rule.message };
  const raw = input[first.key];
  return {
    key: first.key,
    env: first.env,
    related: envs.slice(1),
    source: sources.get(first.key) ?? 'default',
    ...(raw === undefined ? {} : { value: first.secret ? REDACTED : show(raw) }),
    expected: rule.message,
    message: `${envs.join(' + ')}: ${rule.message}`,
  };
}

function show(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
