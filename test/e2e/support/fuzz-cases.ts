/**
 * Deterministic bad requests for the gRPC-edge fuzz test (test/e2e/fuzz.int.test.ts), and the
 * judge of their replies. Every request is raw protobuf bytes, so the generator controls every byte.
 */
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { type ServiceError, status } from '@grpc/grpc-js';
import {
  BatchCallState,
  ErrorCode,
  ErrorInfo,
  GetToolInfoRequest,
  GRPC_ERROR_TRAILER,
  ListToolsRequest,
  RunStatus,
  RunToolRequest,
  RunToolResponse,
  RunToolsRequest,
  RunToolsResponse,
  SearchToolsRequest,
  ToolHubService,
} from '@toolhub/contracts';
import { seededRandom } from '@toolhub/test-harness';

const SEED = 0x70011b;
/** Deadline of every request that is not about absurd deadlines. */
export const NORMAL_DEADLINE_MS = 20_000;
const MIB = 1024 * 1024;

const TOOLS = ['file_read', 'file_list', 'file_stat', 'file_write', 'math_calculate', 'text_stats', 'text_transform', 'data_json_to_csv', 'time_now'];
type Method = keyof typeof ToolHubService;
const METHODS = Object.keys(ToolHubService) as Method[];

// ---------------------------------------------------------------------------------------------
// Deterministic generation
// ---------------------------------------------------------------------------------------------

export interface Case {
  id: number;
  category: string;
  /** gRPC method path. */
  path: string;
  /** The method, when `path` is one of ToolHub's. */
  method?: Method;
  bytes: Buffer;
  deadlineMs: number;
  /** A success is acceptable (the request was generated as valid, or decodes to something valid). */
  valid: boolean;
  /** Must succeed: valid and sent with a sane deadline. */
  mustSucceed: boolean;
  /** Must be refused as undecodable (INVALID_ARGUMENT naming the decode failure or the size). */
  undecodable: boolean;
}

class Gen {
  readonly r: () => number;
  constructor(seed: number) {
    this.r = seededRandom(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = Math.floor(this.r() * 256);
    return b;
  }
  ascii(n: number, alphabet = 'abcdefghijklmnopqrstuvwxyz_0123456789'): string {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.r() * alphabet.length)];
    return s;
  }
}

export const encodeRun = (req: Partial<RunToolRequest>): Buffer =>
  Buffer.from(RunToolRequest.encode({ provider: 'local', name: 'math_calculate', arguments: {}, timeoutMs: 0, idempotencyKey: '', expectedVersion: '', caller: '', searchId: '', ...req }).finish());
const encodeBatch = (calls: Array<{ id: string; name: string; arguments: Record<string, unknown> }>): Buffer =>
  Buffer.from(
    RunToolsRequest.encode({
      calls: calls.map((c) => ({ provider: 'local', timeoutMs: 0, idempotencyKey: '', expectedVersion: '', after: [], ...c })),
      maxParallel: 0,
      caller: 'fuzz',
      searchId: '',
    }).finish(),
  );
const encodeInfo = (provider: string, name: string): Buffer => Buffer.from(GetToolInfoRequest.encode({ provider, name }).finish());
const encodeList = (provider: string, path: string, recursive = false): Buffer => Buffer.from(ListToolsRequest.encode({ provider, path, recursive, pageSize: 0, pageToken: '' }).finish());

/** google.protobuf.Struct / Value / ListValue written by hand, iteratively (any depth, no recursion). */
const pb = {
  msg: (build: (w: BinaryWriter) => void): Uint8Array => {
    const w = new BinaryWriter();
    build(w);
    return w.finish();
  },
  entry: (key: string, value: Uint8Array) => pb.msg((w) => (field.bytes(w, 1, Buffer.from(key)), field.bytes(w, 2, value))),
  struct: (entries: Uint8Array[]) => pb.msg((w) => entries.forEach((e) => field.bytes(w, 1, e))),
  structValue: (struct: Uint8Array) => pb.msg((w) => field.bytes(w, 5, struct)),
  listValue: (values: Uint8Array[]) => pb.msg((w) => field.bytes(w, 6, pb.msg((l) => values.forEach((v) => field.bytes(l, 1, v))))),
  stringValue: (s: string) => pb.msg((w) => field.bytes(w, 3, Buffer.from(s))),
  numberValue: (n: number) => pb.msg((w) => field.fixed64(w, 2, n)),
};

