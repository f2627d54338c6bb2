/**
 * OpenAPI operations → tools. Each operation becomes one ToolInfo: its name from the operationId
 * (or method and path), its category from the first tag, one input schema holding every
 * parameter plus the request body (`body`), and a description that ends with what it returns.
 * Parameter names are snake_case for agents and mapped back to the document's names on each run.
 */
import { createParamNameMap, type JsonSchema, type ParamNameMap, renameParamsInText } from '@toolhub/adapter-sdk';
import { contentHash, type ImportanceName, importanceFromName, normalizePath, ToolHubError, type ToolInfo, toolId } from '@toolhub/contracts';

import { assignToolNames, nativeOperationName } from './names';
import { operationLead } from './operation-summary';
import { newScope, SchemaConverter } from './schema';

type Node = { [key: string]: unknown };
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export type ParamIn = 'path' | 'query' | 'header' | 'cookie';

/** How one parameter travels. */
export interface ParamSpec {
  readonly in: ParamIn;
  /** Its name in the document (and on the wire). */
  readonly name: string;
  readonly style: string;
  readonly explode: boolean;
  readonly required: boolean;
  /** Described with `content` (not `schema`): sent as JSON text. */
  readonly json: boolean;
}

/** How the request body travels. */
export interface BodySpec {
  /** Its key in the (native) arguments. */
  readonly key: string;
  readonly mediaType: string;
  readonly kind: 'json' | 'form' | 'text' | 'multipart' | 'binary';
  readonly required: boolean;
  /** Multipart fields sent as files (`format: binary`/`base64`, or `contentMediaType`): name → media type. */
  readonly fileFields?: ReadonlyMap<string, string>;
}

/** One operation as the adapter serves it. */
export interface OperationEntry {
  readonly alias: string;
  /** operationId, or `METHOD /path`. */
  readonly native: string;
  /** Uppercase HTTP method. */
  readonly method: string;
  /** The path template, e.g. `/pets/{petId}`. */
  readonly pathTemplate: string;
  /** Server URL the document gives this operation (variables filled with defaults), if any. */
  readonly serverUrl?: string;
  /** Native argument key → how it travels. */
  readonly params: ReadonlyMap<string, ParamSpec>;
  readonly body?: BodySpec;
  readonly info: ToolInfo;
  /** snake_case ↔ native argument names. */
  readonly names: ParamNameMap;
}

/** What {@link mapOperations} needs to know about the document's configuration. */
export interface MappingOptions {
  readonly alias: string;
  /** @default alias */
  readonly mount?: string;
  /** @default true */
  readonly tagPaths?: boolean;
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
  /** @default true */
  readonly normalizeParams?: boolean;
  /** @default 'normal' */
  readonly importance?: ImportanceName;
  /** @default 30000 */
  readonly timeoutMs?: number;
  /** Schema objects the parser put in place of `$ref`s, with their refs (names in summaries). */
  readonly refNames?: WeakMap<object, string>;
  /** Values of server variables (`{region}` in a server URL); others take their defaults. */
  readonly serverVariables?: Readonly<Record<string, string>>;
}

/** One operation left out of the catalog (quarantined), with the rule it broke and why. */
export interface SkippedOperation {
  /** operationId, or `METHOD /path`. */
  readonly native: string;
  readonly rule: string;
  readonly reason: string;
}

/** The tools of one document, plus what could not be mapped (reported at start-up). */
export interface MappedDocument {
  readonly title: string;
  readonly entries: OperationEntry[];
  /** Start-up problems: operations skipped, parameter names left native, undeclared path parameters. Never fatal. */
  readonly problems: string[];
  /** Operations left out, each also described in `problems`. */
  readonly skipped: SkippedOperation[];
}

const MAX_DESCRIPTION = 2000;
/** Credentials come from the configuration only, never from a parameter. */
const IGNORED_HEADERS = new Set(['authorization']);
/**
 * OpenAPI says `Accept`/`Content-Type` parameters are ignored, but real APIs declare them (often
 * required, with an enum: DigitalOcean's apps API takes JSON or YAML). They become optional
 * parameters: the adapter sends a value anyway (the body's media type, or JSON for Accept).
 */
const TRANSPORT_HEADERS = new Set(['accept', 'content-type']);

/**
 * Maps every operation of a dereferenced OpenAPI 3.x document to a tool of `provider`.
 * @throws ToolHubError invalid_argument when the document is not OpenAPI 3.x.
 */
