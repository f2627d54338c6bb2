import { embeddingText } from '@toolhub/search';

import { tool } from './fixtures';

describe('embeddingText', () => {
  it('reads a tool as words: name, category path, description, then each parameter with its allowed values', () => {
    const t = tool('weatherCo', 'getCurrentWeather', 'Current weather for a city.', { path: 'weather/current_conditions' });
    t.inputSchema = {
      type: 'object',
      properties: {
        cityName: { type: 'string', description: 'The city, e.g. Tokyo.' },
        unit: { type: 'string', description: 'Temperature unit.', enum: ['celsius', 'fahrenheit'] },
        days: { type: 'integer' },
      },
    };
    expect(embeddingText(t)).toBe(
      'get current weather (weather / current conditions): Current weather for a city.\n' +
        'Parameters: city name: The city, e.g. Tokyo.; unit: Temperature unit. (one of celsius, fahrenheit); days',
    );
  });

  it('leaves out the provider, which every tool of a provider shares', () => {
    expect(embeddingText(tool('github', 'list_issues', 'List the issues of a repository.'))).toBe('list issues: List the issues of a repository.');
  });

  it('describes nested parameters and array items, and stays bounded for huge schemas', () => {
    const t = tool('p', 'bulk', 'Many parameters.');
    t.inputSchema = {
      type: 'object',
      properties: {
        filter: { type: 'object', properties: { ownerId: { type: 'string', enum: Array.from({ length: 50 }, (_, i) => `v${i}`) } } },
        rows: { type: 'array', items: { type: 'object', properties: { rowKey: { type: 'string', description: 'Key of a row.' } } } },
        ...Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`extra${i}`, { type: 'string', description: 'x'.repeat(40) }])),
      },
    };
    const text = embeddingText(t);
    expect(text).toContain('owner id (one of v0, v1, v2, v3, v4, v5, v6, v7, v8, v9)');
    expect(text).not.toContain('v10');
    expect(text).toContain('row key: Key of a row.');
    expect(text.length).toBe(2000);
  });
});
