/**
 * The cloud adapter: HTTP APIs described by OpenAPI 3 documents behind ToolHub's three operations.
 * Everything is loaded and checked at start-up — documents, credentials, base URLs, allowlists —
 * so a bad configuration fails at once with every problem listed, and a run only builds and sends.
 */
import { type AdapterDefinition, listCatalog, type ListResult, type QuarantineEntry, type RunContext, type ToolResult, toolNotFound } from '@toolhub/adapter-sdk';
import type { ToolInfo } from '@toolhub/contracts';

import { classifyAddress } from './address';
import { NO_AUTH, type ResolvedAuth, resolveAuth } from './auth';
import { type DocumentRuntime, runOperation } from './call';
import { type CloudAdapterConfig, type CloudDocumentConfig, formatPath } from './config';
import { CloudConfigError, type CloudConfigIssue, issuesMessage } from './errors';
import { type HostRule, hostOf, matchHost, parseHostRule } from './hosts';
import { type HostResolver, SafeHttpClient } from './http';
import { type CloudLogger, silentLogger } from './logger';
import { type LoadedDocument, loadOpenApiDocument } from './openapi';
import { mapOperations, type OperationEntry } from './operations';
import { SecretRedactor as Redactor } from '@toolhub/config';

/** Options of {@link createCloudAdapter}. */
export interface CloudAdapterOptions {
  /** @default silent */
  logger?: CloudLogger;
  /** Where credential variables are read from. @default process.env */
  env?: Record<string, string | undefined>;
  /** Resolves host names for the address check. @default node:dns lookup (tests may play DNS) */
  resolver?: HostResolver;
}

/** An {@link AdapterDefinition} plus what start-up found and a way to close connections. */
export interface CloudAdapter extends AdapterDefinition {
  /**
   * Problems that did not stop start-up: operations skipped (unsupported body type), parameter
   * names left native after a collision, validation warnings. Each was also logged as a warning.
   */
  readonly problems: readonly string[];
  /**
   * What is left out, with why: documents that could not be read, parsed or resolved (the adapter
   * starts with the rest), and operations that cannot be served (an unsupported body type).
   * Announced with the catalog (`AdapterDefinition.quarantined`); each was logged once at start-up.
   */
  quarantined(): QuarantineEntry[];
  /** Closes idle HTTP connections. Idempotent. */
  close(): Promise<void>;
}

interface Tool {
  readonly entry: OperationEntry;
  readonly base: URL;
  readonly runtime: DocumentRuntime;
}

/**
 * Loads every document of `config` and builds the adapter.
 * A document that cannot be read, parsed or resolved is quarantined (logged, reported by
 * `quarantined()`) and the adapter starts with the rest.
 * @throws CloudConfigError `invalid` when a credential variable is unset or a base URL / allowlist
 *   cannot work. Every problem of every document is listed at once, by configuration path; no
 *   message contains a credential.
 */
