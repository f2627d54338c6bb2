/** Contract: the catalog mirror, registration by hand, and operator overlays. */
import { Importance } from '@toolhub/contracts';

import { type ContractContext, TEST_TIMEOUT, expectToolHubError, tool } from './support';

export function catalogContract(ctx: ContractContext): void {
  describe('catalog', () => {
    it(
      'adds a provider catalog and serves each tool with id, normalised path, version and defaults filled in',
      async () => {
        const result = await ctx.store().upsertTools('local', [tool('file_read', { path: '/Files//Read/' }), tool('file_write')]);
        expect(result).toEqual({ added: ['file_read', 'file_write'], changed: [], removed: [], unchanged: [], conflicts: [] });

        const read = await ctx.store().getTool('local', 'file_read');
        expect(read).toMatchObject({
          id: 'local:file_read',
          provider: 'local',
          name: 'file_read',
          path: 'files/read',
          source: 'adapter',
          enabled: true,
          fallbacks: [],
          overlay: {},
          importance: Importance.IMPORTANCE_NORMAL,
          declaredImportance: Importance.IMPORTANCE_NORMAL,
          inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          annotations: { readOnly: true },
          tags: ['files'],
          createdUnixMs: ctx.clock.now,
          updatedUnixMs: ctx.clock.now,
        });
        expect(read?.version).toMatch(/^[0-9a-f]{16}$/);
        expect(await ctx.store().getTool('local', 'file_delete')).toBeUndefined();
      },
      TEST_TIMEOUT,
    );

    it(
      'reports added, changed, removed and unchanged tools on a resync, and keeps what did not change as it was',
      async () => {
        await ctx.store().upsertTools('local', [tool('a_tool'), tool('b_tool'), tool('c_tool')]);
        const created = ctx.clock.now;
        ctx.clock.advance(1000);
        const result = await ctx.store().upsertTools('local', [tool('a_tool'), tool('b_tool', { description: 'A better description.' }), tool('d_tool')]);
        expect(result).toEqual({ added: ['d_tool'], changed: ['b_tool'], removed: ['c_tool'], unchanged: ['a_tool'], conflicts: [] });
        expect((await ctx.store().listTools({ provider: 'local' })).map((t) => t.name)).toEqual(['a_tool', 'b_tool', 'd_tool']);
        expect(await ctx.store().getTool('local', 'a_tool')).toMatchObject({ updatedUnixMs: created });
        expect(await ctx.store().getTool('local', 'b_tool')).toMatchObject({ description: 'A better description.', createdUnixMs: created, updatedUnixMs: created + 1000 });
        expect(await ctx.store().upsertTools('local', [tool('a_tool'), tool('b_tool', { description: 'A better description.' }), tool('d_tool')])).toMatchObject({
          unchanged: ['a_tool', 'b_tool', 'd_tool'],
        });
      },
      TEST_TIMEOUT,
    );

    it(
      'keeps a declared output schema as it was sent, and refuses one that is not a JSON object, naming the field',
      async () => {
        const schema = '{"type":"object","properties":{"$total":{"type":"number"}}}';
        await ctx.store().upsertTools('local', [tool('file_stat', { outputSchemaJson: schema })]);
        expect((await ctx.store().getTool('local', 'file_stat'))?.outputSchemaJson).toBe(schema);
        for (const bad of ['[1,2]', '{"type":', '"text"']) {
          await expectToolHubError(ctx.store().upsertTools('local', [tool('file_stat', { outputSchemaJson: bad })]), 'invalid_argument', 'tools[0].outputSchemaJson');
        }
        expect((await ctx.store().getTool('local', 'file_stat'))?.outputSchemaJson).toBe(schema);
      },
      TEST_TIMEOUT,
    );

    it(
      'keeps a sync of one provider away from the tools of another',
      async () => {
        await ctx.store().upsertTools('local', [tool('file_read')]);
        await ctx.store().upsertTools('mcp', [tool('file_read'), tool('web_fetch')]);
        expect(await ctx.store().upsertTools('mcp', [])).toMatchObject({ removed: ['file_read', 'web_fetch'] });
        expect((await ctx.store().listTools()).map((t) => t.id)).toEqual(['local:file_read']);
      },
      TEST_TIMEOUT,
    );

    it(
      'refuses a sync with a repeated or malformed name, or a tool of another provider, and changes nothing',
      async () => {
        await ctx.store().upsertTools('local', [tool('file_read')]);
        const repeated = await expectToolHubError(ctx.store().upsertTools('local', [tool('file_write'), tool('file_write')]), 'invalid_argument', 'tools[1].name');
        expect(repeated.message).toMatch(/tools\[0\]/);
        const malformed = await expectToolHubError(ctx.store().upsertTools('local', [tool('file_write'), tool('Read-File')]), 'invalid_argument', 'tools[1].name');
        expect(malformed.message).toContain('read_file');
        await expectToolHubError(ctx.store().upsertTools('local', [tool('web_fetch', { provider: 'cloud' })]), 'invalid_argument', 'tools[0].provider');
        await expectToolHubError(ctx.store().upsertTools('local', [tool('web_fetch', { id: 'cloud:web_fetch' })]), 'invalid_argument', 'tools[0].id');
        await expectToolHubError(ctx.store().upsertTools('local', [tool('web_fetch', { path: 'a/../b' })]), 'invalid_argument', 'tools[0].path');
        await expectToolHubError(ctx.store().upsertTools('Local Tools', [tool('web_fetch')]), 'invalid_argument', 'provider');
        expect((await ctx.store().listTools()).map((t) => t.id)).toEqual(['local:file_read']);
      },
      TEST_TIMEOUT,
    );

    it(
      'stores JSON Schemas with $-keys and dotted property names exactly',
      async () => {
        const inputSchema = {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          $defs: { pos: { type: 'integer', minimum: 0 } },
          properties: { 'a.b': { $ref: '#/$defs/pos' }, 'x$y': { type: 'string', enum: ['p.q', '$r'] } },
        };
        await ctx.store().upsertTools('cloud', [tool('odd_schema', { inputSchema, examples: [{ description: 'one', arguments: { 'a.b': 1 }, result: 'ok' }] })]);
        const stored = await ctx.store().getTool('cloud', 'odd_schema');
        expect(stored?.inputSchema).toEqual(inputSchema);
        expect(stored?.examples).toEqual([{ description: 'one', arguments: { 'a.b': 1 }, result: 'ok' }]);
      },
      TEST_TIMEOUT,
    );

    it(
      'lists tools by provider, by path prefix (whole segments only), by enabled state and by source, sorted by id',
      async () => {
        await ctx.store().upsertTools('local', [tool('issue_list', { path: 'github/issues' }), tool('repo_list', { path: 'github' }), tool('x_list', { path: 'githubx' }), tool('file_read')]);
        await ctx.store().upsertTools('mcp', [tool('issue_get', { path: 'github/issues' })]);
        await ctx.store().registerTool(tool('hand_made', { provider: 'manual', path: 'github' }));
        await ctx.store().setOverlay('local', 'repo_list', { enabled: false });
        const ids = async (filter: Parameters<ReturnType<typeof ctx.store>['listTools']>[0]) => (await ctx.store().listTools(filter)).map((t) => t.id);
        expect(await ids({ pathPrefix: 'github' })).toEqual(['local:issue_list', 'local:repo_list', 'manual:hand_made', 'mcp:issue_get']);
        expect(await ids({ pathPrefix: '/GitHub/Issues/' })).toEqual(['local:issue_list', 'mcp:issue_get']);
        expect(await ids({ provider: 'local', pathPrefix: 'github' })).toEqual(['local:issue_list', 'local:repo_list']);
        expect(await ids({ provider: 'local', enabled: false })).toEqual(['local:repo_list']);
        expect(await ids({ enabled: true, pathPrefix: 'github' })).toEqual(['local:issue_list', 'manual:hand_made', 'mcp:issue_get']);
        expect(await ids({ source: 'api' })).toEqual(['manual:hand_made']);
        expect(await ids({ provider: 'nobody' })).toEqual([]);
        expect(await ids(undefined)).toHaveLength(6);
        await expectToolHubError(ctx.store().listTools({ pathPrefix: '../etc' }), 'invalid_argument', 'filter.pathPrefix');
      },
      TEST_TIMEOUT,
    );

    it(
      'registers a tool by hand and refuses a second tool of the same provider and name with already_exists',
      async () => {
        const stored = await ctx.store().registerTool(tool('weather_get', { provider: 'manual', path: 'web' }));
        expect(stored).toMatchObject({ id: 'manual:weather_get', source: 'api', path: 'web' });
        expect(await ctx.store().getTool('manual', 'weather_get')).toMatchObject({ source: 'api' });
        const dup = await expectToolHubError(ctx.store().registerTool(tool('weather_get', { provider: 'manual', description: 'other' })), 'already_exists');
        expect(dup.message).toContain('manual:weather_get');
        await ctx.store().upsertTools('local', [tool('file_read')]);
        await expectToolHubError(ctx.store().registerTool(tool('file_read', { provider: 'local' })), 'already_exists');
        expect(await ctx.store().getTool('manual', 'weather_get')).toMatchObject({ description: stored.description });
        await expectToolHubError(ctx.store().registerTool(tool('Weather Get', { provider: 'manual' })), 'invalid_argument', 'tool.name');
        await expectToolHubError(ctx.store().registerTool(tool('weather_get')), 'invalid_argument', 'tool.provider');
      },
      TEST_TIMEOUT,
    );

    it(
      'leaves tools registered by hand alone during a sync of their provider and reports their names as conflicts',
      async () => {
        await ctx.store().registerTool(tool('file_read', { provider: 'local', description: 'Hand made.' }));
        const result = await ctx.store().upsertTools('local', [tool('file_read'), tool('file_write')]);
        expect(result).toEqual({ added: ['file_write'], changed: [], removed: [], unchanged: [], conflicts: ['file_read'] });
        expect(await ctx.store().getTool('local', 'file_read')).toMatchObject({ source: 'api', description: 'Hand made.' });
        expect(await ctx.store().upsertTools('local', [])).toMatchObject({ removed: ['file_write'] });
        expect(await ctx.store().getTool('local', 'file_read')).toBeDefined();
      },
      TEST_TIMEOUT,
    );

    it(
      'updates a tool registered by hand, refuses to update an adapter tool, and says not_found with close matches',
      async () => {
        await ctx.store().registerTool(tool('weather_get', { provider: 'manual' }));
        await ctx.store().setOverlay('manual', 'weather_get', { importance: Importance.IMPORTANCE_CORE });
        ctx.clock.advance(5000);
        const updated = await ctx.store().updateTool(tool('weather_get', { provider: 'manual', description: 'Now with wind.' }));
        expect(updated).toMatchObject({ description: 'Now with wind.', importance: Importance.IMPORTANCE_CORE, updatedUnixMs: ctx.clock.now });
        expect(updated.createdUnixMs).toBe(ctx.clock.now - 5000);
        const missing = await expectToolHubError(ctx.store().updateTool(tool('weather_gets', { provider: 'manual' })), 'not_found');
        expect(missing.suggestions).toEqual(['manual:weather_get']);
        await ctx.store().upsertTools('local', [tool('file_read')]);
        const adapter = await expectToolHubError(ctx.store().updateTool(tool('file_read', { provider: 'local', description: 'x' })), 'failed_precondition');
        expect(adapter.message).toMatch(/overlay/);
        expect((await ctx.store().getTool('local', 'file_read'))?.description).not.toBe('x');
      },
      TEST_TIMEOUT,
    );

    it(
      'deletes a tool with its overlay, and says not_found with close matches for a tool that does not exist',
      async () => {
        await ctx.store().upsertTools('local', [tool('file_read'), tool('file_write')]);
        await ctx.store().setOverlay('local', 'file_read', { enabled: false });
        await ctx.store().deleteTool('local', 'file_read');
        expect(await ctx.store().getTool('local', 'file_read')).toBeUndefined();
        const missing = await expectToolHubError(ctx.store().deleteTool('local', 'file_read'), 'not_found');
        expect(missing.suggestions).toEqual(['local:file_write']);
        // The overlay went with it: the tool comes back with defaults.
        await ctx.store().upsertTools('local', [tool('file_read'), tool('file_write')]);
        expect(await ctx.store().getTool('local', 'file_read')).toMatchObject({ enabled: true, overlay: {} });
        await expectToolHubError(ctx.store().deleteTool('local', 'File Read'), 'invalid_argument', 'name');
      },
      TEST_TIMEOUT,
    );

    it(
      'applies overlays over the declared definition; null clears a field back to what was declared',
      async () => {
        await ctx.store().upsertTools('local', [tool('file_read'), tool('file_read_v2')]);
        const set = await ctx.store().setOverlay('local', 'file_read', {
          importance: Importance.IMPORTANCE_CORE,
          enabled: false,
          fallbacks: ['local:file_read_v2', 'cloud:file_read'],
          changedBy: 'alice',
        });
        expect(set).toMatchObject({
          importance: Importance.IMPORTANCE_CORE,
          declaredImportance: Importance.IMPORTANCE_NORMAL,
          enabled: false,
          fallbacks: ['local:file_read_v2', 'cloud:file_read'],
          overlay: { importance: Importance.IMPORTANCE_CORE, enabled: false, fallbacks: ['local:file_read_v2', 'cloud:file_read'], updatedBy: 'alice' },
        });
        const partial = await ctx.store().setOverlay('local', 'file_read', { enabled: null });
        expect(partial).toMatchObject({ enabled: true, importance: Importance.IMPORTANCE_CORE, fallbacks: ['local:file_read_v2', 'cloud:file_read'] });
        const cleared = await ctx.store().setOverlay('local', 'file_read', { importance: null, fallbacks: null });
        expect(cleared).toMatchObject({ importance: Importance.IMPORTANCE_NORMAL, enabled: true, fallbacks: [], overlay: {} });
        expect(await ctx.store().getTool('local', 'file_read')).toMatchObject({ overlay: {} });
        await ctx.store().setOverlay('local', 'file_read', { fallbacks: ['cloud:file_read'] });
        expect(await ctx.store().setOverlay('local', 'file_read', { fallbacks: [] })).toMatchObject({ fallbacks: [], overlay: {} });
      },
      TEST_TIMEOUT,
    );

    it(
      'refuses a bad overlay (naming the field) and an overlay of a tool that does not exist, changing nothing',
      async () => {
        await ctx.store().upsertTools('local', [tool('file_read')]);
        await expectToolHubError(ctx.store().setOverlay('local', 'file_read', { fallbacks: ['local:file_read'] }), 'invalid_argument', 'patch.fallbacks[0]');
        await expectToolHubError(ctx.store().setOverlay('local', 'file_read', { fallbacks: ['cloud:a', 'nope'] }), 'invalid_argument', 'patch.fallbacks[1]');
        await expectToolHubError(ctx.store().setOverlay('local', 'file_read', { fallbacks: ['cloud:a', 'cloud:a'] }), 'invalid_argument', 'patch.fallbacks[1]');
        await expectToolHubError(ctx.store().setOverlay('local', 'file_read', { importance: Importance.IMPORTANCE_UNSPECIFIED }), 'invalid_argument', 'patch.importance');
        await expectToolHubError(ctx.store().setOverlay('local', 'file_read', { importance: 7 as Importance }), 'invalid_argument', 'patch.importance');
        await expectToolHubError(ctx.store().setOverlay('local', 'file_read', { enabled: 'no' as unknown as boolean }), 'invalid_argument', 'patch.enabled');
        const missing = await expectToolHubError(ctx.store().setOverlay('local', 'file_reed', { enabled: false }), 'not_found');
        expect(missing.suggestions).toEqual(['local:file_read']);
        expect(await ctx.store().getTool('local', 'file_read')).toMatchObject({ overlay: {}, enabled: true });
      },
      TEST_TIMEOUT,
    );

    it(
      'keeps overlays across resyncs, also when a sync drops the tool for a while',
      async () => {
        await ctx.store().upsertTools('mcp', [tool('web_fetch'), tool('web_search')]);
        await ctx.store().setOverlay('mcp', 'web_fetch', { importance: Importance.IMPORTANCE_CORE, fallbacks: ['cloud:web_fetch'] });
        await ctx.store().upsertTools('mcp', [tool('web_fetch', { description: 'Changed upstream.' }), tool('web_search')]);
        expect(await ctx.store().getTool('mcp', 'web_fetch')).toMatchObject({ description: 'Changed upstream.', importance: Importance.IMPORTANCE_CORE });
        // The MCP server was down at the adapter's start: an empty catalog, then the real one.
        expect(await ctx.store().upsertTools('mcp', [])).toMatchObject({ removed: ['web_fetch', 'web_search'] });
        expect(await ctx.store().getTool('mcp', 'web_fetch')).toBeUndefined();
        await ctx.store().upsertTools('mcp', [tool('web_fetch'), tool('web_search')]);
        expect(await ctx.store().getTool('mcp', 'web_fetch')).toMatchObject({ importance: Importance.IMPORTANCE_CORE, fallbacks: ['cloud:web_fetch'] });
      },
      TEST_TIMEOUT,
    );
  });
}
