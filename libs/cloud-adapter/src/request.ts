/**
 * Arguments → an HTTP request: path, query, header and cookie parameters serialised as the
 * document's `style`/`explode` say, and the body as JSON, form or text. Every path parameter is
 * percent-encoded, and a value that would change the host or the shape of the path (`..`, `/`,
 * `@`, `//host`) is encoded or refused, never interpreted.
 */
import { ToolHubError } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

import type { BodySpec, OperationEntry, ParamSpec } from './operations';

/** A request ready to send (credentials not yet added). */
export interface BuiltRequest {
  readonly method: string;
  readonly url: URL;
  /** Lowercase header names. */
  readonly headers: Record<string, string>;
  readonly body?: string;
}

type Native = Record<string, unknown>;

/** Control characters other than tab (CR and LF included), which are not allowed in a header value. */
function hasControlChar(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return true;
  }
  return false;
}

/**
 * Builds the request of one run from native (already mapped back) arguments.
 * @throws ToolHubError invalid_argument for unknown or missing arguments, values that cannot be
 *   sent (a path segment of `..`, a header with a line break), or a body over `maxRequestBytes`.
 */
export function buildRequest(entry: OperationEntry, base: URL, args: Native, maxRequestBytes: number, toAgent: (nativeKey: string) => string = (k) => k): BuiltRequest {
  const unknown = Object.keys(args).filter((k) => !entry.params.has(k) && k !== entry.body?.key);
  if (unknown.length > 0) {
    const known = [...entry.params.keys(), ...(entry.body ? [entry.body.key] : [])].map(toAgent);
    throw ToolHubError.invalidArgument(
      `Unknown argument${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => JSON.stringify(toAgent(k))).join(', ')} for ${entry.info.name}. ` + (known.length ? `It takes: ${known.join(', ')}.` : 'It takes no arguments.'),
      unknown.map((k) => ({ field: toAgent(k), message: 'not a parameter of this tool', expected: known.join(', ') })),
    );
  }
  const missing = [...entry.params.entries()].filter(([k, s]) => s.required && (args[k] === undefined || args[k] === null)).map(([k]) => k);
  if (entry.body?.required && args[entry.body.key] === undefined) missing.push(entry.body.key);
  if (missing.length > 0) {
    throw ToolHubError.invalidArgument(
      `Missing required argument${missing.length > 1 ? 's' : ''} ${missing.map((k) => JSON.stringify(toAgent(k))).join(', ')} for ${entry.info.name}; call tool_info for its schema.`,
      missing.map((k) => ({ field: toAgent(k), message: 'required' })),
    );
  }

  let path = entry.pathTemplate;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [key, spec] of entry.params) {
    const value = args[key];
    if (value === undefined) continue;
    const agentKey = toAgent(key);
    switch (spec.in) {
      case 'path':
        path = path.split(`{${spec.name}}`).join(pathValue(spec, value, agentKey));
        break;
      case 'query':
        for (const [k, v] of queryPairs(spec, value)) query.append(k, v);
        break;
      case 'header':
        headers[spec.name.toLowerCase()] = headerValue(spec, value, agentKey);
        break;
      case 'cookie':
        cookies.push(`${spec.name}=${encodeURIComponent(spec.json ? JSON.stringify(value) : scalarList(value).join(','))}`);
        break;
    }
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');

  const url = joinUrl(base, path);
  for (const [k, v] of query) url.searchParams.append(k, v);

  let body: string | undefined;
  if (entry.body && args[entry.body.key] !== undefined) {
    const serialized = serializeBody(entry.body, args[entry.body.key], toAgent(entry.body.key));
    body = serialized.body;
    // A Content-Type the caller chose from the document's enum (JSON or YAML) wins, except for
    // multipart, whose boundary only the adapter knows.
    if (headers['content-type'] === undefined || entry.body.kind === 'multipart') headers['content-type'] = serialized.contentType;
    const size = Buffer.byteLength(body);
    if (size > maxRequestBytes) {
      throw ToolHubError.invalidArgument(`The request body of ${entry.info.name} is ${size} bytes; at most ${maxRequestBytes} are sent. Send less data.`, [
        { field: toAgent(entry.body.key), message: 'too large', expected: `at most ${maxRequestBytes} bytes` },
      ]);
    }
  }
  return { method: entry.method, url, headers, body };
}

/**
 * The base URL's origin and path followed by `path`, checked to keep both: the URL parser folds
 * `.`/`..` segments, so a value that still changed the shape of the path is refused here.
 */
export function joinUrl(base: URL, path: string): URL {
  const basePath = base.pathname.replace(/\/+$/, '');
  const wanted = `${basePath}${path.startsWith('/') ? '' : '/'}${path}`;
  const url = new URL(`${base.origin}${wanted}`);
  if (url.origin !== base.origin || url.pathname.split('/').length !== wanted.split('/').length) {
    throw ToolHubError.invalidArgument(`The path ${JSON.stringify(wanted)} would leave the API's base URL; path parameters cannot contain "." or ".." segments.`, [{ field: 'path', message: 'changes the path structure' }]);
  }
  return url;
}

