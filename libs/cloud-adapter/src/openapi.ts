/**
 * Loading OpenAPI documents with @readme/openapi-parser (the maintained fork of swagger-parser):
 * from a file, every `$ref` — into the same file or into files beside it — is resolved offline;
 * from a URL, the document is fetched through the adapter's own guarded HTTP client and its
 * internal `$ref`s are resolved. Recursive schemas keep their `$ref` (see schema.ts).
 */
import { compileErrors, dereference, validate } from '@readme/openapi-parser';
import { ToolHubError } from '@toolhub/contracts';
import { parse as parseYaml } from 'yaml';

import type { SafeHttpClient } from './http';

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
  const warnings: string[] = [];
  const mode = options.validate ?? 'warn';
  if (mode !== 'off') {
    // validate() mutates an object input; give it a copy.
    const result = await validate(typeof input === 'string' ? input : (structuredClone(input) as never), { resolve: { external: !isUrl } });
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
    resolve: { external: !isUrl },
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
    parsed = parseYaml(res.body.toString('utf8'), { maxAliasCount: 1000 });
  } catch (err) {
    throw new Error(`${source} is not valid JSON or YAML: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${source} is not an OpenAPI document (not an object)`);
  return parsed as Record<string, unknown>;
}
