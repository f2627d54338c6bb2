/**
 * The configuration of the cloud adapter (YAML, or JSON — which is YAML too): which OpenAPI
 * documents to serve, where their tools sit in the provider's tree, which hosts they may call, how
 * they authenticate and how calls behave. Checked in one go; every problem is reported at once, by
 * path. Credentials are never part of the file: it names the environment variables that hold them.
 */
import { zDuration } from '@toolhub/config';
import { type ImportanceName, normalizePath, PROVIDER_NAME_PATTERN } from '@toolhub/contracts';
import { readFileSync } from 'node:fs';
import { dirname, extname, isAbsolute, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';

import { CloudConfigError, type CloudConfigIssue, issuesMessage } from './errors';
import { type HostRule, parseHostRule } from './hosts';

/** Document aliases: a tool-name prefix, so the tool-name alphabet, and short enough to leave room. */
export const ALIAS_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;

/** `Authorization: Bearer <token>`. */
export interface BearerAuthConfig {
  readonly type: 'bearer';
  /** Environment variable holding the token. */
  readonly tokenEnv: string;
}

/** An API key sent in a header or a query parameter. */
export interface ApiKeyAuthConfig {
  readonly type: 'apiKey';
  readonly in: 'header' | 'query';
  /** Header or query parameter name, e.g. `X-API-Key` or `api_key`. */
  readonly name: string;
  /** Environment variable holding the key. */
  readonly valueEnv: string;
}

/** `Authorization: Basic base64(user:password)`. */
export interface BasicAuthConfig {
  readonly type: 'basic';
  readonly usernameEnv: string;
  readonly passwordEnv: string;
}

export type AuthConfig = BearerAuthConfig | ApiKeyAuthConfig | BasicAuthConfig;

/** One configured OpenAPI document, with every default filled in. */
export interface CloudDocumentConfig {
  /** Prefix of its tool names (`<alias>_<operation>`); matches {@link ALIAS_PATTERN}. */
  readonly alias: string;
  /** Absolute file path or http(s) URL of the OpenAPI 3.0/3.1 document. */
  readonly source: string;
  /** Replaces the document's `servers`. @default the first server of the document */
  readonly baseUrl?: string;
  /** Category path its tools are mounted at; each operation's first tag adds one level. @default alias */
  readonly mount: string;
  /** Add the first tag of an operation as a sub-category. @default true */
  readonly tagPaths: boolean;
  /**
   * Hosts the adapter may call for this document. Loopback and private addresses are only reached
   * through hosts listed here explicitly. @default the host of the base URL (public addresses only)
   */
  readonly allowedHosts: readonly HostRule[];
  /** True when `allowedHosts` was written in the file (not derived from the base URL). */
  readonly explicitHosts: boolean;
  readonly auth?: AuthConfig;
  /** Glob patterns (`*`, `?`) on operationIds (or `METHOD /path`); empty means every operation. */
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** Rename parameters to snake_case (mapped back on every run). @default the file's setting */
  readonly normalizeParams: boolean;
  /** Upper bound of one call, retries included. @default 30000 */
  readonly timeoutMs: number;
  /** Largest request body sent. @default 1048576 */
  readonly maxRequestBytes: number;
  /** Larger responses are cut, with a note saying so. @default 262144 (256 KiB) */
  readonly maxResponseBytes: number;
  /** Extra attempts after HTTP 429 or 503 (only while the deadline allows). @default 2 */
  readonly retries: number;
  /** Redirects followed per call (each hop is checked again). @default 5 */
  readonly maxRedirects: number;
  /** Importance of its tools. @default 'normal' */
  readonly importance: ImportanceName;
  /** Schema validation of the document: `error` refuses an invalid one, `warn` logs. @default 'warn' */
  readonly validate: 'error' | 'warn' | 'off';
  /** Values of the server URL's variables (`{region}`); unset ones take the document's defaults. @default {} */
  readonly serverVariables: Readonly<Record<string, string>>;
}

/** A loaded configuration. */
export interface CloudAdapterConfig {
  /** Provider name the tools are served under. @default 'cloud' */
  readonly provider: string;
  readonly documents: readonly CloudDocumentConfig[];
}

/** Options of {@link parseCloudConfig} and {@link loadCloudConfig}. */
export interface CloudConfigLoadOptions {
  /** Variables for `${NAME}` references in the file (not credentials: those are read at start). @default process.env */
  env?: Record<string, string | undefined>;
  /** Directory relative `source` paths start from. @default the file's directory, else cwd */
  baseDir?: string;
  /** Named in error messages. @default 'cloud adapter configuration' */
  source?: string;
}

const MiB = 1024 * 1024;
const DEFAULTS = { timeoutMs: 30_000, maxRequestBytes: MiB, maxResponseBytes: 256 * 1024, retries: 2, maxRedirects: 5, importance: 'normal', validate: 'warn' } as const;

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1000, kb: 1000, kib: 1024, m: 1e6, mb: 1e6, mib: MiB, g: 1e9, gb: 1e9, gib: 1024 * MiB };