/** A Value nested `depth` levels deep (objects and arrays) around a number. */
function nestedValue(depth: number, g: Gen): Uint8Array {
  let v = pb.numberValue(1);
  for (let i = 0; i < depth; i++) v = g.r() < 0.5 ? pb.structValue(pb.struct([pb.entry('a', v)])) : pb.listValue([v]);
  return v;
}

const INVALID_UTF8 = [[0xff], [0xc3, 0x28], [0xe2, 0x28, 0xa1], [0xf0, 0x28, 0x8c, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80]];

/** Protobuf field writers with full control over wire types and bytes. */
const field = {
  bytes: (w: BinaryWriter, no: number, b: Uint8Array) => w.uint32((no << 3) | 2).bytes(b),
  varint: (w: BinaryWriter, no: number, v: number) => w.uint32((no << 3) | 0).uint64(v),
  fixed64: (w: BinaryWriter, no: number, v: number) => w.uint32((no << 3) | 1).double(v),
  fixed32: (w: BinaryWriter, no: number, v: number) => w.uint32((no << 3) | 5).fixed32(v),
};

/** Appends unknown fields (tags the schema does not have), each correctly encoded. */
function unknownFields(g: Gen): Buffer {
  const w = new BinaryWriter();
  for (let i = g.int(1, 4); i > 0; i--) {
    const no = g.int(20, 5000);
    switch (g.int(0, 3)) {
      case 0:
        field.varint(w, no, g.int(0, 1e9));
        break;
      case 1:
        field.bytes(w, no, g.bytes(g.int(0, 64)));
        break;
      case 2:
        field.fixed64(w, no, g.r());
        break;
      default:
        field.fixed32(w, no, g.int(0, 1e9));
    }
  }
  return Buffer.from(w.finish());
}

/** A request the dispatcher must serve. */
function validRequest(g: Gen): { method: Method; bytes: Buffer } {
  switch (g.int(0, 6)) {
    case 0:
      return { method: 'runTool', bytes: encodeRun({ arguments: { expression: `${g.int(1, 999)} * ${g.int(1, 999)}` } }) };
    case 1:
      return { method: 'runTool', bytes: encodeRun({ name: 'file_read', arguments: { path: 'notes.txt' } }) };
    case 2:
      return { method: 'getToolInfo', bytes: encodeInfo('local', g.pick(TOOLS)) };
    case 3:
      return { method: 'listTools', bytes: encodeList(g.pick(['', 'local']), '', g.r() < 0.5) };
    case 4:
      return { method: 'listProviders', bytes: Buffer.alloc(0) };
    case 6:
      // A two-level batch: text_stats counts the text of math_calculate's answer.
      return { method: 'runTools', bytes: encodeBatch([{ id: 'sum', name: 'math_calculate', arguments: { expression: `${g.int(1, 999)} + 1` } }, { id: 'stats', name: 'text_stats', arguments: { text: { $ref: '#/calls/sum/text' } } }]) };
    default:
      return { method: 'runTool', bytes: encodeRun({ name: 'text_stats', arguments: { text: g.ascii(g.int(1, 200), 'abc \n.') } }) };
  }
}

/**
 * Whether a request that decodes may legitimately succeed (used for random and mutated bytes:
 * some happen to decode into something meaningful, such as ListTools of provider '').
 */