export function mapOperations(provider: string, document: unknown, options: MappingOptions): MappedDocument {
  if (!isNode(document) || typeof document.openapi !== 'string' || !/^3\./.test(document.openapi)) {
    const swagger = isNode(document) && typeof document.swagger === 'string';
    throw ToolHubError.invalidArgument(
      swagger ? 'Swagger 2.0 documents are not supported; convert the document to OpenAPI 3 first.' : 'Not an OpenAPI 3.0/3.1 document: the `openapi` field is missing or not 3.x.',
      [{ field: 'openapi', message: 'expected 3.0.x or 3.1.x' }],
    );
  }
  const alias = options.alias;
  const mount = normalizePath(options.mount ?? alias);
  const converter = new SchemaConverter(document, options.refNames);
  const info = isNode(document.info) ? document.info : {};
  const title = typeof info.title === 'string' ? info.title : alias;
  const wanted = operationFilter(options.include ?? [], options.exclude ?? []);
  const problems: string[] = [];
  const skipped: SkippedOperation[] = [];

  interface Raw {
    native: string;
    method: string;
    path: string;
    op: Node;
    pathItem: Node;
  }
  const raws: Raw[] = [];
  const paths = isNode(document.paths) ? document.paths : {};
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isNode(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (!isNode(op)) continue;
      const native = nativeOperationName(method, path, op.operationId);
      if (!wanted(native, `${method.toUpperCase()} ${path}`)) continue;
      raws.push({ native, method: method.toUpperCase(), path, op, pathItem });
    }
  }
  const names = assignToolNames(alias, raws.map((r) => r.native));
  const entries: OperationEntry[] = [];
  for (const r of raws) {
    const name = names.toName.get(r.native)!;
    const context = { alias, mount, title, tagPaths: options.tagPaths ?? true, importance: options.importance ?? 'normal', timeoutMs: options.timeoutMs ?? 30_000, normalize: options.normalizeParams ?? true, serverVariables: options.serverVariables ?? {} };
    let built: ReturnType<typeof buildEntry>;
    try {
      built = buildEntry(provider, context, document, converter, r, name);
    } catch (err) {
      // Whatever one operation holds, it costs only that operation.
      built = { skip: { rule: 'mapping', reason: `Skipped operation ${JSON.stringify(r.native)} (${r.method} ${r.path}) of document ${JSON.stringify(alias)}: it could not be mapped (${(err as Error).message?.slice(0, 300)}).` } };
    }
    if ('skip' in built) {
      problems.push(built.skip.reason);
      skipped.push({ native: r.native, ...built.skip });
    } else {
      problems.push(...built.problems);
      entries.push(built.entry);
    }
  }
  return { title, entries, problems, skipped };
}

interface EntryContext {
  alias: string;
  mount: string;
  title: string;
  tagPaths: boolean;
  importance: ImportanceName;
  timeoutMs: number;
  normalize: boolean;
  serverVariables: Readonly<Record<string, string>>;
}