/** A byte size: a number, or `512KiB`, `1MB`, `2 MiB`. */
const zSize = z.union([z.number().int().min(1), z.string()]).transform((v, ctx): number => {
  if (typeof v === 'number') return v;
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(v.trim());
  const unit = m ? SIZE_UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) * unit < 1) {
    ctx.addIssue({ code: 'custom', message: 'expected a size such as 65536, "512KiB" or "1MB"' });
    return z.NEVER;
  }
  return Math.round(Number(m[1]) * unit);
});

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected the name of an environment variable, e.g. PETSTORE_TOKEN');
const httpUrl = z.string().refine((u) => /^https?:$/.test(safeUrl(u)?.protocol ?? ''), 'expected an http:// or https:// URL');

const authSchema = z.discriminatedUnion(
  'type',
  [
    z.strictObject({ type: z.literal('bearer'), tokenEnv: envName }),
    z.strictObject({
      type: z.literal('apiKey'),
      in: z.enum(['header', 'query']),
      name: z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'expected a header or query parameter name'),
      valueEnv: envName,
    }),
    z.strictObject({ type: z.literal('basic'), usernameEnv: envName, passwordEnv: envName }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? 'auth.type must be "bearer", "apiKey" or "basic"' : undefined) },
);

const tuning = {
  timeout: zDuration({ min: '1ms' }).optional(),
  maxRequestBytes: zSize.optional(),
  maxResponseBytes: zSize.optional(),
  retries: z.number().int().min(0).max(10).optional(),
  maxRedirects: z.number().int().min(0).max(20).optional(),
  importance: z.enum(['core', 'normal', 'low']).optional(),
  validate: z.enum(['error', 'warn', 'off']).optional(),
};

const globList = z.array(z.string().min(1, 'empty pattern'));

const documentSchema = z.strictObject({
  alias: z.string().regex(ALIAS_PATTERN, `must match ${ALIAS_PATTERN.source} (lowercase letter first, then lowercase letters, digits or _)`),
  source: z.string().min(1, 'expected a file path or an http(s) URL'),
  baseUrl: httpUrl.optional(),
  mount: z.string().optional(),
  tagPaths: z.boolean().optional(),
  allowedHosts: z.array(z.string()).optional(),
  auth: authSchema.optional(),
  include: globList.optional(),
  exclude: globList.optional(),
  serverVariables: z.record(z.string().min(1), z.string()).optional(),
  normalizeParams: z.boolean().optional(),
  ...tuning,
});

const fileSchema = z.strictObject({
  provider: z.string().regex(PROVIDER_NAME_PATTERN, `must match ${PROVIDER_NAME_PATTERN.source}`).default('cloud'),
  normalizeParams: z.boolean().default(true),
  defaults: z.strictObject(tuning).default({}),
  documents: z.array(z.unknown()).nullish(),
});

type RawDocument = z.infer<typeof documentSchema>;
type RawFile = z.infer<typeof fileSchema>;

/**
 * Checks a configuration given as YAML/JSON text or as an already parsed object.
 * @throws CloudConfigError `unreadable` for a syntax error, `invalid` listing every problem by path.
 */