function decodesToValid(method: Method, bytes: Buffer): { decodes: boolean; valid: boolean } {
  let decoded: unknown;
  try {
    decoded = ToolHubService[method].requestDeserialize(bytes);
  } catch {
    return { decodes: false, valid: false };
  }
  const d = decoded as { provider?: string; name?: string };
  switch (method) {
    case 'listProviders':
    case 'getStatus':
    case 'getAccess':
      // Requests without fields: any bytes that decode (unknown fields are skipped) are a valid call.
      return { decodes: true, valid: true };
    case 'listTools':
      return { decodes: true, valid: d.provider === '' || d.provider === 'local' };
    case 'getToolInfo':
    case 'runTool':
      return { decodes: true, valid: d.provider === 'local' && TOOLS.includes(d.name ?? '') };
    case 'runTools': {
      // A batch whose calls all name real tools may be accepted (each call's own failure is in its result).
      const calls = (decoded as RunToolsRequest).calls;
      return { decodes: true, valid: calls.length > 0 && calls.every((c) => c.provider === 'local' && TOOLS.includes(c.name)) };
    }
    case 'listRuns':
      // The caller's own runs (none): any page without a token may be listed (when async runs are on).
      return { decodes: true, valid: (decoded as { pageToken: string }).pageToken === '' };
    case 'startRun': {
      // Queues a run of a real tool (when async runs are on); the run's own failure is in its record.
      const c = (decoded as { call?: { provider: string; name: string } }).call;
      return { decodes: true, valid: c?.provider === 'local' && TOOLS.includes(c.name) };
    }
    default:
      // SearchTools / GetPreloadSet need the registry, which is not running: always an error.
      return { decodes: true, valid: false };
  }
}

/** Arguments of a real tool with a value of the wrong type that no safe repair can fix. */
function wrongTypes(g: Gen): Record<string, unknown> & { __tool: string } {
  const bad = g.pick<unknown>([{}, [], [1, 2], { x: 'y' }, true, false, null]);
  return g.pick([
    { __tool: 'math_calculate', expression: bad === null ? [] : bad },
    { __tool: 'math_calculate', expression: '1+1', precision: g.pick<unknown>(['many', {}, [], true, 1.5, -3, 1e9]) },
    { __tool: 'math_calculate', expression: '1+1', variables: g.pick<unknown>([[], 'x', 42, { x: {} }, { 'bad name': 1 }]) },
    { __tool: 'file_read', path: g.pick<unknown>([{}, [], true, '', 7.5]) },
    { __tool: 'file_read', path: 'notes.txt', offset: g.pick<unknown>([0, -1, 'first', {}, 1.5]) },
    { __tool: 'file_write', path: g.pick<unknown>([{}, [], true]), content: 'x' },
    { __tool: 'file_write', path: 'out/x.txt', content: g.pick<unknown>([{}, [], true, null]) },
    { __tool: 'text_stats', text: g.pick<unknown>([{}, [], true]) },
    // (Not {}: a single object is wrapped into a one-row array, a repair the dispatcher reports.)
    { __tool: 'data_json_to_csv', data: g.pick<unknown>([42, true, [1, 2, 3], [[1]], null]) },
    { __tool: 'time_now', timezone: g.pick<unknown>([{}, [], true, 'Mars/Olympus_Mons']) },
  ]);
}

/** Malformed or very deeply nested JSON text where a tool accepts JSON text (or an object). */
function badJsonText(g: Gen): Record<string, unknown> & { __tool: string; __valid: boolean } {
  const depth = g.pick([100, 1000, 10_000, 50_000]);
  const text = g.pick([
    '[{"a": 1,',
    '{"a": [1, 2}',
    '[{"a": 1}]]',
    "[{'a': 1}]",
    '[{"a": NaN}]',
    '[{"a": "\\ud800"}',
    `${'['.repeat(depth)}${']'.repeat(depth)}`,
    `[${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}]`,
    `[{"a": ${'['.repeat(depth)}`,
  ]);
  // (Not as `columns`: text that does not parse is a valid column name once wrapped into an array.)
  const choice = g.int(0, 1);
  if (choice === 0) {
    // Well-formed JSON text of an array of objects is valid input for data_json_to_csv, however deep.
    let wellFormedRows = false;
    try {
      const parsed = JSON.parse(text) as unknown;
      wellFormedRows = Array.isArray(parsed) && parsed.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row));
    } catch {
      // malformed (or too deep for this parser): must be refused
    }
    return { __tool: 'data_json_to_csv', __valid: wellFormedRows, data: text };
  }
  return { __tool: 'math_calculate', __valid: false, expression: 'x + 1', variables: text };
}

