import type { HttpResponse } from '../src/http';
import { bodyExcerpt, httpFailure, toToolResult } from '../src/response';
import { SecretRedactor as Redactor } from '@toolhub/config';

function response(status: number, type: string, body: string | Buffer, truncated = false): HttpResponse {
  return {
    status,
    statusText: status === 200 ? 'OK' : status === 204 ? 'No Content' : 'Bad Request',
    headers: new Headers(type ? { 'content-type': type } : {}),
    url: new URL('https://api.test/v1/things?api_key=k'),
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
    truncated,
  };
}

const redactor = new Redactor(['s3cr3t-value']);

describe('toToolResult', () => {
  it('returns JSON as pretty text plus the structured value, redacted', () => {
    const result = toToolResult(response(200, 'application/json; charset=utf-8', '{"a":1,"token":"s3cr3t-value"}'), 1000, redactor);
    expect(result.structured).toEqual({ a: 1, token: '[REDACTED]' });
    expect(result.content).toEqual([{ text: '{\n  "a": 1,\n  "token": "[REDACTED]"\n}' }]);
  });

  it('says when there is no body', () => {
    expect(toToolResult(response(204, '', ''), 1000, redactor).content[0]!.text).toBe('HTTP 204 No Content (no response body).');
  });

  it('returns text as text and declared-but-broken JSON as text', () => {
    expect(toToolResult(response(200, 'text/plain', 'hello s3cr3t-value'), 1000, redactor).content).toEqual([{ text: 'hello [REDACTED]' }]);
    expect(toToolResult(response(200, 'application/json', '{oops'), 1000, redactor).content).toEqual([{ text: '{oops' }]);
  });

  it('returns images as image blocks and other binary data as a resource without the query', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    expect(toToolResult(response(200, 'image/png', png), 1000, redactor).content[1]).toEqual({ image: { mimeType: 'image/png', data: png } });
    const pdf = toToolResult(response(200, 'application/pdf', png), 1000, redactor).content;
    expect(pdf[0]!.text).toBe('HTTP 200: application/pdf data, 4 bytes.');
    expect(pdf[1]!.resource).toMatchObject({ uri: 'https://api.test/v1/things', mimeType: 'application/pdf' });
  });

  it('marks a cut body with a note and no structured value', () => {
    const cut = toToolResult(response(200, 'application/json', '[{"a":1},{"a"', true), 14, redactor);
    expect(cut.structured).toBeUndefined();
    expect(cut.content[0]!.text).toMatch(/^\[\{"a":1\},\{"a"\n\n\[Truncated: the response was larger than 14 bytes/);
    expect(toToolResult(response(200, 'application/zip', 'PK..', true), 4, redactor).content[0]!.text).toMatch(/^\(application\/zip data, not shown\)/);
  });
});

describe('errors', () => {
  it('excerpts bodies in one short line, and describes binary bodies instead of quoting them', () => {
    expect(bodyExcerpt(response(400, 'application/json', `{\n "error": "bad",\n "echo": "s3cr3t-value", "pad": "${'z'.repeat(500)}"}`), redactor)).toMatch(/^\{ "error": "bad", "echo": "\[REDACTED\]", "pad": "z+\.\.\.$/);
    expect(bodyExcerpt(response(400, 'application/octet-stream', 'abc'), redactor)).toBe('(application/octet-stream body, 3 bytes)');
  });

  it('names the status, the path without the query, and what to do', () => {
    const err = httpFailure('shop_get_thing', 'GET', response(400, 'application/json', '{"error":"limit must be <= 100"}'), redactor);
    expect(err.code).toBe('failed');
    expect(err.message).toBe('shop_get_thing: GET /v1/things answered HTTP 400 Bad Request — {"error":"limit must be <= 100"}. The API rejected the arguments; check them against tool_info and retry with corrected values.');
  });
});
