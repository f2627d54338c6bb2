/**
 * The configuration file of the MCP adapter (YAML, or JSON — which is YAML too): which MCP servers
 * to run or reach, where their tools sit in the provider's tree, and how calls behave. Loaded and
 * checked in one go; every problem is reported at once, by path, without ever printing a value of
 * `env` or `headers`.
 */
import { zDuration } from '@toolhub/config';
import { type ImportanceName, normalizePath, PROVIDER_NAME_PATTERN } from '@toolhub/contracts';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { z } from 'zod';

import { McpConfigError, type McpConfigIssue } from './errors';
import { ALIAS_PATTERN } from './names';

/** Spawn a local server and talk JSON-RPC over its stdin/stdout. */
export interface StdioTransportConfig {
  readonly type: 'stdio';
  /** Absolute path or a name on PATH; `node` (and a `package`) run with ToolHub's own Node binary. */
  readonly command: string;
  readonly args: readonly string[];
  /** Added to a minimal inherited environment (HOME, PATH, ...). Values are secrets. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** Reach a running server over HTTP: Streamable HTTP, or the older HTTP+SSE transport. */
export interface HttpTransportConfig {
  readonly type: 'streamable-http' | 'sse';
  readonly url: string;
  /** Sent with every request (e.g. Authorization). Values are secrets. */
  readonly headers: Readonly<Record<string, string>>;
}

export type TransportConfig = StdioTransportConfig | HttpTransportConfig;

/** One configured MCP server, with every default filled in. */
export interface McpServerConfig {
  /** Prefix of its tool names (`<alias>_<tool>`); matches {@link ALIAS_PATTERN}. */
  readonly alias: string;
  /** Category path its tools are mounted at. @default alias */
  readonly mount: string;
  readonly transport: TransportConfig;
  /** Glob patterns (`*`, `?`) on native tool names; empty means every tool. */
  readonly include: readonly string[];
  readonly exclude: readonly string[];
  /** Upper bound and default of one call. @default 60000 */
  readonly timeoutMs: number;
  /** Bound on starting/connecting plus listing tools. @default 20000 */
  readonly connectTimeoutMs: number;
  /** `lazy`: connect on first use; `eager`: connect when the adapter starts. @default 'lazy' */
  readonly connect: 'lazy' | 'eager';
  /** Rename parameters to snake_case (mapped back on every run). @default the document's setting */
  readonly normalizeParams: boolean;
  /** Importance of its tools. @default 'normal' */
  readonly importance: ImportanceName;
  /** Most tools served from this server (sorted by name); the rest are quarantined. @default 1000 */
  readonly maxTools: number;
}

/** A loaded configuration document. */
export interface McpAdapterConfig {
  /** Provider name the tools are served under. @default 'mcp' */
  readonly provider: string;
  readonly servers: readonly McpServerConfig[];
  /**
   * Servers left out at load with why: a `package:` that is not installed where it is looked up
   * (the server's `cwd`, the config file's directory, ToolHub's working directory). The others
   * serve; each of these is reported in the catalog's quarantine and logged. @default []
   */
  readonly quarantined?: ReadonlyArray<{ alias: string; rule: string; reason: string }>;
}

/** Options of {@link parseMcpConfig} and {@link loadMcpConfig}. */
export interface McpConfigLoadOptions {
  /** Variables for `${NAME}` references. @default process.env */
  env?: Record<string, string | undefined>;
  /** Directory relative paths and `package` lookups start from. @default the file's directory, else cwd */
  baseDir?: string;
  /** Named in error messages. @default 'MCP configuration' */
  source?: string;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;

/** A real MCP server lists tens of tools; thousands means a mistake or a hostile server. */
export const DEFAULT_MAX_TOOLS = 1000;

const stringMap = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, 'names may use letters, digits, _, . and -'), z.string());
const headerMap = z.record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'not a valid HTTP header name'), z.string());
const globList = z.array(z.string().min(1, 'empty pattern'));

