/** `toolhub info <provider> <name>` (or `<provider:name>`): a tool's description, parameters and an example call. */
import { canonicalJson, importanceName, type ToolInfo } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { EXIT_CODES, type ExitCode } from '../exit-codes';
import { oneLine, wrap } from '../format';
import { parseToolRef } from '../parse';
import { parameterRows } from '../schema-summary';

function flags(t: ToolInfo): string[] {
  const a = t.annotations;
  if (!a) return [];
  return [a.readOnly && 'read-only', a.destructive && 'destructive', a.idempotent && 'idempotent', a.openWorld && 'open-world'].filter((f): f is string => typeof f === 'string');
}

/** Shell-quotes `text` with single quotes. */
export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Prints one tool; exit 3 when it does not exist (the error lists close names). */
export async function infoCommand(ctx: CommandContext, first: string, second: string | undefined): Promise<ExitCode> {
  const ref = parseToolRef(first, second, 'info');
  const res = await (await ctx.session.agent()).getToolInfo(ref);
  const t = res.tool;
  if (!t) throw new Error(`GetToolInfo answered without a tool for ${ref.provider}:${ref.name}`);
  if (ctx.out.json) {
    ctx.out.document({ tool: { ...t, importance: importanceName(t.importance) } });
    return EXIT_CODES.ok;
  }
  const out = ctx.out;
  const meta = [`path ${t.path || '/'}`, `importance ${importanceName(t.importance)}`, ...flags(t), ...(t.version ? [`version ${t.version.slice(0, 12)}`] : [])];
  out.line(t.id, `  ${meta.join(' · ')}`, '', wrap(t.description, out.width, '  '), '');
  const rows = parameterRows(t.inputSchema);
  if (rows.length) {
    out.line('Parameters:');
    out.table(
      [{ header: 'NAME' }, { header: 'TYPE' }, { header: 'REQUIRED' }, { header: 'DEFAULT' }, { header: 'DESCRIPTION', flex: true }],
      rows.map((r) => [r.name, r.type, r.required ? 'yes' : 'no', r.default, r.description]),
    );
  } else out.line('Parameters: none');
  if (t.outputDescription) out.line('', 'Output:', wrap(t.outputDescription, out.width, '  '));
  const ex = t.examples[0];
  const exampleArgs = ex?.arguments ?? {};
  out.line('', 'Example:', `  toolhub run ${t.provider} ${t.name}${Object.keys(exampleArgs).length ? ` --args ${shellQuote(canonicalJson(exampleArgs))}` : ''}`);
  if (ex?.result) out.line(`  → ${oneLine(ex.result, out.width - 4)}`);
  return EXIT_CODES.ok;
}