/** Arguments of the wrong type that the dispatcher repairs safely (and reports): these must succeed. */
function repairable(g: Gen): Record<string, unknown> & { __tool: string } {
  return g.pick([
    { __tool: 'math_calculate', expression: g.int(1, 999) },
    { __tool: 'math_calculate', expression: '2 * 21', precision: String(g.int(1, 64)) },
    { __tool: 'file_read', path: './notes.txt', limit: String(g.int(1, 10)) },
    { __tool: 'data_json_to_csv', data: { name: 'Ada', age: g.int(1, 99) } },
    { __tool: 'data_json_to_csv', data: [{ a: 1 }], header: g.pick(['true', 'false']) },
  ]);
}

/** Every 250th request carries a 1–8 MB string (about 50 in all, so the bytes sent stay bounded). */
export function isHuge(id: number): boolean {
  return id % 250 === 125;
}

/** The request number `id` of the corpus: the same bytes on every run. */
export function makeCase(id: number): Case {
  const g = new Gen((SEED ^ Math.imul(id, 0x9e3779b1)) >>> 0);
  const base = { id, deadlineMs: NORMAL_DEADLINE_MS, valid: false, mustSucceed: false, undecodable: false };
  const forMethod = (category: string, method: Method, bytes: Buffer, extra: Partial<Case> = {}): Case => ({
    ...base,
    category,
    method,
    path: ToolHubService[method].path,
    bytes,
    ...extra,
  });
  const fromBytes = (category: string, method: Method, bytes: Buffer): Case => {
    const { decodes, valid } = decodesToValid(method, bytes);
    return forMethod(category, method, bytes, { valid, undecodable: !decodes });
  };

  if (isHuge(id)) {
    const size = g.int(1, 8) * MIB - g.int(0, 1000);
    const big = 'x'.repeat(size);
    const where = g.int(0, 4);
    const bytes =
      where === 0
        ? encodeRun({ arguments: { expression: big } })
        : where === 1
          ? encodeRun({ name: 'file_write', arguments: { path: 'out/big.txt', content: big } })
          : where === 2
            ? encodeInfo('local', big)
            : where === 3
              ? encodeRun({ arguments: { expression: '1' }, idempotencyKey: big })
              : encodeRun({ provider: big });
    // Content of up to 1 MiB is within file_write's limit: it succeeds if the request fits on the bus.
    return forMethod(`huge string (${Math.round(size / MIB)} MiB)`, where === 2 ? 'getToolInfo' : 'runTool', bytes, { valid: where === 1 && size <= MIB });
  }

  const roll = g.r();
  if (roll < 0.06) {
    const v = validRequest(g);
    return forMethod('valid', v.method, v.bytes, { valid: true, mustSucceed: true });
  }
  if (roll < 0.2) {
    const method = g.pick(METHODS);
    return fromBytes('random bytes', method, g.bytes(g.r() < 0.9 ? g.int(0, 300) : g.int(300, 65_536)));
  }
  if (roll < 0.36) {
    // Mutations of valid requests of read-only tools (a mutation could turn a write into another write).
    const v = g.pick([
      () => ({ method: 'runTool' as const, bytes: encodeRun({ arguments: { expression: 'sqrt(3^2 + 4^2)', precision: 6 } }) }),
      () => ({ method: 'runTool' as const, bytes: encodeRun({ name: 'file_read', arguments: { path: 'notes.txt', limit: 10 }, caller: 'fuzz' }) }),
      () => ({ method: 'getToolInfo' as const, bytes: encodeInfo('local', 'file_read') }),
      () => ({ method: 'listTools' as const, bytes: encodeList('local', 'file', true) }),
      () => ({ method: 'searchTools' as const, bytes: Buffer.from(SearchToolsRequest.encode({ queries: ['read a file'], provider: '', path: '', limit: 5, mode: 0, explain: false }).finish()) }),
    ])();
    const b = Buffer.from(v.bytes);
    const mutated = (() => {
      switch (g.int(0, 3)) {
        case 0: // flip bytes
          for (let i = g.int(1, 5); i > 0 && b.length > 0; i--) b[g.int(0, b.length - 1)] = g.int(0, 255);
          return b;
        case 1: // truncate
          return b.subarray(0, g.int(0, Math.max(0, b.length - 1)));
        case 2: {
          // insert garbage
          const at = g.int(0, b.length);
          return Buffer.concat([b.subarray(0, at), g.bytes(g.int(1, 16)), b.subarray(at)]);
        }
        default: // a huge length prefix
          return Buffer.concat([b, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])]);
      }
    })();
    return fromBytes('mutated valid request', v.method, mutated);
  }
  if (roll < 0.44) {
    // Invalid UTF-8 in a string field (provider, name, or a string inside arguments).
    const bad = Buffer.concat([Buffer.from(g.ascii(g.int(0, 5))), Buffer.from(g.pick(INVALID_UTF8)), Buffer.from(g.ascii(g.int(0, 5)))]);
    const w = new BinaryWriter();
    const target = g.int(0, 2);
    field.bytes(w, 1, target === 0 ? bad : Buffer.from('local'));
    field.bytes(w, 2, target === 1 ? bad : Buffer.from('math_calculate'));
    if (target === 2) {
      // arguments = Struct{ fields: { "expression": Value{ string_value: <bad> } } }
      const value = new BinaryWriter();
      field.bytes(value, 3, bad);
      const entry = new BinaryWriter();
      field.bytes(entry, 1, Buffer.from('expression'));
      field.bytes(entry, 2, value.finish());
      const struct = new BinaryWriter();
      field.bytes(struct, 1, entry.finish());
      field.bytes(w, 3, struct.finish());
    }
    const method = target === 2 ? 'runTool' : g.pick(['runTool', 'getToolInfo'] as const);
    return fromBytes('invalid UTF-8', method, Buffer.from(w.finish()));
  }
  if (roll < 0.49) {
    // Right field numbers, wrong wire types (a string sent as a varint, a message as a double...).
    const w = new BinaryWriter();
    for (let i = g.int(1, 4); i > 0; i--) {
      const no = g.int(1, 7);
      g.pick([() => field.varint(w, no, g.int(0, 1e6)), () => field.fixed64(w, no, g.r()), () => field.fixed32(w, no, g.int(0, 1e6)), () => field.bytes(w, no, g.bytes(g.int(0, 12)))])();
    }
    return fromBytes('wrong wire types', g.pick(['runTool', 'getToolInfo', 'listTools', 'searchTools'] as const), Buffer.from(w.finish()));
  }
  if (roll < 0.52) {
    const { __tool, ...args } = repairable(g);
    return forMethod('repairable argument types', 'runTool', encodeRun({ name: __tool, arguments: args }), { valid: true, mustSucceed: true });
  }
  if (roll < 0.62) {
    const { __tool, ...args } = wrongTypes(g);
    return forMethod('wrong argument types', 'runTool', encodeRun({ name: __tool, arguments: args }));
  }
  if (roll < 0.72) {
    const variant = g.int(0, 6);
    const names = [
      () => g.ascii(g.int(1, 20), 'abcdefghijklmnopqrstuvwxyz_'), // well-formed but unknown
      () => g.pick(['File_Read', 'file read', 'file-read', '1file', '', 'x'.repeat(65), 'ファイル', '../etc', 'file_read\u0000', 'file.read', '*', '>']),
    ];
    const name = variant < 4 ? names[0]!() : names[1]!();
    const provider = variant % 2 ? 'local' : g.pick(['fuzz_absent', 'no_such_provider', 'nope', 'LOCAL', 'local.x', '', 'a*', 'x'.repeat(100), 'local\u0000']);
    // Other tests' adapters (mcp, cloud, ...) may share this NATS server: only names no test uses count as unknown.
    const known = provider === 'local' && TOOLS.includes(name);
    const method = g.pick(['runTool', 'getToolInfo', 'listTools'] as const);
    const bytes = method === 'runTool' ? encodeRun({ provider, name, arguments: { expression: '1' } }) : method === 'getToolInfo' ? encodeInfo(provider, name) : encodeList(provider, name.replace(/_/g, '/'));
    return forMethod('unknown tools and providers', method, bytes, { valid: known || (method === 'listTools' && (provider === '' || provider === 'local')) });
  }
  if (roll < 0.76) {
    // Unknown argument fields on tools whose schemas forbid them.
    const args = g.pick<Record<string, unknown>>([
      { expression: '1+1', expresion: '2+2' },
      { expression: '1+1', __proto__x: 1, constructor: 'x' },
      { path: 'notes.txt', encoding: 'latin1' },
      { text: 'abc', [g.ascii(8)]: { deep: [1, 2] } },
    ]);
    const tool = 'expression' in args ? 'math_calculate' : 'path' in args ? 'file_read' : 'text_stats';
    return forMethod('unknown argument fields', 'runTool', encodeRun({ name: tool, arguments: args }));
  }
  if (roll < 0.81) {
    // Valid requests plus protobuf fields the schema does not have: skipped, as protobuf says.
    const v = validRequest(g);
    return forMethod('unknown protobuf fields', v.method, Buffer.concat([v.bytes, unknownFields(g)]), { valid: true, mustSucceed: true });
  }
  if (roll < 0.85) {
    const depth = g.pick([33, 40, 64, 100, 500, 2000]);
    // RunTool{provider, name, arguments: {expression: "1", variables: {x: <depth levels>}}}, encoded by hand.
    const args = pb.struct([pb.entry('expression', pb.stringValue('1')), pb.entry('variables', pb.structValue(pb.struct([pb.entry('x', nestedValue(depth, g))])))]);
    const bytes = pb.msg((w) => (field.bytes(w, 1, Buffer.from('local')), field.bytes(w, 2, Buffer.from('math_calculate')), field.bytes(w, 3, args)));
    return forMethod(`nesting ${depth} deep`, 'runTool', Buffer.from(bytes));
  }
  if (roll < 0.89) {
    const { __tool, __valid, ...args } = badJsonText(g);
    return forMethod('malformed or deep JSON text', 'runTool', encodeRun({ name: __tool, arguments: args }), { valid: __valid });
  }
  if (roll < 0.93) {
    // Special numbers where integers or finite numbers are expected.
    const n = g.pick([NaN, Infinity, -Infinity, 1e308, -0.5, 2 ** 53 + 2]);
    const args = g.pick([{ expression: '1+1', precision: n }, { path: 'notes.txt', offset: n }, { path: 'notes.txt', limit: n }]);
    return forMethod('special numbers', 'runTool', encodeRun({ name: 'expression' in args ? 'math_calculate' : 'file_read', arguments: args }));
  }
  if (roll < 0.99) {
    // Absurd deadlines and timeouts around otherwise valid requests.
    const v = validRequest(g);
    const kind = g.int(0, 4);
    if (kind === 0) return forMethod('1 ms deadline', v.method, v.bytes, { deadlineMs: 1, valid: true });
    if (kind === 1) return forMethod('0 ms deadline', v.method, v.bytes, { deadlineMs: 0, valid: true });
    if (kind === 2) return forMethod('deadline in 10 years', v.method, v.bytes, { deadlineMs: 10 * 365 * 86_400_000, valid: true, mustSucceed: true });
    // timeout_ms of 1 ms (may or may not be enough) or of 2^32-1 ms (capped at the maximum).
    const timeoutMs = kind === 3 ? 1 : 0xffffffff;
    return forMethod(`timeout_ms ${timeoutMs}`, 'runTool', encodeRun({ arguments: { expression: 'sum(1:1000)' }, timeoutMs }), { valid: true, mustSucceed: kind === 4 });
  }
  // Methods that do not exist.
  return { ...base, category: 'unknown method', path: g.pick(['/toolhub.v1.ToolHub/DropTable', '/toolhub.v2.ToolHub/RunTool', '/x/y', '/toolhub.v1.ToolHub/']), bytes: g.bytes(g.int(0, 40)) };
}