function buildEntry(
  provider: string,
  c: EntryContext,
  document: Node,
  converter: SchemaConverter,
  r: { native: string; method: string; path: string; op: Node; pathItem: Node },
  name: string,
): { entry: OperationEntry; problems: string[] } | { skip: { rule: string; reason: string } } {
  const where = `operation ${JSON.stringify(r.native)} (${r.method} ${r.path}) of document ${JSON.stringify(c.alias)}`;
  const problems: string[] = [];
  // Operation-level parameters override path-level ones with the same name and location.
  const declared = new Map<string, Node>();
  for (const p of [...asList(r.pathItem.parameters), ...asList(r.op.parameters)]) {
    if (isNode(p) && typeof p.name === 'string' && typeof p.in === 'string') declared.set(`${p.in}\u0000${p.name}`, p);
  }
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const scope = newScope();
  const params = new Map<string, ParamSpec>();
  for (const p of declared.values()) {
    const loc = p.in as string;
    const pname = p.name as string;
    if (!['path', 'query', 'header', 'cookie'].includes(loc)) continue;
    if (loc === 'header' && IGNORED_HEADERS.has(pname.toLowerCase())) continue;
    const transport = loc === 'header' && TRANSPORT_HEADERS.has(pname.toLowerCase());
    // The same name in two locations (`id` in path and query): the later one is keyed `<name>_<in>`.
    let key = pname;
    if (properties[key] !== undefined || key === 'body') key = `${pname}_${loc}`;
    const contentSchema = isNode(p.content) ? Object.values(p.content).find(isNode)?.schema : undefined;
    const schema = converter.convert(p.schema ?? contentSchema ?? { type: 'string' }, 'request', scope);
    const described: JsonSchema = { ...schema };
    const parts = [typeof p.description === 'string' && p.description.trim() ? p.description.trim() : typeof schema.description === 'string' ? schema.description : ''];
    if (loc === 'header' || loc === 'cookie' || key !== pname) parts.push(`(sent as ${loc} ${JSON.stringify(pname)})`);
    const text = parts.filter(Boolean).join(' ');
    if (text) described.description = text;
    if (p.deprecated === true) described.deprecated = true;
    if (p.example !== undefined && described.examples === undefined) described.examples = [p.example];
    properties[key] = described;
    // A transport header always gets a value from the adapter, so the caller need not give one.
    const isRequired = loc === 'path' || (p.required === true && !transport);
    if (isRequired) required.push(key);
    const style = typeof p.style === 'string' ? p.style : loc === 'query' || loc === 'cookie' ? 'form' : 'simple';
    params.set(key, { in: loc as ParamIn, name: pname, style, explode: typeof p.explode === 'boolean' ? p.explode : style === 'form', required: isRequired, json: p.schema === undefined && contentSchema !== undefined });
  }
  for (const m of r.path.matchAll(/\{([^}]+)\}/g)) {
    const pname = m[1]!;
    if ([...params.values()].some((s) => s.in === 'path' && s.name === pname)) continue;
    // The document forgot to declare it (it happens in real documents): a required string, as
    // the template says, rather than losing the operation.
    let key = pname;
    if (properties[key] !== undefined || key === 'body') key = `${pname}_path`;
    properties[key] = { type: 'string', description: `The {${pname}} part of the path (not described by the document).` };
    required.push(key);
    params.set(key, { in: 'path', name: pname, style: 'simple', explode: false, required: true, json: false });
    problems.push(`${where} uses {${pname}} in its path without describing it; it takes it as a required string parameter.`);
  }

  let body: BodySpec | undefined;
  const rb = isNode(r.op.requestBody) ? r.op.requestBody : undefined;
  if (rb && isNode(rb.content) && Object.keys(rb.content).length > 0) {
    const chosen = chooseMediaType(Object.keys(rb.content));
    if (!chosen) {
      return {
        skip: {
          rule: 'body_media_type',
          reason: `Skipped ${where}: its request body is ${Object.keys(rb.content).join(' or ')}, which the cloud adapter cannot send (supported: JSON, form-urlencoded, multipart/form-data, text/*, application/octet-stream as text).`,
        },
      };
    }
    const media = rb.content[chosen.key];
    const key = properties.body === undefined ? 'body' : 'request_body';
    const rawSchema = isNode(media) && media.schema !== undefined ? media.schema : undefined;
    const fileFields = chosen.kind === 'multipart' ? multipartFiles(rawSchema, isNode(media) ? media.encoding : undefined) : undefined;
    const schema =
      chosen.kind === 'text' || chosen.kind === 'binary'
        ? { type: 'string' }
        : converter.convert(rawSchema ?? {}, 'request', scope);
    const how =
      chosen.kind === 'binary'
        ? ` Sent as the raw ${chosen.mediaType} body (UTF-8 text).`
        : chosen.kind === 'multipart' && fileFields && fileFields.size > 0
          ? ` Sent as multipart/form-data; ${[...fileFields.keys()].join(', ')} ${fileFields.size === 1 ? 'is a file part' : 'are file parts'} whose text content is sent as given.`
          : '';
    const text = (typeof rb.description === 'string' && rb.description.trim() ? rb.description.trim() : `The request body, sent as ${chosen.mediaType}.`) + how;
    properties[key] = { ...schema, description: typeof schema.description === 'string' ? `${text} ${schema.description}` : text };
    body = { key, mediaType: chosen.mediaType, kind: chosen.kind, required: rb.required === true, ...(fileFields ? { fileFields } : {}) };
    if (body.required) required.push(key);
  }

  const inputSchema: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;
  if (Object.keys(scope.defs).length > 0) inputSchema.$defs = scope.defs;
  let names: ParamNameMap;
  try {
    names = createParamNameMap(inputSchema, { normalize: c.normalize, subject: `tool ${JSON.stringify(name)} (${where})` });
  } catch (err) {
    if (!(err instanceof ToolHubError)) throw err;
    // Reported at start-up; the tool stays usable with the document's own parameter names.
    problems.push(`${err.message} Its parameters keep their native names.`);
    names = createParamNameMap(inputSchema, { normalize: false });
  }

  // The summary and description name parameters as the schema does (`page_size`, not `pageSize`);
  // the path template and the response summary keep the document's spelling.
  const { description, outputDescription } = describe(r, c, converter, (text) => renameParamsInText(text, names.renames));
  const tags = asList(r.op.tags).filter((t): t is string => typeof t === 'string');
  const path = toolPath(c, tags);
  const method = r.method;
  const annotations = {
    readOnly: ['GET', 'HEAD', 'OPTIONS'].includes(method),
    destructive: method === 'DELETE' ? true : ['GET', 'HEAD', 'OPTIONS'].includes(method) ? false : undefined,
    idempotent: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(method),
    openWorld: true,
  };
  const importance: ImportanceName = r.op.deprecated === true ? 'low' : c.importance;
  const toolTags = ['openapi', c.alias, ...tags.map((t) => t.toLowerCase())];
  const described = { name, path, description, inputSchema: names.schema, outputDescription, importance, annotations, tags: toolTags, defaultTimeoutMs: c.timeoutMs };
  const info: ToolInfo = {
    id: toolId(provider, name),
    provider,
    name,
    path,
    description,
    inputSchema: names.schema,
    outputDescription,
    examples: [],
    importance: importanceFromName(importance),
    annotations,
    version: contentHash(described),
    tags: toolTags,
    defaultTimeoutMs: c.timeoutMs,
    ...(r.native !== name ? { sourceName: r.native } : {}),
  };
  const serverUrl = serverUrlOf(r.op.servers, c.serverVariables) ?? serverUrlOf(r.pathItem.servers, c.serverVariables) ?? serverUrlOf(document.servers, c.serverVariables);
  return { entry: { alias: c.alias, native: r.native, method, pathTemplate: r.path, serverUrl, params, body, info, names }, problems };
}