/** A path parameter (style simple, label or matrix), every part percent-encoded. */
export function pathValue(spec: Pick<ParamSpec, 'name' | 'style' | 'explode' | 'json'>, value: unknown, field = spec.name): string {
  let text: string;
  if (spec.json) text = encodeURIComponent(JSON.stringify(value));
  else if (isPlainObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(scalar(v))] as const);
    text = entries.map(([k, v]) => (spec.explode ? `${k}=${v}` : `${k},${v}`)).join(',');
  } else {
    text = scalarList(value).map(encodeURIComponent).join(',');
  }
  if (spec.style === 'label') text = `.${text}`;
  else if (spec.style === 'matrix') text = `;${encodeURIComponent(spec.name)}=${text}`;
  // encodeURIComponent leaves '.' alone, and the URL parser treats "." / ".." (and %2E forms) as
  // directory moves: refuse them rather than let a value walk up the API's path.
  if (/^(?:\.|%2e){1,2}$/i.test(text)) {
    throw ToolHubError.invalidArgument(`Path parameter ${JSON.stringify(field)} cannot be ${JSON.stringify(String(value))}: "." and ".." would change the request path.`, [
      { field, message: 'a dot segment', expected: 'a value other than "." or ".."' },
    ]);
  }
  if (text === '') throw ToolHubError.invalidArgument(`Path parameter ${JSON.stringify(field)} cannot be empty.`, [{ field, message: 'empty', expected: 'a non-empty value' }]);
  return text;
}

/** Query pairs of one parameter (style form, spaceDelimited, pipeDelimited or deepObject). */
export function queryPairs(spec: Pick<ParamSpec, 'name' | 'style' | 'explode' | 'json'>, value: unknown): Array<[string, string]> {
  if (spec.json) return [[spec.name, JSON.stringify(value)]];
  if (isPlainObject(value)) {
    if (spec.style === 'deepObject') return Object.entries(value).map(([k, v]) => [`${spec.name}[${k}]`, scalar(v)]);
    if (spec.explode) return Object.entries(value).map(([k, v]) => [k, scalar(v)]);
    return [[spec.name, Object.entries(value).flatMap(([k, v]) => [k, scalar(v)]).join(',')]];
  }
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    if (spec.style === 'spaceDelimited') return [[spec.name, items.join(' ')]];
    if (spec.style === 'pipeDelimited') return [[spec.name, items.join('|')]];
    return spec.explode ? items.map((v) => [spec.name, v]) : [[spec.name, items.join(',')]];
  }
  return [[spec.name, scalar(value)]];
}

function headerValue(spec: ParamSpec, value: unknown, field: string): string {
  const text = spec.json ? JSON.stringify(value) : isPlainObject(value) ? Object.entries(value).map(([k, v]) => (spec.explode ? `${k}=${scalar(v)}` : `${k},${scalar(v)}`)).join(',') : scalarList(value).join(',');
  // Line breaks would start a new header; other control characters are not valid in a header value.
  if (hasControlChar(text)) {
    throw ToolHubError.invalidArgument(`Header parameter ${JSON.stringify(field)} contains a line break or control character.`, [{ field, message: 'invalid header value', expected: 'printable text' }]);
  }
  return text;
}

function serializeBody(spec: BodySpec, value: unknown, field: string): { body: string; contentType: string } {
  if (spec.kind === 'json') return { body: JSON.stringify(value), contentType: spec.mediaType };
  if (spec.kind === 'text' || spec.kind === 'binary') {
    return { body: typeof value === 'string' ? value : JSON.stringify(value), contentType: spec.kind === 'text' ? `${spec.mediaType}; charset=utf-8` : spec.mediaType };
  }
  if (!isPlainObject(value)) throw ToolHubError.invalidArgument(`${JSON.stringify(field)} must be an object of form fields.`, [{ field, message: 'not an object', expected: 'object' }]);
  if (spec.kind === 'multipart') return multipartBody(value, spec.fileFields ?? new Map());
  const form = new URLSearchParams();
  for (const [k, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const item of v) form.append(k, scalar(item));
    else form.append(k, scalar(v));
  }
  return { body: form.toString(), contentType: spec.mediaType };
}

/**
 * multipart/form-data (RFC 7578): one part per field (arrays: one per item); objects as JSON
 * parts; file fields as file parts named after the field. Names are quoted with `"` and line
 * breaks escaped, so a value cannot start another part.
 */
function multipartBody(fields: Record<string, unknown>, files: ReadonlyMap<string, string>): { body: string; contentType: string } {
  const boundary = `toolhub-${randomUUID()}`;
  const quote = (s: string): string => s.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const parts: string[] = [];
  for (const [name, raw] of Object.entries(fields)) {
    if (raw === undefined) continue;
    for (const v of Array.isArray(raw) && !files.has(name) ? raw : [raw]) {
      const file = files.get(name);
      const isJson = typeof v === 'object' && v !== null;
      const head = [`Content-Disposition: form-data; name="${quote(name)}"${file ? `; filename="${quote(name)}"` : ''}`];
      if (file) head.push(`Content-Type: ${file}`);
      else if (isJson) head.push('Content-Type: application/json');
      parts.push(`--${boundary}\r\n${head.join('\r\n')}\r\n\r\n${isJson ? JSON.stringify(v) : scalar(v)}\r\n`);
    }
  }
  return { body: `${parts.join('')}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** One value as text: strings as they are, objects as JSON, null as empty. */
function scalar(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

function scalarList(value: unknown): string[] {
  return Array.isArray(value) ? value.map(scalar) : [scalar(value)];
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
