/**
 * Free-form JSON (input schemas, example arguments, run arguments) travels as JSON text on the
 * wire, so no protobuf recursion limit applies to it. The generated codecs still see the legacy
 * `google.protobuf.Struct` fields; this module wraps the encode/decode functions of the messages
 * that carry them, once, when `@toolhub/contracts` loads, so every writer and reader in the repo
 * (the SDK, the bus, the registry, the dispatcher, gRPC) gets the same behaviour with no call-site
 * changes. In TypeScript the decoded object value stays the one truth (`inputSchema`,
 * `arguments`); the `*Json` fields are filled on encode and consumed (and cleared) on decode.
 *
 * Writers:
 * - ToolInfo.input_schema and ToolExample.arguments: the JSON field always; the legacy Struct too
 *   when the value nests at most {@link WIRE_STRUCT_MAX_DEPTH} levels, so readers built before the
 *   JSON fields keep working for every ordinary schema.
 * - AdapterRunRequest.arguments (the hot path): exactly one form — the Struct when shallow, the
 *   JSON field only when deeper — so ordinary calls cost what they did before.
 * Readers prefer the JSON field when it is set and fall back to the Struct.
 */
import { AdapterRunRequest } from './gen/toolhub/v1/adapter';
import { ToolExample, ToolInfo } from './gen/toolhub/v1/tool';
import { jsonDepth, WIRE_STRUCT_MAX_DEPTH } from './catalog-limits';

type Codec<T> = { encode(message: T, writer?: unknown): unknown; decode(input: unknown, length?: number): T };

/** JSON text of a value; a value too deep for JSON.stringify's own recursion becomes an error that says so. */
export function toJsonText(value: unknown, what: string): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch (err) {
    throw new Error(`${what} cannot be written as JSON (${(err as Error).message}); it is too deep or cyclic`, { cause: err });
  }
}

function parseObject(text: string, what: string): { [key: string]: unknown } {
  // JSON.parse in V8 is not recursive: a 100,000-level value parses without a stack overflow.
  const value: unknown = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} on the wire is not a JSON object`);
  return value as { [key: string]: unknown };
}

const shallow = (v: unknown) => jsonDepth(v, WIRE_STRUCT_MAX_DEPTH) <= WIRE_STRUCT_MAX_DEPTH;

function wrap<T>(codec: Codec<T>, onEncode: (m: T) => T, onDecode: (m: T) => void): void {
  const marker = codec as unknown as { __toolhubJsonWire?: boolean };
  if (marker.__toolhubJsonWire) return;
  marker.__toolhubJsonWire = true;
  const encode = codec.encode.bind(codec);
  const decode = codec.decode.bind(codec);
  codec.encode = (message: T, writer?: unknown) => encode(onEncode(message), writer);
  codec.decode = (input: unknown, length?: number) => {
    const m = decode(input, length);
    onDecode(m);
    return m;
  };
}

let installed = false;

/** Installs the JSON-text codecs (idempotent; runs when `@toolhub/contracts` loads). */
export function installJsonWire(): void {
  if (installed) return;
  installed = true;
  wrap<ToolInfo>(
    ToolInfo as unknown as Codec<ToolInfo>,
    (m) => {
      if (m.inputSchema === undefined) return m;
      return { ...m, inputSchemaJson: toJsonText(m.inputSchema, `The input schema of ${m.id || m.name}`), inputSchema: shallow(m.inputSchema) ? m.inputSchema : undefined };
    },
    (m) => {
      if (m.inputSchemaJson) m.inputSchema = parseObject(m.inputSchemaJson, `The input schema of ${m.id || m.name}`);
      delete m.inputSchemaJson;
    },
  );
  wrap<ToolExample>(
    ToolExample as unknown as Codec<ToolExample>,
    (m) => {
      if (m.arguments === undefined) return m;
      return { ...m, argumentsJson: toJsonText(m.arguments, 'Example arguments'), arguments: shallow(m.arguments) ? m.arguments : undefined };
    },
    (m) => {
      if (m.argumentsJson) m.arguments = parseObject(m.argumentsJson, 'Example arguments');
      delete m.argumentsJson;
    },
  );
  wrap<AdapterRunRequest>(
    AdapterRunRequest as unknown as Codec<AdapterRunRequest>,
    (m) => {
      if (m.arguments === undefined || shallow(m.arguments)) return m.argumentsJson === undefined ? m : { ...m, argumentsJson: undefined };
      return { ...m, argumentsJson: toJsonText(m.arguments, `The arguments of ${m.name}`), arguments: undefined };
    },
    (m) => {
      if (m.argumentsJson) m.arguments = parseObject(m.argumentsJson, `The arguments of ${m.name}`);
      delete m.argumentsJson;
    },
  );
}

// On load: every importer of @toolhub/contracts encodes and decodes through the JSON-text codecs.
installJsonWire();
