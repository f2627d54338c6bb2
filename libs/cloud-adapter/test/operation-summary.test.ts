import { summarize } from '@toolhub/adapter-sdk';
import { ToolSearchIndex } from '@toolhub/search';
import { join } from 'node:path';

import { loadOpenApiDocument, mapOperations } from '../src';
import { firstPlainSentence, operationLead } from '../src/operation-summary';

describe('the summary chosen from the operation', () => {
  it('skips a banner before a --- rule and boilerplate sentences, and falls back to description, then the operationId', () => {
    const banner = '**Starting a new project?** We recommend trying [Responses](/docs) to take advantage of the latest features.\n\n---\n\nCreates a model response for the given chat conversation. Learn more in the [guide](/g).';
    expect(firstPlainSentence(banner)).toBe('Creates a model response for the given chat conversation.');
    expect(operationLead('', '**Note:** rate limits apply.\n\nCreates an embedding vector.', 'createEmbedding')).toEqual({ lead: 'Creates an embedding vector.', rest: '' });
    expect(operationLead('', '', 'getUserByName').lead).toBe('Get user by name.');
    // Plain summaries stay as they are, versions and decimals included.
    expect(operationLead('Upgrade to v1.2 of the schema', 'Moves every record.', 'upgrade')).toEqual({ lead: 'Upgrade to v1.2 of the schema.', rest: 'Moves every record.' });
  });

  it('gives the OpenAI-style chat completion its own first sentence, so "create a chat completion" finds it first', async () => {
    const { document, refNames } = await loadOpenApiDocument(join(__dirname, 'fixtures', 'openai-banner.yaml'));
    const mapped = mapOperations('cloud', document, { alias: 'openai', refNames });
    const info = (name: string) => mapped.entries.find((e) => e.info.name === name)!.info;
    expect(summarize(info('openai_create_chat_completion').description)).toBe('Creates a model response for the given chat conversation.');
    expect(info('openai_create_chat_completion').description).not.toContain('Starting a new project');
    expect(summarize(info('openai_create_embedding').description)).toBe('Creates an embedding vector representing the input text.');
    expect(summarize(info('openai_list_models').description)).toBe('List models.');
    const index = new ToolSearchIndex();
    index.upsert(mapped.entries.map((e) => e.info));
    expect(index.search({ queries: ['create a chat completion'], limit: 3 }).hits[0]?.id).toBe('cloud:openai_create_chat_completion');
  });
});