/**
 * Prefers JSON, then form-urlencoded, multipart/form-data, text, then raw octet-stream (sent as
 * text); undefined when none is offered. `key` is the media type as the document spells it.
 */
function chooseMediaType(types: string[]): { key: string; mediaType: string; kind: BodySpec['kind'] } | undefined {
  const base = (t: string): string => t.split(';')[0]!.trim().toLowerCase();
  const json = types.find((t) => /^application\/(?:[\w.-]+\+)?json$/.test(base(t))) ?? types.find((t) => base(t) === '*/*' || base(t) === 'application/*');
  if (json) return { key: json, mediaType: /^application\/(?:[\w.-]+\+)?json$/.test(base(json)) ? base(json) : 'application/json', kind: 'json' };
  const pick = (test: (b: string) => boolean, kind: BodySpec['kind']) => {
    const t = types.find((x) => test(base(x)));
    return t === undefined ? undefined : { key: t, mediaType: base(t), kind };
  };
  return (
    pick((b) => b === 'application/x-www-form-urlencoded', 'form') ??
    pick((b) => b === 'multipart/form-data', 'multipart') ??
    pick((b) => b === 'text/plain', 'text') ??
    pick((b) => b.startsWith('text/') || b === 'application/xml' || b === 'application/yaml' || b === 'application/x-yaml', 'text') ??
    pick((b) => b === 'application/octet-stream', 'binary')
  );
}

/** Multipart fields sent as file parts: `format: binary`/`base64`, `contentMediaType`, or an `encoding.contentType` that is not text. */
function multipartFiles(schema: unknown, encoding: unknown): Map<string, string> {
  const files = new Map<string, string>();
  const props = isNode(schema) && isNode(schema.properties) ? schema.properties : {};
  const enc = isNode(encoding) ? encoding : {};
  for (const [name, prop] of Object.entries(props)) {
    if (!isNode(prop)) continue;
    const declared = isNode(enc[name]) && typeof (enc[name] as Node).contentType === 'string' ? ((enc[name] as Node).contentType as string).split(',')[0]!.trim() : undefined;
    const isFile = prop.format === 'binary' || prop.format === 'base64' || typeof prop.contentMediaType === 'string';
    if (isFile) files.set(name, declared ?? (typeof prop.contentMediaType === 'string' ? prop.contentMediaType : 'application/octet-stream'));
  }
  return files;
}