const common = {
  alias: z.string().regex(ALIAS_PATTERN, `must match ${ALIAS_PATTERN.source} (lowercase letter first, then lowercase letters, digits or _)`),
  mount: z.string().optional(),
  include: globList.optional(),
  exclude: globList.optional(),
  timeout: zDuration({ min: '1ms' }).optional(),
  connectTimeout: zDuration({ min: '1ms' }).optional(),
  connect: z.enum(['lazy', 'eager']).optional(),
  normalizeParams: z.boolean().optional(),
  importance: z.enum(['core', 'normal', 'low']).optional(),
  maxTools: z.number().int().min(1).max(100_000).optional(),
};

const stdioServer = z.strictObject({
  ...common,
  transport: z.literal('stdio'),
  command: z.string().min(1).optional(),
  package: z.string().min(1).optional(),
  bin: z.string().min(1).optional(),
  args: z.array(z.string()).default([]),
  env: stringMap.default({}),
  cwd: z.string().min(1).optional(),
});

const httpServer = (type: 'streamable-http' | 'sse') =>
  z.strictObject({
    ...common,
    transport: z.literal(type),
    url: z.string().refine((u) => /^https?:$/.test(safeUrl(u)?.protocol ?? ''), 'expected an http:// or https:// URL'),
    headers: headerMap.default({}),
  });

const serverSchema = z.discriminatedUnion('transport', [stdioServer, httpServer('streamable-http'), httpServer('sse')], {
  error: (issue) => (issue.code === 'invalid_union' ? 'transport must be "stdio", "streamable-http" or "sse"' : undefined),
});

const documentSchema = z.strictObject({
  provider: z.string().regex(PROVIDER_NAME_PATTERN, `must match ${PROVIDER_NAME_PATTERN.source}`).default('mcp'),
  normalizeParams: z.boolean().default(true),
  defaults: z
    .strictObject({
      timeout: zDuration({ min: '1ms' }).optional(),
      connectTimeout: zDuration({ min: '1ms' }).optional(),
      connect: z.enum(['lazy', 'eager']).optional(),
      importance: z.enum(['core', 'normal', 'low']).optional(),
      maxTools: z.number().int().min(1).max(100_000).optional(),
    })
    .default({}),
  servers: z.array(z.unknown()).default([]),
});

type RawServer = z.infer<typeof serverSchema>;

/**
 * Parses and checks a configuration document (YAML or JSON text).
 * @throws McpConfigError `unreadable` for a syntax error, `invalid` listing every problem by path.
 */
export function parseMcpConfig(text: string, options: McpConfigLoadOptions = {}): McpAdapterConfig {
  const source = options.source ?? 'MCP configuration';
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    // Only the first line of the parser's message: the rest quotes the source, which may hold secrets.
    const issues = doc.errors.map((e) => ({ path: e.linePos ? `line ${e.linePos[0].line}, column ${e.linePos[0].col}` : '', message: e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '') }));
    throw new McpConfigError('unreadable', `${source} is not valid YAML or JSON: ${issues.map((i) => `${i.message} (${i.path})`).join('; ')}`, issues);
  }
  return buildConfig(doc.toJS() ?? {}, options, source);
}

/**
 * Reads and checks a configuration file; relative paths in it resolve against its directory.
 * @throws McpConfigError `unreadable` when the file cannot be read or parsed, `invalid` otherwise.
 */
export function loadMcpConfig(file: string, options: McpConfigLoadOptions = {}): McpAdapterConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new McpConfigError('unreadable', `Cannot read MCP configuration ${file}: ${(err as Error).message}`, [], { cause: err });
  }
  if (!['.yaml', '.yml', '.json', ''].includes(extname(file).toLowerCase())) {
    throw new McpConfigError('unreadable', `MCP configuration ${file} should be a .yaml, .yml or .json file.`);
  }
  return parseMcpConfig(text, { baseDir: dirname(resolve(file)), source: file, ...options });
}

