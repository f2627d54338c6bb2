/**
 * Checks a RunTools batch before anything runs and orders it: ids unique and well formed, every
 * reference names an earlier-declared or later call that exists with a well-formed JSON Pointer,
 * no cycles. A bad batch is one INVALID_ARGUMENT naming every bad call and field, so an LLM can fix
 * the whole request at once.
 *
 * Reference form (documented in agent.proto BatchCall): an object whose only key is `$ref`, whose
 * value is `#/calls/<id>/<root>[/<pointer>]`, `<root>` being `structured`, `content` or `text`.
 */
import { type BatchCall, ToolHubError } from '@toolhub/contracts';

export const MAX_BATCH_CALLS = 100;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const REF = /^#\/calls\/([^/]+)\/(structured|content|text)((?:\/[^/]*)*)$/;

export interface BatchReference {
  /** Where in the call's arguments, as a JSON Pointer. */
  at: string;
  call: string;
  root: 'structured' | 'content' | 'text';
  /** Unescaped JSON Pointer tokens below the root. */
  tokens: string[];
  ref: string;
}

export interface PlannedCall {
  call: BatchCall;
  index: number;
  refs: BatchReference[];
  /** Ids of the calls this one waits for (references and `after`). */
  deps: string[];
  level: number;
}

export interface BatchPlan {
  calls: PlannedCall[];
  byId: Map<string, PlannedCall>;
  levels: number;
}

type Violation = { field: string; message: string; expected?: string; example?: string };

/** Plans `calls`. @throws ToolHubError invalid_argument listing every problem found */
export function planBatch(calls: BatchCall[]): BatchPlan {
  const problems: Violation[] = [];
  if (calls.length === 0) throw ToolHubError.invalidArgument('RunTools needs at least one call in `calls`.', [{ field: '/calls', message: 'empty' }]);
  if (calls.length > MAX_BATCH_CALLS) {
    throw ToolHubError.invalidArgument(`A batch holds at most ${MAX_BATCH_CALLS} calls; this one has ${calls.length}. Split it into several RunTools requests.`, [
      { field: '/calls', message: `${calls.length} calls`, expected: `at most ${MAX_BATCH_CALLS}` },
    ]);
  }
  const byId = new Map<string, PlannedCall>();
  const planned = calls.map((call, index): PlannedCall => {
    const p: PlannedCall = { call, index, refs: [], deps: [], level: 0 };
    if (!ID.test(call.id)) problems.push({ field: `/calls/${index}/id`, message: `id ${JSON.stringify(call.id)} is not valid`, expected: 'letters, digits, _ or -, 1 to 64', example: '"search1"' });
    else if (byId.has(call.id)) problems.push({ field: `/calls/${index}/id`, message: `id ${call.id} is used by call ${byId.get(call.id)!.index} too`, expected: 'a unique id' });
    else byId.set(call.id, p);
    if (!call.provider || !call.name) problems.push({ field: `/calls/${index}`, message: 'provider and name are required', example: '{"provider":"local","name":"file_read"}' });
    collectRefs(call.arguments ?? {}, '', p.refs, index, problems);
    return p;
  });
  for (const p of planned) {
    const deps = new Set<string>();
    for (const r of p.refs) {
      if (!byId.has(r.call)) problems.push({ field: `/calls/${p.index}/arguments${r.at}`, message: `$ref ${r.ref} names call ${JSON.stringify(r.call)}, which is not in the batch`, expected: `one of: ${[...byId.keys()].join(', ')}` });
      else if (r.call === p.call.id) problems.push({ field: `/calls/${p.index}/arguments${r.at}`, message: `$ref ${r.ref} refers to the call itself` });
      else deps.add(r.call);
    }
    p.call.after.forEach((dep, i) => {
      if (!byId.has(dep)) problems.push({ field: `/calls/${p.index}/after/${i}`, message: `after names call ${JSON.stringify(dep)}, which is not in the batch`, expected: `one of: ${[...byId.keys()].join(', ')}` });
      else if (dep === p.call.id) problems.push({ field: `/calls/${p.index}/after/${i}`, message: 'a call cannot wait for itself' });
      else deps.add(dep);
    });
    p.deps = [...deps];
  }
  if (problems.length) throw refused(problems);
  const levels = assignLevels(planned, byId);
  return { calls: planned, byId, levels };
}