// ---------------------------------------------------------------------------------------------
// Judging replies
// ---------------------------------------------------------------------------------------------

/** Statuses a bad request may get. INTERNAL is a ToolHub fault and never one of them. */
const ALLOWED_ERRORS = new Set<number>([
  status.INVALID_ARGUMENT,
  status.NOT_FOUND,
  status.DEADLINE_EXCEEDED,
  status.UNAVAILABLE,
  status.RESOURCE_EXHAUSTED,
  status.FAILED_PRECONDITION,
  status.PERMISSION_DENIED,
  status.ALREADY_EXISTS,
  status.CANCELLED,
  status.UNIMPLEMENTED,
  // ToolHub's `failed` (a tool failed for a reason of its own) is UNKNOWN; checked against the trailer below.
  status.UNKNOWN,
]);
/** Sent with deadlines this short, a request may end at the client's own deadline (no server reply). */
const SHORT_DEADLINE_MS = 1000;

/**
 * INTERNAL replies caused by known bugs outside the dispatcher and the adapter SDK, tolerated and
 * counted until they are fixed (then delete the entry: the test must fail on any INTERNAL).
 */
export const KNOWN_INTERNAL_ERRORS: ReadonlyArray<{ pattern: RegExp; issue: string }> = [];

export interface Reply {
  err?: ServiceError;
  body?: Buffer;
  ms: number;
}

