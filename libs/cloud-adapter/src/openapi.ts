/**
 * Loading OpenAPI documents with @readme/openapi-parser (the maintained fork of swagger-parser):
 * from a file, every `$ref` — into the same file or into files beside it — is resolved offline;
 * from a URL, the document is fetched through the adapter's own guarded HTTP client and its
 * internal `$ref`s are resolved. Recursive schemas keep their `$ref` (see schema.ts).
 */
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { ToolHubError } from '@toolhub/contracts';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

import type { SafeHttpClient } from './http';

/**
 * A file resolver for the parser that reads every file of a document — the entry file and each
 * one a relative `$ref` names — with the `yaml` package, leniently. Used only when the parser's own
 * reader (js-yaml) refused a document: real vendor documents have duplicate keys and YAML 1.1
 * quirks that js-yaml rejects and most YAML tools read (the last of duplicate keys wins).
 */
const LENIENT_FILE_RESOLVER = {
  order: 100,
  canRead(file: { url: string }): boolean {
    return file.url.startsWith('file:') || !/^[a-z][a-z0-9+.-]+:/i.test(file.url);
  },
  async read(file: { url: string }): Promise<unknown> {
    let path = file.url;
    if (path.startsWith('file:')) path = fileURLToPath(path);
    else {
      try {
        path = decodeURI(path);
      } catch {
        // Not percent-encoded: use as is.
      }
    }
    const text = await readFile(path.replace(/[/\\]$/, ''), 'utf8');
    if (/\.json$/i.test(path)) {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // JSON with YAML-only slips (comments, trailing commas are not YAML either): try YAML.
      }
    }
    return parseLenientYaml(text);
  },
};

/**
 * Reads YAML (or JSON) text the way most YAML tools do: duplicate keys allowed (the last wins),
 * aliases bounded. @throws Error when the text is not YAML at all.
 */
export function parseLenientYaml(text: string): unknown {
  return parseYaml(text, { uniqueKeys: false, maxAliasCount: 10_000, strict: false, prettyErrors: false });
}

/** A parsed, dereferenced document. */
export interface LoadedDocument {
  readonly document: Record<string, unknown>;
  /** Schema objects substituted for `$ref`s, with the ref they came from. */
  readonly refNames: WeakMap<object, string>;
  /** Validation findings when `validate` is `warn` (empty otherwise). */
  readonly warnings: readonly string[];
}

/** Options of {@link loadOpenApiDocument}. */
export interface LoadDocumentOptions {
  /** @default 'warn' */
  validate?: 'error' | 'warn' | 'off';
  /** Fetches a URL source (required for URL sources). */
  client?: SafeHttpClient;
  /** Bound on fetching a URL source. @default 20000 */
  timeoutMs?: number;
}

/**
 * Reads, validates and dereferences one OpenAPI document.
 * @throws Error with a message naming the source and what is wrong (unreadable, not OpenAPI,
 *   invalid with `validate: 'error'`, a `$ref` that points nowhere).
 */
export async function loadOpenApiDocument(source: string, options: LoadDocumentOptions = {}): Promise<LoadedDocument> {
  const isUrl = /^https?:\/\//i.test(source);
  const input: string | Record<string, unknown> = isUrl ? await fetchDocument(source, options) : source;
  try {
    return await loadWith(source, input, isUrl, options, false);
  } catch (err) {
    if (isUrl) throw err;
    // The fallback reader, then the first error if that fails too (it names what js-yaml refused).
    let second: LoadedDocument;
    try {
      second = await loadWith(source, input, isUrl, options, true);
    } catch {
      throw err;
    }
    const why = (err as Error).message.split('\n')[0]!.slice(0, 300);
    return { ...second, warnings: [`read with the lenient YAML reader (duplicate keys: the last wins) after the standard one refused it: ${why}`, ...second.warnings] };
  }
}

async function loadWith(source: string, input: string | Record<string, unknown>, isUrl: boolean, options: LoadDocumentOptions, lenient: boolean): Promise<LoadedDocument> {
  const warnings: string[] = [];
  const mode = options.validate ?? 'warn';
  const resolve = lenient ? { external: true, file: LENIENT_FILE_RESOLVER } : { external: !isUrl };
  if (mode !== 'off') {
    // validate() mutates an object input; give it a copy.
    const result = await validate(typeof input === 'string' ? input : (structuredClone(input) as never), { resolve } as never);
    if (!result.valid) {
      const text = compileErrors(result);
      if (mode === 'error') throw new Error(`${source} is not a valid OpenAPI document: ${text}`);
      warnings.push(text);
    } else if (result.warnings.length > 0) {
      warnings.push(...result.warnings.map((w) => w.message));
    }
  }
  const refNames = new WeakMap<object, string>();
  const document = (await dereference(input as never, {
    resolve: resolve as never,
    dereference: {
      circular: 'ignore',
      onDereference: (ref, value) => {
        if (typeof value === 'object' && value !== null) refNames.set(value, ref);
      },
    },
  })) as unknown as Record<string, unknown>;
  if (typeof document !== 'object' || document === null || typeof document.openapi !== 'string' || !/^3\./.test(document.openapi)) {
    const swagger = typeof document === 'object' && document !== null && 'swagger' in document;
    throw new Error(`${source} is ${swagger ? 'a Swagger 2.0 document; convert it to OpenAPI 3 first' : 'not an OpenAPI 3.0/3.1 document (no "openapi: 3.x" field)'}.`);
  }
  return { document, refNames, warnings };
}

async function fetchDocument(source: string, options: LoadDocumentOptions): Promise<Record<string, unknown>> {
  if (!options.client) throw new Error(`${source}: no HTTP client to fetch the document with`);
  const signal = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  let res;
  try {
    res = await options.client.send({ method: 'GET', url: new URL(source), headers: { accept: 'application/json, application/yaml, text/yaml, */*;q=0.5' } }, signal);
  } catch (err) {
    if (signal.aborted) throw new Error(`${source} did not answer within ${options.timeoutMs ?? 20_000} ms`, { cause: err });
    throw new Error(`cannot fetch ${source}: ${err instanceof ToolHubError ? err.message : (err as Error).message}`, { cause: err });
  }
  if (res.status < 200 || res.status > 299) throw new Error(`cannot fetch ${source}: HTTP ${res.status} ${res.statusText}`);
  if (res.truncated) throw new Error(`${source} is larger than the response size cap; raise maxResponseBytes of this document`);
  let parsed: unknown;
  try {
    parsed = parseLenientYaml(res.body.toString('utf8'));
  } catch (err) {
    throw new Error(`${source} is not valid JSON or YAML: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${source} is not an OpenAPI document (not an object)`);
  return parsed as Record<string, unknown>;
}