export function parseCloudConfig(input: string | object, options: CloudConfigLoadOptions = {}): CloudAdapterConfig {
  const source = options.source ?? 'cloud adapter configuration';
  let raw: unknown = input;
  if (typeof input === 'string') {
    const doc = parseDocument(input, { prettyErrors: true });
    if (doc.errors.length > 0) {
      // Only the first line of the parser's message: the rest quotes the source.
      const issues = doc.errors.map((e) => ({ path: e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '', message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '') }));
      throw new CloudConfigError('unreadable', `${source} is not valid YAML or JSON: ${issues.map((i) => `${i.message} (${i.path})`).join('; ')}`, issues);
    }
    raw = doc.toJS() ?? {};
  }
  return buildConfig(raw, options, source);
}

/**
 * Reads and checks a configuration file; relative `source` paths in it resolve against its directory.
 * @throws CloudConfigError `unreadable` when the file cannot be read or parsed, `invalid` otherwise.
 */
export function loadCloudConfig(file: string, options: CloudConfigLoadOptions = {}): CloudAdapterConfig {
  if (!['.yaml', '.yml', '.json'].includes(extname(file).toLowerCase())) {
    throw new CloudConfigError('unreadable', `Cloud adapter configuration ${file} should be a .yaml, .yml or .json file.`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CloudConfigError('unreadable', `Cannot read cloud adapter configuration ${file}: ${(err as Error).message}`, [], { cause: err });
  }
  return parseCloudConfig(text, { baseDir: dirname(resolve(file)), source: file, ...options });
}

function buildConfig(raw: unknown, options: CloudConfigLoadOptions, source: string): CloudAdapterConfig {
  const env = options.env ?? process.env;
  const baseDir = options.baseDir ?? process.cwd();
  const issues: CloudConfigIssue[] = [];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CloudConfigError('invalid', issuesMessage(`Invalid ${source}`, [{ path: '', message: 'expected a mapping with provider, defaults and documents' }]), []);
  }
  const parsedFile = fileSchema.safeParse(raw);
  let file: RawFile;
  if (parsedFile.success) {
    file = parsedFile.data;
  } else {
    issues.push(...zodIssues(parsedFile.error, []));
    // Keep going with the documents, so one run reports every problem of the file.
    const docs = (raw as { documents?: unknown }).documents;
    file = fileSchema.parse({ documents: Array.isArray(docs) ? docs : [] });
  }
  const documents: CloudDocumentConfig[] = [];
  const indices: number[] = [];
  (file.documents ?? []).forEach((entry, i) => {
    const at: Array<string | number> = ['documents', i];
    const before = issues.length;
    const expanded = interpolate(entry, at, { ...env, configDir: baseDir }, issues);
    if (issues.length > before) return; // an unset variable: its field's own checks would only add noise
    const parsed = documentSchema.safeParse(expanded);
    if (!parsed.success) {
      issues.push(...zodIssues(parsed.error, at));
      return;
    }
    const doc = toDocument(parsed.data, file, baseDir, at, issues);
    if (doc) {
      documents.push(doc);
      indices.push(i);
    }
  });
  checkAliases(documents, indices, issues);
  if (issues.length > 0) throw new CloudConfigError('invalid', issuesMessage(`Invalid ${source}`, issues), issues);
  return { provider: file.provider, documents };
}

