/**
 * Rules about what an adapter says about itself: heartbeats, health, the list/info shapes, tool
 * names, input schemas and catalog size. They only read; no tool runs.
 */
import { AdapterClient } from '@toolhub/adapter-sdk';
import {
  ADAPTER_DISCOVERY_SUBJECT,
  ADAPTER_HEARTBEAT_SUBJECT,
  adapterHeartbeatSubject,
  AdapterHealthResponse,
  AdapterListResponse,
  checkContractCompatibility,
  isToolHubError,
  isValidToolName,
  normalizePath,
  type ToolInfo,
  type ToolSummary,
} from '@toolhub/contracts';

import type { Rule, RuleContext } from './types';

const client = (ctx: RuleContext) => new AdapterClient(ctx.bus);
const call = (ctx: RuleContext) => ({ timeoutMs: ctx.options.timeoutMs, requestId: 'conformance' });

/**
 * Waits for one heartbeat of the provider after asking every adapter to announce itself: on the
 * provider's own subject, or failing that on the legacy shared one (then `legacy` is true).
 */
async function awaitHeartbeat(ctx: RuleContext): Promise<{ h: AdapterHealthResponse; legacy: boolean } | undefined> {
  let resolve!: (got: { h: AdapterHealthResponse; legacy: boolean } | undefined) => void;
  const got = new Promise<{ h: AdapterHealthResponse; legacy: boolean } | undefined>((r) => (resolve = r));
  let legacyBeat: AdapterHealthResponse | undefined;
  const listen = (subject: string, legacy: boolean) =>
    ctx.bus.subscribe(subject, (msg) => {
      try {
        const h = AdapterHealthResponse.decode(msg.data);
        if (h.provider !== ctx.options.provider) return;
        if (legacy) legacyBeat ??= h;
        else resolve({ h, legacy: false });
      } catch {
        // Another adapter's malformed heartbeat is not this adapter's problem.
      }
    });
  const subs = [await listen(adapterHeartbeatSubject(ctx.options.provider), false), await listen(ADAPTER_HEARTBEAT_SUBJECT, true)];
  const timer = setTimeout(() => resolve(legacyBeat && { h: legacyBeat, legacy: true }), ctx.options.heartbeatWaitMs);
  try {
    ctx.bus.publish(ADAPTER_DISCOVERY_SUBJECT, new Uint8Array());
    return await got;
  } finally {
    clearTimeout(timer);
    for (const sub of subs) await sub.close();
  }
}

const heartbeat: Rule = {
  id: 'heartbeat',
  rule: 'publishes heartbeats on toolhub.v1.discovery.heartbeat.<provider> (answering a discovery ping) with its provider, an instance id, healthy, and a contract version this ToolHub serves',
  async check(ctx) {
    const got = await awaitHeartbeat(ctx);
    if (!got) return { problems: [`no heartbeat from provider ${ctx.options.provider} within ${ctx.options.heartbeatWaitMs} ms of a discovery ping`] };
    const { h, legacy } = got;
    const problems: string[] = [];
    if (legacy) problems.push(`heartbeats arrive only on the legacy shared subject ${ADAPTER_HEARTBEAT_SUBJECT}, which NATS users with ToolHub's permissions cannot publish on; publish on ${adapterHeartbeatSubject(ctx.options.provider)} (the SDK does)`);
    if (!h.instanceId) problems.push('the heartbeat has no instance_id');
    if (!h.healthy) problems.push(`the heartbeat says unhealthy: ${h.detail || '(no detail)'}`);
    if (!h.contractVersion) problems.push('the heartbeat has no contract_version (adapters from before versioning are served as 1.0.0; announce the version you build against)');
    const compat = checkContractCompatibility(h.contractVersion);
    if (!compat.compatible) problems.push(`contract version ${compat.announced} is ${compat.reason}`);
    ctx.facts.heartbeatToolCount = h.toolCount;
    ctx.facts.contractVersion = h.contractVersion;
    ctx.facts.sdkVersion = h.sdkVersion;
    return { problems, detail: `contract ${h.contractVersion || '(none)'}, ${h.sdkVersion || 'unknown SDK'}, instance ${h.instanceId}` };
  },
};

