/**
 * @toolhub/bus/testing — the contract suite every Bus implementation must pass. Import it only from
 * Jest test files: it declares `describe`/`it` blocks.
 *
 * @example
 * busContractSuite('InProcessBus', async () => {
 *   const bus = new InProcessBus();
 *   return { bus, cleanup: () => bus.close() };
 * });
 */
import { type Bus } from './bus';
import { eventsContract } from './contract/events';
import { messagingContract, type ContractContext } from './contract/messaging';
import { type BusFactory, type BusFixture } from './contract/support';

export type { BusFactory, BusFixture } from './contract/support';
export { bytes, eventually, text, uniqueToken } from './contract/support';

/**
 * Declares one Jest `describe` block, `<name> fulfils the Bus contract`, with every behaviour the
 * rest of ToolHub relies on: request/reply (headers, timeout, no_responders, internal errors, queue
 * groups, wildcards, drain on close), publish/subscribe (fan-out, wildcards, isolation of copies),
 * durable events (order, de-duplication, redelivery, durable progress, several filters, batch size),
 * limits (payload_too_large, invalid_argument) and lifecycle (idempotent close, then `closed`).
 *
 * `makeBus` runs before each test and `cleanup` after it. Give `peer` when the bus talks to a
 * broker, so delivery across connections is exercised.
 */
export function busContractSuite(name: string, makeBus: BusFactory): void {
  describe(`${name} fulfils the Bus contract`, () => {
    let fixture: BusFixture | undefined;
    let peers: Bus[] = [];

    beforeEach(async () => {
      fixture = await makeBus();
    });

    afterEach(async () => {
      const opened = peers;
      peers = [];
      await Promise.allSettled(opened.map((p) => p.close()));
      await fixture?.cleanup();
      fixture = undefined;
    });

    const ctx: ContractContext = {
      bus: () => {
        if (!fixture) throw new Error('busContractSuite: no fixture (makeBus failed?)');
        return fixture.bus;
      },
      other: async () => {
        if (!fixture) throw new Error('busContractSuite: no fixture (makeBus failed?)');
        if (!fixture.peer) return fixture.bus;
        const peer = await fixture.peer();
        peers.push(peer);
        return peer;
      },
    };

    messagingContract(ctx);
    eventsContract(ctx);
  });
}
