/**
 * A directory↔symlink swap race against file creation: while file_write creates files in
 * `box/`, another task keeps replacing `box` with a link to a folder outside the root and back.
 * No file may appear outside, whichever way each write ends (created inside, or refused).
 */
import { readdir, rename, rm, mkdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';

import { createFileTools } from '../src';
import { call, pick, tempDir } from './helpers';

describe('file creation under a directory↔symlink swap race', () => {
  it('never creates a file outside the root', async () => {
    const r = await tempDir('toolhub-race-root-');
    const o = await tempDir('toolhub-race-outside-');
    try {
      const root = r.dir;
      await mkdir(join(root, 'box'));
      const write = pick(createFileTools({ root }), 'file_write');
      let stop = false;
      let swaps = 0;
      // The attacker: box is a real folder, then a link to the outside folder, then a folder again.
      const attacker = (async () => {
        while (!stop) {
          await rename(join(root, 'box'), join(root, 'box-real')).catch(() => undefined);
          await symlink(o.dir, join(root, 'box')).catch(() => undefined);
          await new Promise((res) => setImmediate(res));
          await rm(join(root, 'box'), { force: true }).catch(() => undefined);
          await rename(join(root, 'box-real'), join(root, 'box')).catch(() => undefined);
          swaps++;
          await new Promise((res) => setImmediate(res));
        }
      })();
      let created = 0;
      let refused = 0;
      for (let i = 0; i < 400; i++) {
        await call(write, { path: `box/f${i}.txt`, content: 'x', mode: 'create' }).then(
          () => created++,
          () => refused++,
        );
      }
      stop = true;
      await attacker;
      const escaped = await readdir(o.dir);
      // Printed for the record: how often the race was won by either side.
      process.stderr.write(`file race: ${swaps} swaps, ${created} created inside, ${refused} refused, ${escaped.length} outside\n`);
      expect(created + refused).toBe(400);
      expect(escaped).toEqual([]);
    } finally {
      await r.cleanup();
      await o.cleanup();
    }
  });
});
