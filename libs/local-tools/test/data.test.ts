import { createDataTools } from '../src';
import { MAX_CELL_DEPTH } from '../src/data/tools';
import { parseCsv, quoteField, toCsv } from '../src/data/csv';
import { call, callError, data, pick, textOf } from './helpers';

const tools = createDataTools({ maxRows: 50 });
const toCsvTool = pick(tools, 'data_json_to_csv');
const toJsonTool = pick(tools, 'data_csv_to_json');

describe('RFC 4180 quoting', () => {
  it('quotes fields holding the delimiter, a quote or a line break, and doubles quotes', () => {
    expect(quoteField('plain', ',')).toBe('plain');
    expect(quoteField('a,b', ',')).toBe('"a,b"');
    expect(quoteField('say "hi"', ',')).toBe('"say ""hi"""');
    expect(quoteField('two\nlines', ',')).toBe('"two\nlines"');
    expect(quoteField('a,b', ';')).toBe('a,b');
  });

  it('round-trips awkward values through write and parse', () => {
    const rows = [{ a: 'x,y', b: 'he said "no"', c: 'multi\r\nline' }, { a: '', b: ' spaced ', c: '"' }];
    const { csv } = toCsv(rows, { delimiter: ',', header: true, lineEnding: '\r\n', escapeFormulas: false });
    expect(parseCsv(csv, ',').map((r) => r.fields)).toEqual([['a', 'b', 'c'], ...rows.map((r) => [r.a, r.b, r.c])]);
  });
});

describe('data_json_to_csv', () => {
  it('uses the union of keys in first-seen order and JSON-encodes nested values', async () => {
    const result = await call(toCsvTool, { data: [{ name: 'Ada', langs: ['en', 'fr'] }, { name: 'Lin, Yu', age: 41, meta: { x: null } }], lineEnding: 'lf' });
    expect(textOf(result)).toBe('name,langs,age,meta\nAda,"[""en"",""fr""]",,\n"Lin, Yu",,41,"{""x"":null}"\n');
    expect(data(result)).toMatchObject({ columns: ['name', 'langs', 'age', 'meta'], rowCount: 2 });
  });

  it('ends lines with CRLF by default, as RFC 4180 says', async () => {
    expect(textOf(await call(toCsvTool, { data: [{ a: 1 }] }))).toBe('a\r\n1\r\n');
  });

  it('accepts JSON text, a delimiter, chosen columns and no header', async () => {
    const result = await call(toCsvTool, { data: '[{"a":1,"b":true,"c":null},{"a":2}]', delimiter: ';', columns: ['b', 'a'], header: false, lineEnding: 'lf' });
    expect(textOf(result)).toBe('true;1\n;2\n');
  });

  it('accepts a tab delimiter', async () => {
    expect(textOf(await call(toCsvTool, { data: [{ a: 'x\ty', b: 2 }], delimiter: '\t', lineEnding: 'lf' }))).toBe('a\tb\n"x\ty"\t2\n');
  });

  it('treats a single object as one row', async () => {
    expect(textOf(await call(toCsvTool, { data: '{"a":1}', lineEnding: 'lf' }))).toBe('a\n1\n');
  });

  it('neutralises spreadsheet formulas on request', async () => {
    expect(textOf(await call(toCsvTool, { data: [{ f: '=SUM(A1)', g: '-3' }], escapeFormulas: true, lineEnding: 'lf' }))).toBe("f,g\n'=SUM(A1),'-3\n");
  });

  it('reports invalid JSON text', async () => {
    const err = await callError(toCsvTool, { data: '[{"a":1},]' });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toMatch(/^data is not valid JSON text/);
  });

  it('points at the row that is not an object', async () => {
    const err = await callError(toCsvTool, { data: '[{"a":1}, 5]' });
    expect(err.violations[0]).toMatchObject({ field: '/data/1', message: 'is number' });
  });

  it('points at the bad row of an array argument too', async () => {
    const err = await callError(toCsvTool, { data: [{ a: 1 }, 'oops'] });
    expect(err.violations[0]?.field).toBe('/data/1');
  });

  it('refuses more rows than configured', async () => {
    const err = await callError(toCsvTool, { data: JSON.stringify(Array.from({ length: 51 }, () => ({ a: 1 }))) });
    expect(err.message).toContain('more than the 50');
  });

  it('refuses a row nested deeper than the limit instead of overflowing the stack, and accepts one at the limit', async () => {
    const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
    const err = await callError(toCsvTool, { data: `[{"a":1},{"deep":${nested(20_000)}}]` });
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toContain('row 1 of data nests objects or arrays more than 100 levels deep');
    expect(err.violations[0]?.field).toBe('/data/1');
    const ok = await call(toCsvTool, { data: `[{"deep":${nested(MAX_CELL_DEPTH)}}]`, lineEnding: 'lf' });
    expect(textOf(ok)).toBe(`deep\n${nested(MAX_CELL_DEPTH)}\n`);
  });

  it('refuses a quote as delimiter', async () => {
    expect((await callError(toCsvTool, { data: [], delimiter: '"' })).violations[0]?.field).toBe('/delimiter');
  });
});