function buildConfig(raw: unknown, options: McpConfigLoadOptions, source: string): McpAdapterConfig {
  const env = options.env ?? process.env;
  const baseDir = options.baseDir ?? process.cwd();
  const issues: McpConfigIssue[] = [];
  const parsedDoc = documentSchema.safeParse(raw);
  let doc: z.infer<typeof documentSchema>;
  if (parsedDoc.success) {
    doc = parsedDoc.data;
  } else {
    issues.push(...zodIssues(parsedDoc.error, []));
    // Keep going with the servers, so one run reports every problem of the file.
    const rawServers = (raw as { servers?: unknown } | null)?.servers;
    doc = documentSchema.parse({ servers: Array.isArray(rawServers) ? rawServers : [] });
  }
  const servers: McpServerConfig[] = [];
  const quarantined: Array<{ alias: string; rule: string; reason: string }> = [];
  doc.servers.forEach((entry, i) => {
    const at: Array<string | number> = ['servers', i];
    const expanded = interpolate(entry, at, { ...env, configDir: baseDir }, issues);
    const parsed = serverSchema.safeParse(expanded);
    if (!parsed.success) {
      issues.push(...zodIssues(parsed.error, at));
      return;
    }
    // A package that is not installed is this server's problem, not the file's: it is quarantined
    // (with the places looked in) and the other servers serve; a malformed entry still fails the load.
    const missing: McpConfigIssue[] = [];
    const server = toServer(parsed.data, doc, baseDir, at, issues, missing);
    if (server) servers.push(server);
    for (const m of missing) quarantined.push({ alias: parsed.data.alias, rule: 'resolve', reason: m.message });
  });
  checkAliases(servers, issues);
  if (issues.length > 0) throw invalid(source, issues);
  return { provider: doc.provider, servers, quarantined };
}

function toServer(s: RawServer, d: z.infer<typeof documentSchema>, baseDir: string, at: Array<string | number>, issues: McpConfigIssue[], missing: McpConfigIssue[]): McpServerConfig | undefined {
  let mount = s.alias;
  try {
    mount = normalizePath(s.mount ?? s.alias);
  } catch (err) {
    issues.push({ path: formatPath([...at, 'mount']), message: (err as Error).message });
  }
  let transport: TransportConfig | undefined;
  if (s.transport === 'stdio') {
    transport = stdioTransport(s, baseDir, at, issues, missing);
  } else {
    transport = { type: s.transport, url: s.url, headers: s.headers };
  }
  if (!transport) return undefined;
  return {
    alias: s.alias,
    mount,
    transport,
    include: s.include ?? [],
    exclude: s.exclude ?? [],
    timeoutMs: s.timeout ?? d.defaults.timeout ?? DEFAULT_TIMEOUT_MS,
    connectTimeoutMs: s.connectTimeout ?? d.defaults.connectTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS,
    connect: s.connect ?? d.defaults.connect ?? 'lazy',
    normalizeParams: s.normalizeParams ?? d.normalizeParams,
    importance: s.importance ?? d.defaults.importance ?? 'normal',
    maxTools: s.maxTools ?? d.defaults.maxTools ?? DEFAULT_MAX_TOOLS,
  };
}

function stdioTransport(s: Extract<RawServer, { transport: 'stdio' }>, baseDir: string, at: Array<string | number>, issues: McpConfigIssue[], missing: McpConfigIssue[]): StdioTransportConfig | undefined {
  const cwd = s.cwd === undefined ? undefined : resolve(baseDir, s.cwd);
  if (s.command !== undefined && s.package !== undefined) {
    issues.push({ path: formatPath(at), message: 'set either command or package, not both' });
    return undefined;
  }
  if (s.bin !== undefined && s.package === undefined) {
    issues.push({ path: formatPath([...at, 'bin']), message: 'bin only applies together with package' });
    return undefined;
  }
  if (s.package !== undefined) {
    // Looked up from the server's own working directory first, then the config file's, then ToolHub's.
    const entry = resolvePackageBin(s.package, s.bin, [...(cwd ? [cwd] : []), baseDir, process.cwd()]);
    if (typeof entry !== 'string') {
      (entry.notInstalled ? missing : issues).push({ path: formatPath([...at, 'package']), message: entry.error });
      return undefined;
    }
    // The package's bin runs with ToolHub's own Node, so no PATH lookup and no npx process in between.
    return { type: 'stdio', command: process.execPath, args: [entry, ...s.args], env: s.env, cwd };
  }
  if (s.command === undefined) {
    issues.push({ path: formatPath([...at, 'command']), message: 'required for the stdio transport (or set package)' });
    return undefined;
  }
  const command = s.command === 'node' ? process.execPath : /^\.\.?\//.test(s.command) ? resolve(baseDir, s.command) : s.command;
  return { type: 'stdio', command, args: s.args, env: s.env, cwd };
}