export async function createCloudAdapter(config: CloudAdapterConfig, options: CloudAdapterOptions = {}): Promise<CloudAdapter> {
  const provider = config.provider;
  const log = options.logger ?? silentLogger;
  const env = options.env ?? process.env;
  const issues: CloudConfigIssue[] = [];
  const auths = config.documents.map((d, i) => resolveAuth(d, i, env, issues));
  if (issues.length > 0) throw new CloudConfigError('invalid', issuesMessage('Cloud adapter credentials are missing', issues), issues);
  const redactor = new Redactor(auths.flatMap((a) => a.secrets));

  const loaded = await Promise.all(
    config.documents.map(async (doc) => {
      const fetcher = /^https?:\/\//i.test(doc.source) ? documentClient(doc, options.resolver) : undefined;
      try {
        return await loadOpenApiDocument(doc.source, { validate: doc.validate, client: fetcher });
      } catch (err) {
        return err instanceof Error ? err : new Error(String(err));
      } finally {
        await fetcher?.close();
      }
    }),
  );
  // Reported in configuration order, whichever document finished loading first. One bad document
  // costs only its own tools.
  const quarantine: QuarantineEntry[] = [];
  loaded.forEach((l, i) => {
    if (!(l instanceof Error)) return;
    const doc = config.documents[i]!;
    const reason = redactor.message(l);
    quarantine.push({ source: doc.alias, rule: 'load', reason });
    log.warn({ provider, alias: doc.alias, source: doc.source, at: formatPath(['documents', i, 'source']), error: reason }, 'OpenAPI document quarantined: it could not be read, parsed or resolved; the other documents are served');
  });

  const problems: string[] = [];
  const tools = new Map<string, Tool>();
  const infos = new Map<string, ToolInfo>();
  const clients: SafeHttpClient[] = [];
  config.documents.forEach((doc, i) => {
    if (loaded[i] instanceof Error) return;
    const { document, refNames, warnings } = loaded[i] as LoadedDocument;
    for (const w of warnings) problems.push(`Document ${JSON.stringify(doc.alias)} (${doc.source}) has validation findings: ${w}`);
    const mapped = mapOperations(provider, document, { ...doc, refNames });
    problems.push(...mapped.problems);
    for (const skip of mapped.skipped) quarantine.push({ source: doc.alias, tool: skip.native, rule: skip.rule, reason: skip.reason });
    const bases = new Map<OperationEntry, URL>();
    for (const entry of mapped.entries) {
      const base = baseUrlOf(doc, entry, i, issues);
      if (base) bases.set(entry, base);
    }
    for (const base of new Set([...bases.values()].map((b) => b.origin))) {
      if (refusedLiteral(new URL(base))) problems.push(`Document ${JSON.stringify(doc.alias)} calls ${base}, a metadata or link-local address that is never called; every run of its tools will be refused.`);
    }
    const rules = allowlistOf(doc, [...bases.values()], i, issues);
    const runtime: DocumentRuntime = {
      alias: doc.alias,
      client: new SafeHttpClient(policyOf(doc, rules, auths[i]!), options.resolver),
      auth: auths[i]!,
      redactor,
      timeoutMs: doc.timeoutMs,
      retries: doc.retries,
      maxRequestBytes: doc.maxRequestBytes,
      maxResponseBytes: doc.maxResponseBytes,
      logger: log,
    };
    clients.push(runtime.client);
    for (const [entry, base] of bases) {
      tools.set(entry.info.name, { entry, base, runtime });
      infos.set(entry.info.name, entry.info);
    }
    log.info({ alias: doc.alias, title: mapped.title, tools: bases.size, hosts: rules.map((r) => r.text) }, 'OpenAPI document loaded');
  });
  if (issues.length > 0) {
    await Promise.all(clients.map((c) => c.close()));
    throw new CloudConfigError('invalid', issuesMessage('Invalid cloud adapter configuration', issues), issues);
  }
  for (const p of problems) log.warn({ provider }, p);

  let closed: Promise<void> | undefined;
  return {
    provider,
    problems,
    // serveAdapter redacts everything it sends and logs with it too (a backstop to the redaction here).
    redactor,
    quarantined() {
      return [...quarantine];
    },
    async catalog() {
      return [...infos.values()];
    },
    async listTools(path: string, recursive: boolean): Promise<ListResult> {
      return listCatalog(infos.values(), path, recursive);
    },
    async getToolInfo(name: string): Promise<ToolInfo> {
      const info = infos.get(name);
      if (!info) throw toolNotFound(provider, name, infos);
      return info;
    },
    async runTool(name: string, args: Record<string, unknown>, ctx: RunContext): Promise<ToolResult> {
      const tool = tools.get(name);
      if (!tool) throw toolNotFound(provider, name, infos);
      return runOperation(tool.entry, tool.base, args ?? {}, ctx, tool.runtime);
    },
    async health() {
      const bad = quarantine.filter((q) => q.tool === undefined).length;
      return { healthy: true, detail: `${config.documents.length - bad} OpenAPI document${config.documents.length - bad === 1 ? '' : 's'}, ${infos.size} tools${bad ? `; ${bad} quarantined` : ''}` };
    },
    close() {
      closed ??= Promise.all(clients.map((c) => c.close())).then(() => undefined);
      return closed;
    },
  };
}

