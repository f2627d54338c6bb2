import { z } from 'zod';
import { ConfigError, envNameFor, loadConfig } from '@toolhub/config';

describe('loadConfig with a plain zod object', () => {
  const schema = z.object({
    grpcPort: z.coerce.number().int().default(50051),
    natsURL: z.string().default('nats://127.0.0.1:4222'),
    adminToken: z.string().min(32).optional(),
  });

  it('derives variable names from the keys and the prefix', () => {
    const config = loadConfig(schema, { prefix: 'TOOLHUB_', env: { TOOLHUB_GRPC_PORT: '1234', TOOLHUB_NATS_URL: 'nats://n:4222' } });
    expect(config).toEqual({ grpcPort: 1234, natsURL: 'nats://n:4222', adminToken: undefined });
  });

  it('applies overrides > env > defaults', () => {
    const env = { GRPC_PORT: '1', NATS_URL: 'nats://env' };
    expect(loadConfig(schema, { env, overrides: { grpcPort: 2 } })).toMatchObject({ grpcPort: 2, natsURL: 'nats://env' });
    expect(loadConfig(schema, { env: {} })).toMatchObject({ grpcPort: 50051, natsURL: 'nats://127.0.0.1:4222' });
  });

  it('reads process.env by default', () => {
    process.env['ZZ_TEST_GRPC_PORT'] = '4321';
    try {
      expect(loadConfig(schema, { prefix: 'ZZ_TEST' }).grpcPort).toBe(4321);
    } finally {
      delete process.env['ZZ_TEST_GRPC_PORT'];
    }
  });

  it('names variables in the object refinements issues too, and hides values of secret-looking keys', () => {
    const refined = schema.refine((c) => c.grpcPort !== 4222, { path: ['grpcPort'], message: 'clashes with NATS' });
    let error: unknown;
    try {
      loadConfig(refined, { env: { GRPC_PORT: '4222', ADMIN_TOKEN: 'short-secret' } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const issues = (error as ConfigError).issues;
    expect(issues.map((i) => [i.env, i.value])).toEqual([
      ['ADMIN_TOKEN', '[REDACTED]'],
      ['GRPC_PORT', '4222'],
    ]);
    expect((error as ConfigError).message).not.toContain('short-secret');
    expect((error as ConfigError).message).toContain('GRPC_PORT="4222": clashes with NATS');
  });
});

describe('envNameFor', () => {
  it.each([
    ['grpcPort', '', 'GRPC_PORT'],
    ['natsURL', '', 'NATS_URL'],
    ['otlpHTTPEndpoint', 'TOOLHUB', 'TOOLHUB_OTLP_HTTP_ENDPOINT'],
    ['cache_ttl_core', 'TOOLHUB_', 'TOOLHUB_CACHE_TTL_CORE'],
    ['ttl2Core', '', 'TTL2_CORE'],
  ])('maps %s with prefix "%s" to %s', (key, prefix, expected) => {
    expect(envNameFor(key, prefix)).toBe(expected);
  });
});
