import { InProcessBus } from '../src/index';
import { busContractSuite } from '../src/testing';

busContractSuite('InProcessBus', async () => {
  const bus = new InProcessBus();
  return { bus, cleanup: () => bus.close() };
});
