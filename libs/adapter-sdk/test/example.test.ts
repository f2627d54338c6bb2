import { InProcessBus } from '@toolhub/bus';

import { startDiceAdapter } from '../examples/dice-adapter';
import { AdapterClient } from '../src';

describe('the README example adapter', () => {
  it('serves its tools over a bus and answers list, info and run', async () => {
    const bus = new InProcessBus();
    const service = await startDiceAdapter(bus);
    const client = new AdapterClient(bus);
    try {
      const root = await client.list('dice', '', false, { timeoutMs: 1000 });
      expect(root.categories.map((c) => c.path)).toEqual(['games']);
      const info = await client.info('dice', 'dice_roll', { timeoutMs: 1000 });
      expect(info.path).toBe('games/dice');
      const res = await client.run('dice', { name: 'dice_roll', arguments: { sides: 6, count: 3 }, deadlineUnixMs: Date.now() + 1000, idempotencyKey: '', caller: 't' }, { timeoutMs: 1000 });
      const { faces, total } = res.structured as { faces: number[]; total: number };
      expect(faces).toHaveLength(3);
      expect(faces.every((f) => f >= 1 && f <= 6)).toBe(true);
      expect(total).toBe(faces.reduce((a, b) => a + b, 0));
      await expect(client.run('dice', { name: 'dice_roll', arguments: { sides: 1 }, deadlineUnixMs: Date.now() + 1000, idempotencyKey: '', caller: '' }, { timeoutMs: 1000 })).rejects.toMatchObject({
        code: 'invalid_argument',
      });
    } finally {
      await service.close();
      await bus.close();
    }
  });
});