const health: Rule = {
  id: 'health',
  rule: 'answers toolhub.v1.adapter.<provider>.health with its own provider name',
  async check(ctx) {
    const h = await client(ctx).health(ctx.options.provider, call(ctx));
    return { problems: h.provider === ctx.options.provider ? [] : [`health answered for provider ${JSON.stringify(h.provider)}`] };
  },
};

function summaryProblems(provider: string, t: ToolSummary): string[] {
  const problems: string[] = [];
  if (t.provider !== provider) problems.push(`tool ${t.name}: provider is ${JSON.stringify(t.provider)}, not ${provider}`);
  if (t.id !== `${provider}:${t.name}`) problems.push(`tool ${t.name}: id is ${JSON.stringify(t.id)}, not ${provider}:${t.name}`);
  if (!t.summary) problems.push(`tool ${t.name}: empty summary`);
  return problems;
}

const list: Rule = {
  id: 'list.shape',
  rule: 'list returns categories and tool summaries (id <provider>:<name>, provider, summary); a category lists only tools inside it',
  async check(ctx) {
    const c = client(ctx);
    const all = await c.list(ctx.options.provider, '', true, call(ctx));
    ctx.facts.toolNames = all.tools.map((t) => t.name);
    ctx.facts.listBytes = AdapterListResponse.encode(all).finish().byteLength;
    const problems = all.tools.flatMap((t) => summaryProblems(ctx.options.provider, t));
    if (all.tools.length === 0) problems.push('the recursive list from the root has no tools');
    const root = await c.list(ctx.options.provider, '', false, call(ctx));
    for (const cat of root.categories.slice(0, 20)) {
      if (cat.toolCount <= 0) problems.push(`category ${cat.path}: tool_count is ${cat.toolCount}`);
      const inside = await c.list(ctx.options.provider, cat.path, true, call(ctx));
      const outside = inside.tools.filter((t) => t.path !== cat.path && !t.path.startsWith(`${cat.path}/`));
      if (outside.length) problems.push(`category ${cat.path} lists tools outside it: ${outside.map((t) => `${t.name} (${t.path})`).join(', ')}`);
    }
    return { problems, detail: `${all.tools.length} tools, ${root.categories.length} top-level categories` };
  },
};

const names: Rule = {
  id: 'names',
  rule: 'tool names match ^[a-z][a-z0-9_]{0,63}$ and are unique; paths are normalised (lower-case segments joined by /)',
  async check(ctx) {
    const all = await client(ctx).list(ctx.options.provider, '', true, call(ctx));
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const t of all.tools) {
      if (!isValidToolName(t.name)) problems.push(`tool name ${JSON.stringify(t.name)} does not match ^[a-z][a-z0-9_]{0,63}$`);
      if (seen.has(t.name)) problems.push(`tool name ${t.name} is listed twice`);
      seen.add(t.name);
      let normal: string | undefined;
      try {
        normal = normalizePath(t.path);
      } catch {
        normal = undefined;
      }
      if (normal !== t.path) problems.push(`tool ${t.name}: path ${JSON.stringify(t.path)} is not normalised${normal === undefined ? '' : ` (would be ${JSON.stringify(normal)})`}`);
    }
    return { problems, detail: `${all.tools.length} names` };
  },
};

/** Problems of one input schema: a JSON Schema object for the arguments object. */
export function schemaProblems(name: string, schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [`tool ${name}: input schema is not a JSON object`];
  const s = schema as { type?: unknown; properties?: unknown; required?: unknown };
  const problems: string[] = [];
  if (s.type !== 'object') problems.push(`tool ${name}: input schema type is ${JSON.stringify(s.type)}, not "object" (arguments are always an object)`);
  if (s.properties !== undefined && (typeof s.properties !== 'object' || s.properties === null || Array.isArray(s.properties))) {
    problems.push(`tool ${name}: properties is not an object`);
  }
  const props = (typeof s.properties === 'object' && s.properties !== null ? s.properties : {}) as Record<string, unknown>;
  for (const [key, sub] of Object.entries(props)) {
    if (typeof sub !== 'object' || sub === null || Array.isArray(sub)) problems.push(`tool ${name}: property ${key} has no schema object`);
  }
  if (s.required !== undefined) {
    if (!Array.isArray(s.required) || s.required.some((r) => typeof r !== 'string')) problems.push(`tool ${name}: required is not a list of names`);
    else for (const r of s.required as string[]) if (!(r in props)) problems.push(`tool ${name}: required names ${r}, which is not among its properties`);
  }
  return problems;
}