/** The description (what it does, which call it makes, what it returns) and the output description. */
function describe(r: { method: string; path: string; op: Node }, c: EntryContext, converter: SchemaConverter, rename: (text: string) => string): { description: string; outputDescription: string } {
  const summary = typeof r.op.summary === 'string' ? rename(r.op.summary.trim()) : '';
  const long = typeof r.op.description === 'string' ? rename(r.op.description.trim()) : '';
  // The operation's own words first (banners and boilerplate skipped); without summary or
  // description, the operationId still says what it does (`getUserByName`).
  const { lead: first, rest } = operationLead(summary, long, typeof r.op.operationId === 'string' ? r.op.operationId : '');
  const lead = [first, rest].filter(Boolean).join(' ');
  const responses = isNode(r.op.responses) ? Object.entries(r.op.responses) : [];
  const lines: string[] = [];
  let returns = '';
  for (const [status, res] of responses) {
    if (!isNode(res)) continue;
    const content = isNode(res.content) ? Object.entries(res.content) : [];
    const media = content.find(([t]) => /json/i.test(t)) ?? content[0];
    const what = media && isNode(media[1]) && media[1].schema !== undefined ? `${media[0]}: ${converter.summarize(media[1].schema)}` : media ? media[0] : 'no body';
    const desc = typeof res.description === 'string' ? res.description.trim().replace(/\s+/g, ' ') : '';
    lines.push(`${status}${desc ? ` (${desc})` : ''}: ${what}`);
    if (!returns && /^2\d\d$|^2XX$/i.test(status)) returns = `Returns HTTP ${status} with ${media && isNode(media[1]) && media[1].schema !== undefined ? converter.summarize(media[1].schema, 300) : media ? media[0] : 'no body'}.`;
  }
  const deprecated = r.op.deprecated === true ? ' Deprecated: prefer another operation where one exists.' : '';
  const call = `Calls ${r.method} ${r.path} of ${c.title}.`;
  let description = `${lead}${deprecated} ${call}${returns ? ` ${returns}` : ''}`.replace(/\s+\n/g, '\n').trim();
  if (description.length > MAX_DESCRIPTION) description = `${description.slice(0, MAX_DESCRIPTION - 3)}...`;
  return { description, outputDescription: lines.length > 0 ? `Responses by HTTP status — ${lines.join('; ')}` : '' };
}

/** mount, plus the first tag as a sub-category when tagPaths is on. */
function toolPath(c: EntryContext, tags: string[]): string {
  const tag = c.tagPaths ? tags[0] : undefined;
  const seg = tag === undefined ? '' : tag.toLowerCase().replace(/[^a-z0-9_-]+/g, '_').replace(/^[_-]+|_+$/g, '').slice(0, 64);
  return seg ? normalizePath(c.mount ? `${c.mount}/${seg}` : seg) : c.mount;
}

/** The first server URL of a `servers` list, variables replaced by the configured values, else their defaults. */
export function serverUrlOf(servers: unknown, values: Readonly<Record<string, string>> = {}): string | undefined {
  const first = asList(servers).find(isNode);
  if (!first || typeof first.url !== 'string') return undefined;
  const vars = isNode(first.variables) ? first.variables : {};
  return first.url.replace(/\{([^}]+)\}/g, (whole, v: string) => {
    if (Object.hasOwn(values, v)) return values[v]!;
    const spec = vars[v];
    return isNode(spec) && spec.default !== undefined ? String(spec.default) : whole;
  });
}

function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** A matcher for include/exclude globs on the native name or `METHOD /path`. */
export function operationFilter(include: readonly string[], exclude: readonly string[]): (native: string, methodPath: string) => boolean {
  const compile = (patterns: readonly string[]) => patterns.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`));
  const inc = compile(include);
  const exc = compile(exclude);
  const any = (rs: RegExp[], a: string, b: string): boolean => rs.some((r) => r.test(a) || r.test(b));
  return (native, methodPath) => (inc.length === 0 || any(inc, native, methodPath)) && !any(exc, native, methodPath);
}
