/** A complete ToolHub adapter: one provider (`dice`), two tools, served on NATS. */
import { type AdapterService, jsonResult, serveAdapter, staticCatalog, type ToolDefinition } from '@toolhub/adapter-sdk';
import { type Bus, NatsBus } from '@toolhub/bus';
import { ToolHubError } from '@toolhub/contracts';
import { randomInt } from 'node:crypto';

const roll: ToolDefinition<{ sides?: number; count?: number }> = {
  name: 'dice_roll',
  path: 'games/dice',
  description:
    'Rolls dice and returns each face and the total. Use for games and random choices. ' +
    'Not for cryptographic secrets.',
  inputSchema: {
    type: 'object',
    properties: {
      sides: { type: 'integer', minimum: 2, maximum: 1000, default: 6, description: 'Faces per die' },
      count: { type: 'integer', minimum: 1, maximum: 100, default: 1, description: 'How many dice' },
    },
  },
  annotations: { readOnly: true, idempotent: false },
  async run({ sides = 6, count = 1 }) {
    if (!Number.isInteger(sides) || sides < 2) {
      throw ToolHubError.invalidArgument('sides must be an integer of at least 2, e.g. 6.', [{ field: '/sides', message: 'too small', example: '6' }]);
    }
    const faces = Array.from({ length: count }, () => randomInt(1, sides + 1));
    return jsonResult({ faces, total: faces.reduce((a, b) => a + b, 0) });
  },
};

const coin: ToolDefinition = {
  name: 'coin_flip',
  path: 'games',
  description: 'Flips a fair coin and returns "heads" or "tails". Use to break ties.',
  inputSchema: { type: 'object', properties: {} },
  annotations: { readOnly: true },
  run: async () => jsonResult(randomInt(2) ? 'heads' : 'tails'),
};

/** Serves the dice provider on any bus (NATS in production, in-process in tests). */
export function startDiceAdapter(bus: Bus): Promise<AdapterService> {
  const catalog = staticCatalog('dice', [roll, coin] as ToolDefinition<never>[]);
  return serveAdapter(bus, { provider: 'dice', ...catalog });
}

if (require.main === module) {
  void (async () => {
    const bus = await NatsBus.connect({ servers: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222' });
    const service = await startDiceAdapter(bus);
    process.once('SIGTERM', () => void service.close().then(() => bus.close()));
  })();
}
