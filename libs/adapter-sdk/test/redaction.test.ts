/**
 * The SDK's redaction backstop: with the adapter's redactor (a SecretRedactor of @toolhub/config),
 * nothing serveAdapter sends or logs carries a configured secret — successful results, tool errors,
 * thrown errors (and the causes a logger prints with them), health detail and quarantine reasons —
 * even where the adapter itself forgot to redact.
 */
import { InProcessBus } from '@toolhub/bus';
import { SecretRedactor } from '@toolhub/config';
import { type AdapterHealthResponse, AdapterRunResponse, ToolHubError } from '@toolhub/contracts';
import pino from 'pino';

import { AdapterClient, type AdapterDefinition, serveAdapter, staticCatalog, type ToolDefinition } from '../src';

const SECRET = 'sk-live-7f3a9c2e5b1d';

const tools: ToolDefinition<never>[] = [
  {
    name: 'leaky_ok',
    path: 'x',
    description: 'Answers with the secret in text and structured content.',
    inputSchema: { type: 'object' },
    run: async () => ({ content: [{ text: `your key is ${SECRET}` }, { json: { key: SECRET } }], structured: { nested: [SECRET] } }),
  },
  {
    name: 'leaky_tool_error',
    path: 'x',
    description: 'Reports a tool error quoting the secret.',
    inputSchema: { type: 'object' },
    run: async () => ({ content: [{ text: `refused ${SECRET}` }], isError: true, errorMessage: `the API refused key ${SECRET}` }),
  },
  {
    name: 'leaky_failure',
    path: 'x',
    description: 'Throws a ToolHubError quoting the secret.',
    inputSchema: { type: 'object' },
    run: async () => {
      throw ToolHubError.failed(`upstream answered 401 for ${SECRET}`, [`retry without ${SECRET}`]);
    },
  },
  {
    name: 'leaky_crash',
    path: 'x',
    description: 'Throws a plain Error whose cause quotes the secret (what a logger prints with it).',
    inputSchema: { type: 'object' },
    run: async () => {
      throw new Error('connection to the server failed', { cause: new Error(`GET https://api.example/v1?api_key=${SECRET} refused`) });
    },
  },
];

describe('serveAdapter with the adapter’s redactor', () => {
  const bus = new InProcessBus();
  const client = new AdapterClient(bus);
  let logged = '';
  const logger = pino({ level: 'info' }, { write: (s: string) => void (logged += s) });

  beforeAll(async () => {
    const adapter: AdapterDefinition = {
      provider: 'vault',
      ...staticCatalog('vault', tools),
      health: async () => {
        throw new Error(`probe with ${SECRET} failed`);
      },
      quarantined: () => [{ source: 'backend', rule: 'load', reason: `could not log in as ${SECRET}` }],
      redactor: new SecretRedactor([SECRET]),
    };
    await serveAdapter(bus, adapter, { announceOnStart: true, logger });
  });
  afterAll(() => bus.close());

  const run = (name: string): Promise<AdapterRunResponse | ToolHubError> =>
    client.run('vault', { name, arguments: {}, deadlineUnixMs: Date.now() + 5000, idempotencyKey: '', caller: '' }, { timeoutMs: 5000 }).catch((err: ToolHubError) => err);

  it('redacts successful results and tool errors: text, JSON blocks, structured content and the error message', async () => {
    const ok = await run('leaky_ok');
    const failed = await run('leaky_tool_error');
    const text = JSON.stringify([AdapterRunResponse.toJSON(ok as AdapterRunResponse), AdapterRunResponse.toJSON(failed as AdapterRunResponse)]);
    expect(text).not.toContain(SECRET);
    expect((ok as AdapterRunResponse).content[0]?.text).toBe('your key is [REDACTED]');
    expect((failed as AdapterRunResponse).errorMessage).toBe('the API refused key [REDACTED]');
  });

  it('redacts thrown errors on the wire (message and details) and in the log line, causes included', async () => {
    const failure = await run('leaky_failure');
    expect(failure).toBeInstanceOf(ToolHubError);
    expect(JSON.stringify((failure as ToolHubError).toErrorInfo())).not.toContain(SECRET);
    expect((failure as ToolHubError).message).toBe('upstream answered 401 for [REDACTED]');
    const crash = await run('leaky_crash');
    expect((crash as ToolHubError).code).toBe('internal');
    expect(logged).toContain('adapter handler failed unexpectedly');
    expect(logged).toContain('api_key=[REDACTED]');
    expect(logged).not.toContain(SECRET);
  });

  it('redacts health detail and quarantine reasons (status) and what it logs about them', async () => {
    const health = (await client.health('vault', { timeoutMs: 5000 })) as AdapterHealthResponse;
    expect(health.detail).toBe('probe with [REDACTED] failed');
    expect(logged).toContain('could not log in as [REDACTED]');
    expect(logged).not.toContain(SECRET);
  });
});
