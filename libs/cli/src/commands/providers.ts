/** `toolhub providers`: the providers the dispatcher knows, with their health. */
import type { ProviderStatus } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

/** REFUSED (another contract major: the dispatcher will not call it), healthy or DOWN. */
function health(p: ProviderStatus): string {
  if (p.incompatible) return 'REFUSED';
  return p.healthy ? 'healthy' : 'DOWN';
}

/** Prints the providers; exit 0 even when one is unhealthy (the table says so). */
export async function providersCommand(ctx: CommandContext): Promise<ExitCode> {
  const res = await (await ctx.session.agent()).listProviders();
  if (ctx.out.json) {
    ctx.out.document({ providers: res.providers });
    return EXIT_CODES.ok;
  }
  if (res.providers.length === 0) {
    ctx.out.note('No providers are registered yet: no adapter has announced itself to the dispatcher.');
    return EXIT_CODES.ok;
  }
  ctx.out.table(
    [{ header: 'PROVIDER' }, { header: 'HEALTH' }, { header: 'TOOLS', align: 'right' }, { header: 'REPLICAS', align: 'right' }, { header: 'CONTRACT' }, { header: 'DETAIL', flex: true }],
    res.providers.map((p) => [p.provider, health(p), String(p.toolCount), String(p.replicas), p.contractVersion || '-', p.detail]),
  );
  return EXIT_CODES.ok;
}
