/**
 * An adapter bundled with its own copy of @toolhub/contracts (or built against another release)
 * throws ToolHub errors of another class. They must still reach the caller with their own code.
 */
import { InProcessBus } from '@toolhub/bus';
import type * as Contracts from '@toolhub/contracts';
import { findToolHubError, isToolHubError, ToolHubError } from '@toolhub/contracts';

import { AdapterClient, serveAdapter, staticCatalog, type ToolDefinition } from '../src';

/** A second, independent copy of the errors module, as an adapter's own bundle would carry. */
function foreignErrorsModule(): typeof Contracts {
  let copy: typeof Contracts | undefined;
  jest.isolateModules(() => {
    copy = jest.requireActual<typeof Contracts>('@toolhub/contracts');
  });
  return copy!;
}

const foreign = foreignErrorsModule();

/** An error of a copy from before the brand: only its name and code say what it is. */
class UnbrandedToolHubError extends Error {
  override readonly name = 'ToolHubError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const tools: ToolDefinition<never>[] = [
  { name: 'bad_arg', path: 'x', description: 'Throws invalid_argument from another copy.', inputSchema: { type: 'object' }, run: async () => { throw foreign.ToolHubError.invalidArgument('count must be positive, e.g. 3.', [{ field: '/count', message: 'too small' }]); } },
  { name: 'missing', path: 'x', description: 'Throws not_found from another copy.', inputSchema: { type: 'object' }, run: async () => { throw foreign.ToolHubError.notFound('No row 7; rows are 1-5.', ['row_5']); } },
  { name: 'old_copy', path: 'x', description: 'Throws an unbranded rate_limited.', inputSchema: { type: 'object' }, run: async () => { throw new UnbrandedToolHubError('rate_limited', 'Slow down.'); } },
  { name: 'plain', path: 'x', description: 'Throws a plain Error with a code property.', inputSchema: { type: 'object' }, run: async () => { throw Object.assign(new Error('boom'), { code: 'not_found' }); } },
];

describe('errors from another copy of @toolhub/contracts', () => {
  const bus = new InProcessBus();
  const client = new AdapterClient(bus);

  beforeAll(async () => {
    await serveAdapter(bus, { provider: 'team', ...staticCatalog('team', tools) }, { announceOnStart: false });
  });
  afterAll(() => bus.close());

  const run = (name: string) => client.run('team', { name, arguments: {}, deadlineUnixMs: Date.now() + 5000, idempotencyKey: '', caller: '' }, { timeoutMs: 5000 });

  it('is a different class, yet recognised by brand and code', () => {
    const e = foreign.ToolHubError.timeout('late');
    expect(foreign.ToolHubError).not.toBe(ToolHubError);
    expect(isToolHubError(e)).toBe(true);
    expect(isToolHubError(e, 'timeout')).toBe(true);
    expect(isToolHubError(e, 'not_found')).toBe(false);
    expect(e instanceof ToolHubError).toBe(true);
    expect(findToolHubError(new Error('wrapped', { cause: e }))).toMatchObject({ code: 'timeout', message: 'late' });
  });

  it('keeps invalid_argument and its field details across the bus', async () => {
    await expect(run('bad_arg')).rejects.toMatchObject({ code: 'invalid_argument', message: 'count must be positive, e.g. 3.', violations: [expect.objectContaining({ field: '/count' })] });
  });

  it('keeps not_found and its suggestions', async () => {
    await expect(run('missing')).rejects.toMatchObject({ code: 'not_found', suggestions: ['row_5'] });
  });

  it('recognises a copy from before the brand by name and code', async () => {
    await expect(run('old_copy')).rejects.toMatchObject({ code: 'rate_limited', message: 'Slow down.' });
  });

  it('still treats a plain Error with a code property as an internal fault', async () => {
    await expect(run('plain')).rejects.toMatchObject({ code: 'internal' });
  });
});
