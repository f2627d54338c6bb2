/** The embedded RunStore (a NeDB file) against the RunStore contract, and its durability across a reopen. */
import { scratchDir } from '@toolhub/test-harness';
import { join } from 'node:path';

import { openEmbeddedRunStore } from '../src/embedded';
import { run, runStoreContract } from './support/contract';

describe('embedded RunStore', () => {
  let n = 0;
  const base = scratchDir('run-store');
  runStoreContract(() => openEmbeddedRunStore({ dir: join(base, String(n++)) }));

  it('keeps what was written across a close and reopen', async () => {
    const dir = join(base, 'reopen');
    const a = await openEmbeddedRunStore({ dir });
    await a.create(run('run_x'));
    await a.replace({ ...(await a.get('run_x'))!, state: 'running' });
    await a.close();
    const b = await openEmbeddedRunStore({ dir });
    expect(await b.get('run_x')).toMatchObject({ state: 'running', rev: 1 });
    await b.close();
  });
});
