/** `toolhub catalog [provider]`: each provider's last catalog sync and every quarantined tool or source, with its reason. */
import type { CatalogSyncStatus } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

function progress(s: CatalogSyncStatus): string {
  if (s.state === 'receiving') return `receiving ${s.pagesReceived}/${s.pageCount} pages`;
  if (s.state === 'failed') return `FAILED: ${s.error}`;
  if (s.state === 'retired') return `retired: ${s.error}`;
  return s.pageCount > 0 ? `synced (${s.pageCount} pages, ${s.syncMs} ms)` : `synced (${s.syncMs} ms)`;
}

/** Prints the sync table, then the quarantined items; exit 0 (the table says what is wrong). */
export async function catalogCommand(ctx: CommandContext, provider: string | undefined): Promise<ExitCode> {
  const res = await ctx.session.admin().getCatalogStatus(provider ?? '');
  if (ctx.out.json) {
    ctx.out.document({ providers: res.providers });
    return EXIT_CODES.ok;
  }
  if (res.providers.length === 0) {
    ctx.out.note(provider ? `The registry has not synced a catalog of ${provider} since it started.` : 'The registry has not synced any catalog since it started.');
    return EXIT_CODES.ok;
  }
  ctx.out.table(
    [{ header: 'PROVIDER' }, { header: 'TOOLS', align: 'right' }, { header: 'QUARANTINED', align: 'right' }, { header: 'VERSION' }, { header: 'SYNC', flex: true }],
    res.providers.map((s) => [s.provider, String(s.toolCount), String(s.quarantinedTotal), s.catalogVersion, progress(s)]),
  );
  const items = res.providers.flatMap((s) => s.quarantined.map((q) => [s.provider, q.source || '-', q.tool || '(whole source)', q.rule, q.reason]));
  if (items.length > 0) {
    ctx.out.line('', 'Quarantined (left out, neighbours serve):');
    ctx.out.table([{ header: 'PROVIDER' }, { header: 'SOURCE' }, { header: 'TOOL' }, { header: 'RULE' }, { header: 'REASON', flex: true }], items);
  }
  const shown = items.length;
  const total = res.providers.reduce((n, s) => n + s.quarantinedTotal, 0);
  if (total > shown) ctx.out.note(`${total - shown} more quarantined items are not listed (announcements carry at most 200 per provider); the adapter's log has one line each.`);
  return EXIT_CODES.ok;
}