/** The bin script of an installed npm package, looked up in node_modules above each start dir. */
function resolvePackageBin(pkg: string, bin: string | undefined, startDirs: string[]): string | { error: string; notInstalled?: boolean } {
  for (const start of startDirs) {
    for (let dir = resolve(start); ; dir = dirname(dir)) {
      const root = join(dir, 'node_modules', pkg);
      const manifest = join(root, 'package.json');
      if (existsSync(manifest)) {
        let json: { name?: string; bin?: string | Record<string, string> };
        try {
          json = JSON.parse(readFileSync(manifest, 'utf8')) as typeof json;
        } catch {
          return { error: `${manifest} is not valid JSON` };
        }
        const bins = typeof json.bin === 'string' ? { [pkg.split('/').pop()!]: json.bin } : (json.bin ?? {});
        const names = Object.keys(bins);
        const chosen = bin ?? (names.length === 1 ? names[0] : undefined);
        if (chosen === undefined || bins[chosen] === undefined) {
          return { error: names.length === 0 ? `package ${pkg} has no bin entry` : `package ${pkg} has bins ${names.join(', ')}; choose one with bin` };
        }
        return join(root, bins[chosen]);
      }
      if (dirname(dir) === dir) break;
    }
  }
  // The first directory tried under each start (its nearest node_modules), so the message names every place looked in.
  const firsts = startDirs.map((d) => join(resolve(d), 'node_modules', pkg));
  return { notInstalled: true, error: `package ${pkg} is not installed (looked in node_modules of ${[...new Set(firsts)].join(', ')} and their parents); run npm install ${pkg} in the server's cwd or beside the config file` };
}

/**
 * Replaces `${NAME}` and `${NAME:-default}` in every string of a server entry (except its alias);
 * `$${` is a literal `${`. An unset variable without a default is an issue naming the field.
 */
function interpolate(value: unknown, at: Array<string | number>, vars: Record<string, string | undefined>, issues: McpConfigIssue[]): unknown {
  if (typeof value === 'string') {
    if (at[at.length - 1] === 'alias') return value;
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
 * `gh_enterprise`, `gh_enterprise_x` could name either server's tool.
 */
function checkAliases(servers: McpServerConfig[], issues: McpConfigIssue[]): void {
  const seen = new Set<string>();
  for (const s of servers) {
    if (seen.has(s.alias)) issues.push({ path: `servers.${s.alias}`, message: `alias ${JSON.stringify(s.alias)} is used twice; aliases name tools and must be unique` });
    seen.add(s.alias);
  }
  for (const a of seen) {
    for (const b of seen) {
      if (b.startsWith(`${a}_`)) {
        issues.push({ path: `servers.${b}`, message: `aliases ${JSON.stringify(a)} and ${JSON.stringify(b)} would give ambiguous tool names (${b}_x could belong to either); rename one` });
      }
    }
  }
}

function zodIssues(error: z.ZodError, prefix: Array<string | number>): McpConfigIssue[] {
  return error.issues.map((issue) => ({ path: formatPath([...prefix, ...(issue.path as Array<string | number>)]), message: issue.message }));
}

function formatPath(path: ReadonlyArray<string | number>): string {
  return path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');
}

function invalid(source: string, issues: McpConfigIssue[]): McpConfigError {
  const lines = issues.map((i) => `  - ${i.path ? `${i.path}: ` : ''}${i.message}`);
  return new McpConfigError('invalid', `Invalid ${source} (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${lines.join('\n')}`, issues);
}

function safeUrl(u: string): URL | undefined {
  try {
    return new URL(u);
  } catch {
    return undefined;
  }
}
