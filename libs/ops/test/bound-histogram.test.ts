import { Histogram, Registry } from 'prom-client';

import { boundHistogram } from '../src/bound-histogram';

const buckets = [0.001, 0.01, 0.1, 1];

/** Two registries, one observed through prom-client's child and one through the bound series. */
function pair() {
  const make = () => {
    const registry = new Registry();
    const h = new Histogram({ name: 'x_seconds', help: 'x', labelNames: ['provider', 'code'] as const, buckets, registers: [registry] });
    return { registry, h };
  };
  return { plain: make(), bound: make() };
}

describe('boundHistogram', () => {
  it('exposes exactly what prom-client exposes for the same observations, including after reset and remove', async () => {
    const { plain, bound } = pair();
    const labels = { provider: 'local', code: 'OK' };
    const child = plain.h.labels(labels);
    const observe = boundHistogram(bound.h, labels);
    const other = boundHistogram(bound.h, { provider: 'mcp', code: 'OK' });
    const values = [0.0005, 0.001, 0.004, 0.05, 0.5, 2, 0, 0.01];
    for (const v of values) {
      child.observe(v);
      observe(v);
    }
    plain.h.labels({ provider: 'mcp', code: 'OK' }).observe(0.02);
    other(0.02);
    expect(await bound.registry.metrics()).toBe(await plain.registry.metrics());
    expect(await bound.registry.metrics()).toMatch(/x_seconds_count\{provider="local",code="OK"\} 8/);

    plain.h.reset();
    bound.h.reset();
    child.observe(0.003);
    observe(0.003);
    expect(await bound.registry.metrics()).toBe(await plain.registry.metrics());

    plain.h.remove(labels);
    bound.h.remove(labels);
    plain.h.labels(labels).observe(0.2);
    observe(0.2);
    expect(await bound.registry.metrics()).toBe(await plain.registry.metrics());
  });

  it('refuses a value that is not a number the way prom-client does', () => {
    const { bound } = pair();
    const observe = boundHistogram(bound.h, { provider: 'local', code: 'OK' });
    observe(0.1);
    expect(() => observe(Number.NaN)).toThrow(/Value is not a valid number/);
  });
});
