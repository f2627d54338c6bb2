/** `toolhub ls [provider] [path] [-r]`: like `ls`, the providers, or a provider's categories and tools. */
import { importanceName } from '@toolhub/contracts';

import type { CommandContext } from '../context';
import { EXIT_CODES, type ExitCode } from '../exit-codes';

/** Options of `ls`. */
export interface LsOptions {
  recursive?: boolean;
}

/**
 * Lists one level (or, with `recursive`, every tool below). `local/file` is read as provider
 * `local`, path `file`: provider names never contain a slash.
 */
export async function lsCommand(ctx: CommandContext, providerArg: string | undefined, pathArg: string | undefined, options: LsOptions): Promise<ExitCode> {
  let provider = providerArg ?? '';
  let path = pathArg ?? '';
  const slash = provider.indexOf('/');
  if (slash > 0 && pathArg === undefined) {
    path = provider.slice(slash + 1);
    provider = provider.slice(0, slash);
  }
  const res = await (await ctx.session.agent()).listTools({ provider, path, recursive: options.recursive === true });
  if (ctx.out.json) {
    ctx.out.document({
      provider,
      path,
      categories: res.categories,
      tools: res.tools.map((t) => ({ ...t, importance: importanceName(t.importance) })),
    });
    return EXIT_CODES.ok;
  }
  if (provider === '') {
    ctx.out.table(
      [{ header: 'PROVIDER' }, { header: 'TOOLS', align: 'right' }],
      res.categories.map((c) => [c.name, String(c.toolCount)]),
    );
    if (res.categories.length) ctx.out.note(`next: toolhub ls ${res.categories[0]!.name}`);
    return EXIT_CODES.ok;
  }
  if (res.categories.length) {
    ctx.out.table(
      [{ header: 'CATEGORY' }, { header: 'TOOLS', align: 'right' }],
      res.categories.map((c) => [`${c.path}/`, String(c.toolCount)]),
    );
  }
  if (res.tools.length) {
    if (res.categories.length) ctx.out.line('');
    ctx.out.table(
      [{ header: 'TOOL' }, { header: 'PATH' }, { header: 'IMPORTANCE' }, { header: 'SUMMARY', flex: true }],
      res.tools.map((t) => [t.id, t.path || '/', importanceName(t.importance), t.summary]),
    );
  }
  if (!res.categories.length && !res.tools.length) ctx.out.note(`(empty: ${provider}${path ? `/${path}` : ''} holds no tools)`);
  else if (!res.tools.length) ctx.out.note(`next: toolhub ls ${provider} ${res.categories[0]!.path}   (or -r for every tool below)`);
  else ctx.out.note(`next: toolhub info ${res.tools[0]!.id}`);
  return EXIT_CODES.ok;
}
