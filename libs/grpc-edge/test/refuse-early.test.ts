/** Calls refused before they are decoded: the guard answers with the refusal and never decodes. */
import { ToolHubError, ToolHubService } from '@toolhub/contracts';

import { guardedServiceDefinition } from '../src';

describe('guardedServiceDefinition refuseEarly', () => {
  it('answers a refused method with the refusal and never decodes it; other methods decode as before', () => {
    let decoded = 0;
    const counting = Object.fromEntries(
      Object.entries(ToolHubService).map(([k, def]) => [k, { ...def, requestDeserialize: (b: Buffer) => (decoded++, def.requestDeserialize(b)) }]),
    ) as unknown as typeof ToolHubService;
    const refusal = new ToolHubError('rate_limited', 'The dispatcher is overloaded.');
    const guarded = guardedServiceDefinition(counting, 1024, { refuseEarly: (m) => (m === 'runTool' ? refusal : undefined) });
    // Bytes that would not even decode: a refused call never gets that far.
    const refused = guarded.runTool.requestDeserialize(Buffer.from([0xff, 0xff, 0xff])) as unknown as Record<symbol, unknown>;
    expect(Object.getOwnPropertySymbols(refused).map((s) => refused[s])).toEqual([refusal]);
    expect(decoded).toBe(0);
    expect(guarded.listTools.requestDeserialize(Buffer.alloc(0))).toMatchObject({ provider: '' });
    expect(decoded).toBe(1);
  });
});
