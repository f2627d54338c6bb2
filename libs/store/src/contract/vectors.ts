/** Contract: search vectors round-trip exactly, per model, and survive a restart. */
import { type ContractContext, TEST_TIMEOUT } from './support';

const vec = (...xs: number[]) => Float32Array.from(xs);

export function vectorsContract(ctx: ContractContext): void {
  describe('search vectors', () => {
    it(
      'returns the stored vectors of the keys asked for, bit for bit, and nothing for unknown keys or other models',
      async () => {
        const s = ctx.store();
        await s.saveVectors('mini', new Map([['k1', vec(0.1, -0.2, 0.3)], ['k2', vec(1, 0, 0)]]));
        await s.saveVectors('other', new Map([['k1', vec(9, 9)]]));
        const got = await s.loadVectors('mini', ['k1', 'k2', 'k3']);
        expect([...got.keys()].sort()).toEqual(['k1', 'k2']);
        expect(got.get('k1')).toEqual(vec(0.1, -0.2, 0.3));
        expect((await s.loadVectors('other', ['k1', 'k2'])).get('k1')).toEqual(vec(9, 9));
        expect((await s.loadVectors('nobody', ['k1'])).size).toBe(0);
      },
      TEST_TIMEOUT,
    );

    it(
      'keeps vectors across a restart and accepts a key saved twice',
      async () => {
        const many = new Map(Array.from({ length: 1200 }, (_, i) => [`key${i}`, vec(i, i / 2)] as const));
        await ctx.store().saveVectors('mini', many);
        await ctx.store().saveVectors('mini', new Map([['key7', vec(7, 3.5)]]));
        const again = await ctx.restart();
        const got = await again.loadVectors('mini', [...many.keys()]);
        expect(got.size).toBe(1200);
        expect(got.get('key1199')).toEqual(vec(1199, 599.5));
      },
      TEST_TIMEOUT,
    );

    it('refuses a model name it could not key by', async () => {
      await expect(ctx.store().saveVectors('', new Map([['k', vec(1)]]))).rejects.toMatchObject({ code: 'invalid_options' });
    });
  });
}