/** The base URL of one operation: the configured override, else the document's server URL. */
function baseUrlOf(doc: CloudDocumentConfig, entry: OperationEntry, index: number, issues: CloudConfigIssue[]): URL | undefined {
  const at = formatPath(['documents', index, 'baseUrl']);
  const raw = doc.baseUrl ?? entry.serverUrl;
  const report = (message: string): undefined => {
    if (!issues.some((i) => i.path === at && i.message === message)) issues.push({ path: at, message });
    return undefined;
  };
  if (raw === undefined) return report(`document ${JSON.stringify(doc.alias)} declares no server; set baseUrl`);
  if (raw.includes('{')) return report(`server URL ${JSON.stringify(raw)} has a variable without a default; set baseUrl`);
  let url: URL;
  try {
    // A relative server URL ("/v1") is relative to where the document came from.
    url = /^https?:\/\//i.test(doc.source) ? new URL(raw, doc.source) : new URL(raw);
  } catch {
    return report(`server URL ${JSON.stringify(raw)} of document ${JSON.stringify(doc.alias)} is not absolute; set baseUrl`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return report(`server URL ${JSON.stringify(raw)} is not http(s); set baseUrl`);
  url.search = '';
  url.hash = '';
  return url;
}

/**
 * The hosts a document may call: as configured, or — when the file lists none — the hosts of its
 * base URLs. Listed hosts must cover the base URLs, or every call would be refused.
 */
function allowlistOf(doc: CloudDocumentConfig, bases: URL[], index: number, issues: CloudConfigIssue[]): HostRule[] {
  const at = formatPath(['documents', index, 'allowedHosts']);
  let rules = [...doc.allowedHosts];
  if (!doc.explicitHosts) {
    const seen = new Set<string>();
    for (const b of bases) {
      if (seen.has(b.host)) continue;
      seen.add(b.host);
      const rule = parseHostRule(b.host);
      if (typeof rule !== 'string') rules.push(rule);
    }
  } else {
    for (const b of bases) {
      const message = `the base URL host ${b.host} is not listed, so every call would be refused`;
      if (!matchHost(rules, b) && !issues.some((i) => i.path === at && i.message === message)) issues.push({ path: at, message });
    }
  }
  rules = rules.filter((r, i) => rules.findIndex((o) => o.text === r.text) === i);
  return rules;
}

function policyOf(doc: CloudDocumentConfig, rules: HostRule[], auth: ResolvedAuth) {
  return {
    alias: doc.alias,
    allowedHosts: rules,
    explicitHosts: doc.explicitHosts,
    maxRedirects: doc.maxRedirects,
    maxResponseBytes: doc.maxResponseBytes,
    credentialHeaders: auth.headerNames,
    credentialQuery: auth.queryNames,
  };
}

/** The client that fetches a URL source: only its host, which the operator named in the file. */
function documentClient(doc: CloudDocumentConfig, resolver: HostResolver | undefined): SafeHttpClient {
  const url = new URL(doc.source);
  const rule = parseHostRule(url.host);
  const rules = typeof rule === 'string' ? [] : [rule];
  return new SafeHttpClient({ ...policyOf(doc, rules, NO_AUTH), explicitHosts: true, maxResponseBytes: Math.max(doc.maxResponseBytes, 16 * 1024 * 1024) }, resolver);
}

/** True when a base URL is an IP literal the address check will always refuse (reported at start-up). */
function refusedLiteral(url: URL): boolean {
  const cls = classifyAddress(hostOf(url));
  return cls === 'metadata' || cls === 'link-local';
}