/** The verdict on one reply: a problem to report, or a known issue to count, or neither. */
export interface Verdict {
  problem?: string;
  knownIssue?: string;
}

/** Judges the reply to `c`. */
export function judge(c: Case, reply: Reply): Verdict {
  const { err, body } = reply;
  if (!err) {
    if (!c.valid) return { problem: 'succeeded although generated as invalid' };
    if (c.method === 'runTool') {
      const res = RunToolResponse.decode(body!);
      if (res.status === RunStatus.RUN_STATUS_TOOL_ERROR && !res.error?.message) return { problem: 'tool error without a message' };
      if (res.status === RunStatus.RUN_STATUS_UNSPECIFIED) return { problem: 'run without a status' };
    } else if (c.method === 'runTools') {
      const res = RunToolsResponse.decode(body!);
      if (res.results.some((r) => r.state === BatchCallState.BATCH_CALL_STATE_UNSPECIFIED)) return { problem: 'batch call without a state' };
      const notOk = res.results.find((r) => r.state !== BatchCallState.BATCH_CALL_STATE_OK);
      if (c.mustSucceed && notOk) return { problem: `batch call ${notOk.id} did not succeed: ${notOk.error?.message ?? ''}` };
    } else if (c.method) ToolHubService[c.method].responseDeserialize(body!);
    return {};
  }
  if (c.mustSucceed) return { problem: `failed although valid: ${status[err.code]} ${err.details}` };
  if (err.code === status.INTERNAL) {
    const known = KNOWN_INTERNAL_ERRORS.find((k) => k.pattern.test(err.details));
    return known ? { knownIssue: known.issue } : { problem: `INTERNAL: ${err.details}` };
  }
  if (!ALLOWED_ERRORS.has(err.code)) return { problem: `status ${status[err.code] ?? err.code}: ${err.details}` };
  if (!err.details || err.details.trim() === '') return { problem: `status ${status[err.code]} without a message` };
  if (c.method === undefined) return err.code === status.UNIMPLEMENTED ? {} : { problem: `unknown method answered ${status[err.code]}` };
  const bin = err.metadata?.get(GRPC_ERROR_TRAILER)[0];
  if (!(bin instanceof Buffer)) {
    // Only the client's own deadline may end a call without the server's answer: anything else hung.
    if (err.code === status.DEADLINE_EXCEEDED && c.deadlineMs <= SHORT_DEADLINE_MS) return {};
    return { problem: `status ${status[err.code]} without the ${GRPC_ERROR_TRAILER} trailer (no answer from the server): ${err.details}` };
  }
  const info = ErrorInfo.decode(bin);
  if (!info.message) return { problem: 'ErrorInfo trailer without a message' };
  if (err.code === status.UNKNOWN && info.code !== ErrorCode.ERROR_CODE_FAILED) return { problem: `UNKNOWN that is not a tool failure: ${err.details}` };
  if (c.undecodable && !(err.code === status.INVALID_ARGUMENT && /could not be decoded|the limit is/.test(err.details))) {
    return { problem: `undecodable request answered ${status[err.code]}: ${err.details}` };
  }
  return {};
}

/** A valid request for the settle phase (not part of the fuzz cases). */
export function makeCaseValid(i: number): Case {
  const g = new Gen(i + 1);
  const v = validRequest(g);
  return { id: -1, category: 'settle', method: v.method, path: ToolHubService[v.method].path, bytes: v.bytes, deadlineMs: NORMAL_DEADLINE_MS, valid: true, mustSucceed: true, undecodable: false };
}
