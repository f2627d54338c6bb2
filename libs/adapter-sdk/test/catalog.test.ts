import { Importance, ToolHubError } from '@toolhub/contracts';

import { staticCatalog, summarize } from '../src/catalog';
import { textResult } from '../src/results';
import type { RunContext, ToolDefinition } from '../src/types';

const schema = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] };

function tool(name: string, path: string, extra: Partial<ToolDefinition<never>> = {}): ToolDefinition<never> {
  return { name, path, description: `Does ${name}. More detail here.`, inputSchema: schema, run: async () => textResult(name), ...extra };
}

const catalog = staticCatalog('local', [
  tool('file_read', 'file', { importance: 'core' }),
  tool('file_write', 'file'),
  tool('issue_list', 'github/issues'),
  tool('repo_get', 'github'),
  tool('now', ''),
]);

const ctx: RunContext = { signal: new AbortController().signal, deadline: Date.now() + 1000, caller: '', idempotencyKey: '' };

describe('staticCatalog', () => {
  it('lists the top-level categories with tool counts and root-level tools', async () => {
    const res = await catalog.listTools('', false);
    expect(res.categories).toEqual([
      { path: 'file', name: 'file', toolCount: 2 },
      { path: 'github', name: 'github', toolCount: 2 },
    ]);
    expect(res.tools.map((t) => t.name)).toEqual(['now']);
  });

  it('lists one category and its sub-categories, normalising the path', async () => {
    const res = await catalog.listTools('/GitHub/', false);
    expect(res.categories).toEqual([{ path: 'github/issues', name: 'issues', toolCount: 1 }]);
    expect(res.tools.map((t) => t.id)).toEqual(['local:repo_get']);
    expect(res.tools[0]?.summary).toBe('Does repo_get.');
  });

  it('lists every tool below a path when recursive', async () => {
    const res = await catalog.listTools('github', true);
    expect(res.tools.map((t) => t.name)).toEqual(['repo_get', 'issue_list']);
  });

  it('answers an unknown category with not_found, close paths and the nearest parent', async () => {
    const err = await catalog.listTools('github/issuez', false).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ToolHubError);
    expect((err as ToolHubError).code).toBe('not_found');
    expect((err as ToolHubError).suggestions).toContain('github/issues');
    expect((err as ToolHubError).parentPath).toBe('github');
  });

  it('gives full info with importance and a content-hash version', async () => {
    const info = await catalog.getToolInfo('file_read');
    expect(info).toMatchObject({ id: 'local:file_read', provider: 'local', path: 'file', importance: Importance.IMPORTANCE_CORE, inputSchema: schema });
    expect(info.version).toMatch(/^[0-9a-f]{16}$/);
    const again = staticCatalog('local', [tool('file_read', 'file', { importance: 'core' })]);
    expect((await again.getToolInfo('file_read')).version).toBe(info.version);
    const changed = staticCatalog('local', [tool('file_read', 'file', { importance: 'core', description: 'Changed.' })]);
    expect((await changed.getToolInfo('file_read')).version).not.toBe(info.version);
  });

  it('answers an unknown tool with close names and the parent path of the best one', async () => {
    const err = (await catalog.getToolInfo('file_reed').catch((e: unknown) => e)) as ToolHubError;
    expect(err.code).toBe('not_found');
    expect(err.suggestions[0]).toBe('file_read');
    expect(err.parentPath).toBe('file');
    expect(err.message).toContain('Did you mean "file_read"');
  });

  it('runs a tool by name and refuses an unknown one', async () => {
    expect((await catalog.runTool('now', {}, ctx)).content).toEqual([{ text: 'now' }]);
    await expect(catalog.runTool('nope', {}, ctx)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses duplicate and invalid tool names at construction', () => {
    expect(() => staticCatalog('p', [tool('a_b', 'x'), tool('a_b', 'y')])).toThrow(/defined twice/);
    expect(() => staticCatalog('p', [tool('Bad-Name', 'x')])).toThrow(/bad_name/);
  });

  it('summarises to the first sentence, in English or Chinese', () => {
    expect(summarize('Reads a file. Returns text.')).toBe('Reads a file.');
    expect(summarize('读取文件。返回文本。')).toBe('读取文件。');
    expect(summarize('x'.repeat(300))).toHaveLength(160);
  });
});