function refused(problems: Violation[]): ToolHubError {
  const first = problems.slice(0, 3).map((v) => `${v.field}: ${v.message}`).join('; ');
  return ToolHubError.invalidArgument(`The batch was refused before any call ran (${problems.length} problem${problems.length > 1 ? 's' : ''}): ${first}${problems.length > 3 ? '; …' : ''}. Fix these and send it again.`, problems);
}

/** Longest-path levels by Kahn's algorithm; what is left over lies on a cycle. */
function assignLevels(planned: PlannedCall[], byId: Map<string, PlannedCall>): number {
  const waiting = new Map(planned.map((p) => [p.call.id, p.deps.length]));
  const dependants = new Map<string, string[]>();
  for (const p of planned) for (const d of p.deps) dependants.set(d, [...(dependants.get(d) ?? []), p.call.id]);
  let ready = planned.filter((p) => p.deps.length === 0).map((p) => p.call.id);
  let done = 0;
  let levels = 0;
  while (ready.length) {
    levels++;
    const next: string[] = [];
    for (const id of ready) {
      done++;
      const level = byId.get(id)!.level;
      for (const dep of dependants.get(id) ?? []) {
        const d = byId.get(dep)!;
        d.level = Math.max(d.level, level + 1);
        const left = waiting.get(dep)! - 1;
        waiting.set(dep, left);
        if (left === 0) next.push(dep);
      }
    }
    ready = next;
  }
  if (done < planned.length) {
    const cycle = findCycle(planned.filter((p) => waiting.get(p.call.id)! > 0), byId);
    throw ToolHubError.invalidArgument(`The batch was refused before any call ran: its calls wait for each other in a cycle (${cycle.join(' → ')}). Remove one of these references.`, [
      { field: `/calls/${byId.get(cycle[0]!)!.index}`, message: `cycle ${cycle.join(' → ')}`, expected: 'references to calls that do not depend on this one' },
    ]);
  }
  return levels;
}

function findCycle(stuck: PlannedCall[], byId: Map<string, PlannedCall>): string[] {
  const stuckIds = new Set(stuck.map((p) => p.call.id));
  // Every stuck call waits for another stuck call, so walking dependencies must revisit one.
  const path: string[] = [];
  let id = stuck[0]!.call.id;
  while (!path.includes(id)) {
    path.push(id);
    id = byId.get(id)!.deps.find((d) => stuckIds.has(d))!;
  }
  return [...path.slice(path.indexOf(id)), id];
}

function collectRefs(value: unknown, at: string, out: BatchReference[], index: number, problems: Violation[]): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => collectRefs(v, `${at}/${i}`, out, index, problems));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length === 1 && keys[0] === '$ref') {
    const ref = obj.$ref;
    const m = typeof ref === 'string' ? REF.exec(ref) : null;
    if (!m) {
      problems.push({
        field: `/calls/${index}/arguments${at || '/'}`,
        message: `$ref ${JSON.stringify(ref)} is not a batch reference`,
        expected: '#/calls/<id>/structured|content|text[/<json pointer>]',
        example: '{"$ref":"#/calls/search1/structured/items/0/id"}',
      });
      return;
    }
    const tokens = m[3] ? m[3].slice(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')) : [];
    out.push({ at: at || '/', call: m[1]!, root: m[2] as BatchReference['root'], tokens, ref: ref as string });
    return;
  }
  for (const k of keys) collectRefs(obj[k], `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out, index, problems);
}