function infoProblems(provider: string, asked: string, t: ToolInfo): string[] {
  const problems: string[] = [];
  if (t.name !== asked) problems.push(`info for ${asked} returned tool ${JSON.stringify(t.name)}`);
  if (t.id !== `${provider}:${asked}`) problems.push(`tool ${asked}: id is ${JSON.stringify(t.id)}, not ${provider}:${asked}`);
  if (t.provider !== provider) problems.push(`tool ${asked}: provider is ${JSON.stringify(t.provider)}`);
  if (!t.description.trim()) problems.push(`tool ${asked}: empty description (say when to use it, what it returns, when not to)`);
  if (!t.version) problems.push(`tool ${asked}: empty version (a hash of the tool's content, so caches notice changes)`);
  return problems;
}

/** Fetches info for up to maxInfo tools, a few at a time. */
async function eachInfo(ctx: RuleContext, fn: (asked: string, t: ToolInfo) => string[]): Promise<{ problems: string[]; detail: string }> {
  const c = client(ctx);
  const targets = ctx.facts.toolNames.slice(0, ctx.options.maxInfo);
  const problems: string[] = [];
  for (let i = 0; i < targets.length; i += 8) {
    await Promise.all(
      targets.slice(i, i + 8).map(async (name) => {
        try {
          problems.push(...fn(name, await c.info(ctx.options.provider, name, call(ctx))));
        } catch (err) {
          problems.push(`info for listed tool ${name} failed: ${isToolHubError(err) ? `${err.code}: ${err.message}` : String(err)}`);
        }
      }),
    );
  }
  const more = ctx.facts.toolNames.length - targets.length;
  return { problems, detail: `${targets.length} tools checked${more > 0 ? ` (${more} more not checked; raise --max-info)` : ''}` };
}

const info: Rule = {
  id: 'info.shape',
  rule: 'info returns the tool asked for, with id <provider>:<name>, its provider, a description and a version',
  check: (ctx) => eachInfo(ctx, (asked, t) => infoProblems(ctx.options.provider, asked, t)),
};

const schema: Rule = {
  id: 'schema',
  rule: 'every input schema is a JSON Schema object of type "object" whose properties are schemas and whose required names are properties',
  check: (ctx) => eachInfo(ctx, (asked, t) => schemaProblems(asked, t.inputSchema)),
};

const catalog: Rule = {
  id: 'catalog.size',
  rule: 'the heartbeat counts the tools listed, and the whole catalog fits one list reply with room to spare (large catalogs)',
  async check(ctx) {
    const problems: string[] = [];
    const listed = ctx.facts.toolNames.length;
    if (ctx.facts.heartbeatToolCount !== undefined && ctx.facts.heartbeatToolCount !== listed) {
      problems.push(`the heartbeat says ${ctx.facts.heartbeatToolCount} tools, the list has ${listed}`);
    }
    const limit = Math.floor(ctx.bus.maxPayload * 0.8);
    if (ctx.facts.listBytes > limit) problems.push(`the recursive list is ${ctx.facts.listBytes} bytes, over 80% of the bus's ${ctx.bus.maxPayload}-byte limit: shorten summaries or split the provider`);
    return { problems, detail: `${listed} tools in ${ctx.facts.listBytes} bytes (bus limit ${ctx.bus.maxPayload})` };
  },
};

/** The read-only rules, in the order they run. */
export const CATALOG_RULES: readonly Rule[] = [heartbeat, health, list, names, info, schema, catalog];
