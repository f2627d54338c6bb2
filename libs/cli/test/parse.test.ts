/** Command-line values: tool references and tool arguments. */
import { CliUsageError } from '@toolhub/cli';

import { parseToolArguments, parseToolRef } from '../src/parse';
import { parameterRows } from '../src/schema-summary';
import { renderTable } from '../src/table';

const noStdin = async () => '';

describe('parseToolRef', () => {
  it('reads <provider> <name> and <provider:name>', () => {
    expect(parseToolRef('local', 'file_read', 'info')).toEqual({ provider: 'local', name: 'file_read' });
    expect(parseToolRef('local:file_read', undefined, 'info')).toEqual({ provider: 'local', name: 'file_read' });
  });

  it('refuses half a reference and both forms at once', () => {
    expect(() => parseToolRef('local', undefined, 'run')).toThrow(CliUsageError);
    expect(() => parseToolRef('local:a', 'b', 'run')).toThrow(/not both/);
  });
});

describe('parseToolArguments', () => {
  it('sets strings with key=value and JSON values with key:=json, over --args', async () => {
    const args = await parseToolArguments('{"a":1,"b":"x"}', ['b=2', 'c:=2', 'd:=[true]', 'e=x=y', 'f='], noStdin);
    expect(args).toEqual({ a: 1, b: '2', c: 2, d: [true], e: 'x=y', f: '' });
  });

  it('reads --args - from stdin', async () => {
    expect(await parseToolArguments('-', [], async () => '{"q":"from stdin"}')).toEqual({ q: 'from stdin' });
  });

  it('explains what is wrong with bad input', async () => {
    await expect(parseToolArguments('nope', [], noStdin)).rejects.toThrow(/--args is not valid JSON/);
    await expect(parseToolArguments('"text"', [], noStdin)).rejects.toThrow(/must be a JSON object/);
    await expect(parseToolArguments(undefined, ['n:=x'], noStdin)).rejects.toThrow(/--arg n:= needs a JSON value/);
    await expect(parseToolArguments('@/no/such/file.json', [], noStdin)).rejects.toThrow(/cannot read \/no\/such\/file.json for --args: ENOENT/);
  });
});

describe('renderTable', () => {
  it('aligns columns two spaces apart, right-aligns numbers, and cuts only the flexible column to the width', () => {
    const columns = [{ header: 'TOOL' }, { header: 'CALLS', align: 'right' as const }, { header: 'SUMMARY', flex: true }];
    const rows = [
      ['local:a', '3', 'short'],
      ['local:bb', '12', 'a much longer summary that will not fit'],
    ];
    expect(renderTable(columns, rows)).toBe('TOOL      CALLS  SUMMARY\nlocal:a       3  short\nlocal:bb     12  a much longer summary that will not fit\n');
    const cut = renderTable(columns, rows, 36).split('\n');
    expect(cut[2]).toBe('local:bb     12  a much longer summ…');
    expect(Math.max(...cut.map((l) => l.length))).toBeLessThanOrEqual(36);
  });
});

describe('parameterRows', () => {
  it('lists required parameters first with a short type, default and first sentence', () => {
    const rows = parameterRows({
      type: 'object',
      properties: {
        mode: { enum: ['a', 'b'], default: 'a', description: 'How. More words here.' },
        items: { type: 'array', items: { type: 'string' }, description: 'e.g. "x". Listed.' },
        data: { anyOf: [{ type: 'array', items: { type: 'object' } }, { type: 'string' }] },
      },
      required: ['data'],
    });
    expect(rows).toEqual([
      { name: 'data', type: 'object[] | string', required: true, default: '', description: '' },
      { name: 'mode', type: '"a"|"b"', required: false, default: '"a"', description: 'How.' },
      { name: 'items', type: 'string[]', required: false, default: '', description: 'e.g. "x".' },
    ]);
  });
});
