import { AdapterRunRequest, encodeReusing, ToolCalled } from '@toolhub/contracts';

const event = (i: number): ToolCalled => ({
  eventId: `e-${i}`,
  toolId: 'local:echo',
  provider: 'local',
  name: 'echo',
  status: 'ok',
  errorCode: 0,
  latencyMs: i,
  attempts: 1,
  fallbackUsed: '',
  caller: 'c',
  timestampUnixMs: 1_700_000_000_000 + i,
  searchId: '',
  claimGroup: '',
});

describe('encodeReusing', () => {
  it('gives the same bytes as a fresh writer, message after message, each its own array', () => {
    const out = [0, 1, 2].map((i) => encodeReusing(ToolCalled, event(i)));
    out.forEach((bytes, i) => expect(Buffer.from(bytes)).toEqual(Buffer.from(ToolCalled.encode(event(i)).finish())));
    expect(out[0]!.buffer).not.toBe(out[1]!.buffer);
    expect(ToolCalled.decode(out[2]!).eventId).toBe('e-2');
  });

  it('is not thrown off by a large message or a failed encode', () => {
    const big = { name: 'echo', arguments: { text: 'x'.repeat(200_000) }, deadlineUnixMs: 1, idempotencyKey: '', caller: '' };
    expect(Buffer.from(encodeReusing(AdapterRunRequest, big))).toEqual(Buffer.from(AdapterRunRequest.encode(big).finish()));
    const failing = {
      encode(m: ToolCalled, w?: Parameters<typeof ToolCalled.encode>[1]) {
        ToolCalled.encode(m, w);
        throw new Error('half written');
      },
    };
    expect(() => encodeReusing(failing, event(7))).toThrow('half written');
    expect(Buffer.from(encodeReusing(ToolCalled, event(8)))).toEqual(Buffer.from(ToolCalled.encode(event(8)).finish()));
  });
});
