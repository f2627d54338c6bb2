/** `toolhub audit [target]`: the registry's audit log of admin changes, newest first. */
import type { CommandContext } from '../context';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

export interface AuditOptions {
  principal?: string;
  limit?: string;
}

/** Prints who changed what and when, with the state before and after; exit 0. */
export async function auditCommand(ctx: CommandContext, target: string | undefined, options: AuditOptions): Promise<ExitCode> {
  const res = await ctx.session.admin().listAuditLog({ target: target ?? '', principal: options.principal ?? '', limit: Number(options.limit ?? 50) || 50 });
  if (ctx.out.json) {
    ctx.out.document({ entries: res.entries });
    return EXIT_CODES.ok;
  }
  if (res.entries.length === 0) {
    ctx.out.note('No admin changes recorded yet.');
    return EXIT_CODES.ok;
  }
  ctx.out.table(
    [{ header: 'WHEN' }, { header: 'WHO' }, { header: 'ACTION' }, { header: 'TARGET' }, { header: 'BEFORE → AFTER', flex: true }],
    res.entries.map((e) => [new Date(e.atUnixMs).toISOString(), e.principal, e.action, e.target, `${e.beforeJson || '-'} → ${e.afterJson || '-'}`]),
  );
  return EXIT_CODES.ok;
}
