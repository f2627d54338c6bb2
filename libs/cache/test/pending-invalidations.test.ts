import { PendingInvalidations } from '../src/pending-invalidations';

describe('PendingInvalidations', () => {
  it('hands over the keys and prefixes it remembered, once', () => {
    const pending = new PendingInvalidations(10);
    pending.addKey('a');
    pending.addKey('a');
    pending.addPrefix('p:');
    expect(pending.take()).toEqual({ everything: false, keys: ['a'], prefixes: ['p:'] });
    expect(pending.isEmpty).toBe(true);
  });

  it('degrades to flushing everything past its limit', () => {
    const pending = new PendingInvalidations(2);
    pending.addKey('a');
    pending.addKey('b');
    pending.addKey('c');
    pending.addKey('d');
    expect(pending.take()).toEqual({ everything: true, keys: [], prefixes: [] });
  });

  it('treats an empty prefix as everything', () => {
    const pending = new PendingInvalidations(10);
    pending.addPrefix('');
    expect(pending.take().everything).toBe(true);
  });

  it('takes back a batch whose replay failed, merged with newer entries', () => {
    const pending = new PendingInvalidations(10);
    pending.addKey('a');
    const batch = pending.take();
    pending.addKey('b');
    pending.restore(batch);
    expect(pending.take()).toEqual({ everything: false, keys: ['b', 'a'], prefixes: [] });
  });
});