describe('data_csv_to_json', () => {
  it('turns rows into objects keyed by the header', async () => {
    const result = await call(toJsonTool, { csv: 'name,age\r\n"Lin, Yu",41\r\nAda,36\r\n' });
    expect(data(result)['rows']).toEqual([
      { name: 'Lin, Yu', age: '41' },
      { name: 'Ada', age: '36' },
    ]);
    expect(textOf(result)).toBe('[\n{"name":"Lin, Yu","age":"41"},\n{"name":"Ada","age":"36"}\n]');
  });

  it('infers numbers, booleans and nulls on request but keeps leading zeros as text', async () => {
    const result = await call(toJsonTool, { csv: 'n,b,e,z,big\n1.5,true,,007,12345678901234567890\n', inferTypes: true });
    expect(data(result)['rows']).toEqual([{ n: 1.5, b: true, e: null, z: '007', big: '12345678901234567890' }]);
  });

  it('keeps quoted line breaks and doubled quotes, and skips blank lines', async () => {
    const result = await call(toJsonTool, { csv: 'a,b\n"x\ny","say ""hi"""\n\n1,2' });
    expect(data(result)['rows']).toEqual([
      { a: 'x\ny', b: 'say "hi"' },
      { a: '1', b: '2' },
    ]);
  });

  it('returns arrays without a header', async () => {
    expect(data(await call(toJsonTool, { csv: 'a;b\nc;d', delimiter: ';', header: false }))['rows']).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('makes header names unique and non-empty', async () => {
    expect(data(await call(toJsonTool, { csv: 'a,a,\n1,2,3' }))['columns']).toEqual(['a', 'a_2', 'column_3']);
  });

  it('fills short rows and warns about them', async () => {
    const result = await call(toJsonTool, { csv: 'a,b,c\n1,2' });
    expect(data(result)['rows']).toEqual([{ a: '1', b: '2', c: '' }]);
    expect(data(result)['warnings']).toEqual(['line 2 has 2 of 3 fields; the missing ones are empty.']);
  });

  it('refuses a row with more fields than the header, naming the line', async () => {
    const err = await callError(toJsonTool, { csv: 'a,b\n1,2\nLin, Yu,3\n' });
    expect(err.message).toContain('csv line 3 has 3 fields but the header has 2');
  });

  it('reports an unclosed quote with its line', async () => {
    const err = await callError(toJsonTool, { csv: 'a\n"open\nstill open' });
    expect(err.message).toBe('csv is not valid CSV: line 2: a quoted field is never closed; add the closing quote (").');
  });

  it('reports text after a closing quote', async () => {
    expect((await callError(toJsonTool, { csv: '"a"b,c' })).message).toContain('after the closing quote');
  });

  it('strips a byte-order mark', async () => {
    expect(data(await call(toJsonTool, { csv: '\uFEFFid\n1' }))['columns']).toEqual(['id']);
  });
});