function toDocument(d: RawDocument, file: RawFile, baseDir: string, at: Array<string | number>, issues: CloudConfigIssue[]): CloudDocumentConfig | undefined {
  const before = issues.length;
  let mount = d.alias;
  try {
    mount = normalizePath(d.mount ?? d.alias);
  } catch (err) {
    issues.push({ path: formatPath([...at, 'mount']), message: (err as Error).message });
  }
  const isUrl = /^https?:\/\//i.test(d.source);
  if (!isUrl && /^[a-z][a-z0-9+.-]*:\/\//i.test(d.source)) issues.push({ path: formatPath([...at, 'source']), message: 'expected a file path or an http(s) URL' });
  const sourcePath = isUrl ? d.source : isAbsolute(d.source) ? d.source : resolve(baseDir, d.source);
  const rules: HostRule[] = [];
  (d.allowedHosts ?? []).forEach((h, j) => {
    const rule = parseHostRule(h);
    if (typeof rule === 'string') issues.push({ path: formatPath([...at, 'allowedHosts', j]), message: rule });
    else rules.push(rule);
  });
  if (d.allowedHosts !== undefined && d.allowedHosts.length === 0) issues.push({ path: formatPath([...at, 'allowedHosts']), message: 'an empty allowlist would refuse every call; list at least one host, or leave it out to allow the base URL host' });
  if (d.baseUrl !== undefined) {
    const u = new URL(d.baseUrl);
    if (u.username || u.password) issues.push({ path: formatPath([...at, 'baseUrl']), message: 'must not contain credentials; use auth with environment variables' });
    if (u.search || u.hash) issues.push({ path: formatPath([...at, 'baseUrl']), message: 'must not contain a query or fragment' });
  }
  if (issues.length > before) return undefined;
  const t = { ...file.defaults, ...stripUndefined(d) };
  return {
    alias: d.alias,
    source: sourcePath,
    baseUrl: d.baseUrl,
    mount,
    tagPaths: d.tagPaths ?? true,
    allowedHosts: rules,
    explicitHosts: d.allowedHosts !== undefined,
    auth: d.auth,
    include: d.include ?? [],
    exclude: d.exclude ?? [],
    normalizeParams: d.normalizeParams ?? file.normalizeParams,
    timeoutMs: t.timeout ?? DEFAULTS.timeoutMs,
    maxRequestBytes: t.maxRequestBytes ?? DEFAULTS.maxRequestBytes,
    maxResponseBytes: t.maxResponseBytes ?? DEFAULTS.maxResponseBytes,
    retries: t.retries ?? DEFAULTS.retries,
    maxRedirects: t.maxRedirects ?? DEFAULTS.maxRedirects,
    importance: t.importance ?? DEFAULTS.importance,
    validate: t.validate ?? DEFAULTS.validate,
    serverVariables: d.serverVariables ?? {},
  };
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of a document entry (except its alias
 * and the names of credential variables); `$${` is a literal `${`. An unset variable without a
 * default is an issue naming the field.
 */
function interpolate(value: unknown, at: Array<string | number>, vars: Record<string, string | undefined>, issues: CloudConfigIssue[]): unknown {
  if (typeof value === 'string') {
    const key = at[at.length - 1];
    if (key === 'alias' || (typeof key === 'string' && key.endsWith('Env'))) return value;
    return value.replace(/\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (whole, escaped: string, name: string, fallback: string | undefined) => {
      if (escaped) return whole.slice(1);
      const v = vars[name];
      if (v !== undefined && v !== '') return v;
      if (fallback !== undefined) return fallback;
      issues.push({ path: formatPath(at), message: `environment variable ${name} is not set` });
      return '';
    });
  }
  if (Array.isArray(value)) return value.map((v, i) => interpolate(v, [...at, i], vars, issues));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, [...at, k], vars, issues)]));
  }
  return value;
}

/**
 * Aliases must be unique, and no alias may be another's prefix followed by `_`: with `gh` and
 * `gh_enterprise`, `gh_enterprise_x` could name either document's tool.
 */
function checkAliases(documents: CloudDocumentConfig[], indices: number[], issues: CloudConfigIssue[]): void {
  const seen = new Set<string>();
  documents.forEach((d, i) => {
    if (seen.has(d.alias)) issues.push({ path: `documents[${indices[i]}].alias`, message: `alias ${JSON.stringify(d.alias)} is used twice; aliases prefix tool names and must be unique` });
    seen.add(d.alias);
  });
  for (const a of seen) {
    for (const b of seen) {
      if (b.startsWith(`${a}_`)) issues.push({ path: `documents.${b}`, message: `aliases ${JSON.stringify(a)} and ${JSON.stringify(b)} would give ambiguous tool names (${b}_x could belong to either); rename one` });
    }
  }
}

function zodIssues(error: z.ZodError, prefix: Array<string | number>): CloudConfigIssue[] {
  return error.issues.map((issue) => ({ path: formatPath([...prefix, ...(issue.path as Array<string | number>)]), message: issue.message }));
}

/** `documents[1].auth.tokenEnv` from its segments. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function safeUrl(u: string): URL | undefined {
  try {
    return new URL(u);
  } catch {
    return undefined;
  }
}
