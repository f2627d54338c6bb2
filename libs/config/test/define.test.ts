import { z } from 'zod';
import { ConfigError, defineConfig, formatEnvTable, isConfigError, loadConfig, zBoolean, zDuration, zList } from '@toolhub/config';

const dispatcher = defineConfig(
  {
    grpcPort: {
      env: 'TOOLHUB_GRPC_PORT',
      schema: z.coerce.number().int().min(0).max(65535).default(50051),
      description: 'Port of the agent gRPC API',
    },
    natsServers: { schema: zList(z.string().min(1)).default(['nats://127.0.0.1:4222']), description: 'NATS servers' },
    runTimeoutMs: { schema: zDuration({ min: '1ms' }).default(30_000), description: 'Default timeout of a tool run' },
    cache: { schema: z.enum(['memory', 'redis']).default('memory'), description: 'Cache backend' },
    redisUrl: { schema: z.string().url().optional(), description: 'Redis URL', secret: true },
    mongoUrl: { env: 'TOOLHUB_MONGO_URL', schema: z.string().min(1), description: 'MongoDB connection string' },
    debug: { env: 'TOOLHUB_DEBUG', schema: zBoolean().default(false), description: 'Verbose diagnostics' },
  },
  {
    prefix: 'TOOLHUB',
    check: (c) => (c.cache === 'redis' && !c.redisUrl ? [{ keys: ['redisUrl', 'cache'], message: 'redisUrl must be set when cache is "redis"' }] : []),
  },
);

const minimalEnv = { TOOLHUB_MONGO_URL: 'mongodb://localhost:27017/toolhub' };

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('defineConfig', () => {
  it('lists every variable the app reads with its default, description and flags', () => {
    expect(dispatcher.vars).toEqual([
      { key: 'grpcPort', env: 'TOOLHUB_GRPC_PORT', description: 'Port of the agent gRPC API', secret: false, required: false, default: '50051' },
      { key: 'natsServers', env: 'TOOLHUB_NATS_SERVERS', description: 'NATS servers', secret: false, required: false, default: 'nats://127.0.0.1:4222' },
      { key: 'runTimeoutMs', env: 'TOOLHUB_RUN_TIMEOUT_MS', description: 'Default timeout of a tool run', secret: false, required: false, default: '30000' },
      { key: 'cache', env: 'TOOLHUB_CACHE', description: 'Cache backend', secret: false, required: false, default: 'memory' },
      { key: 'redisUrl', env: 'TOOLHUB_REDIS_URL', description: 'Redis URL', secret: true, required: false },
      { key: 'mongoUrl', env: 'TOOLHUB_MONGO_URL', description: 'MongoDB connection string', secret: false, required: true },
      { key: 'debug', env: 'TOOLHUB_DEBUG', description: 'Verbose diagnostics', secret: false, required: false, default: 'false' },
    ]);
  });

  it('loads defaults when the environment is silent', () => {
    expect(dispatcher.load({ env: minimalEnv })).toEqual({
      grpcPort: 50051,
      natsServers: ['nats://127.0.0.1:4222'],
      runTimeoutMs: 30_000,
      cache: 'memory',
      redisUrl: undefined,
      mongoUrl: 'mongodb://localhost:27017/toolhub',
      debug: false,
    });
  });

  it('reads and converts the environment', () => {
    const config = dispatcher.load({
      env: {
        ...minimalEnv,
        TOOLHUB_GRPC_PORT: '6000',
        TOOLHUB_NATS_SERVERS: 'nats://a:4222, nats://b:4222,',
        TOOLHUB_RUN_TIMEOUT_MS: '1m30s',
        TOOLHUB_DEBUG: 'yes',
      },
    });
    expect(config).toMatchObject({ grpcPort: 6000, natsServers: ['nats://a:4222', 'nats://b:4222'], runTimeoutMs: 90_000, debug: true });
  });

  it('lets explicit overrides win over the environment, which wins over defaults', () => {
    const config = dispatcher.load({
      env: { ...minimalEnv, TOOLHUB_GRPC_PORT: '6000', TOOLHUB_CACHE: 'redis', TOOLHUB_REDIS_URL: 'redis://r:6379' },
      overrides: { grpcPort: 7000, runTimeoutMs: '2s', debug: undefined },
    });
    expect(config).toMatchObject({ grpcPort: 7000, runTimeoutMs: 2000, cache: 'redis', debug: false });
  });

  it('treats an empty variable as unset', () => {
    expect(dispatcher.load({ env: { ...minimalEnv, TOOLHUB_GRPC_PORT: '' } }).grpcPort).toBe(50051);
  });

  it('returns a frozen configuration', () => {
    expect(Object.isFrozen(dispatcher.load({ env: minimalEnv }))).toBe(true);
  });

  it('reports every problem at once, naming the variable, the value and what is expected', () => {
    const err = configError(() =>
      dispatcher.load({ env: { TOOLHUB_GRPC_PORT: '70000', TOOLHUB_RUN_TIMEOUT_MS: 'soon', TOOLHUB_CACHE: 'disk', TOOLHUB_DEBUG: 'maybe' } }),
    );
    expect(err.name).toBe('ConfigError');
    expect(err.code).toBe('invalid_config');
    expect(isConfigError(new Error('wrapped', { cause: err }))).toBe(true);
    expect(err.issues.map((i) => i.env)).toEqual([
      'TOOLHUB_GRPC_PORT',
      'TOOLHUB_RUN_TIMEOUT_MS',
      'TOOLHUB_CACHE',
      'TOOLHUB_MONGO_URL',
      'TOOLHUB_DEBUG',
    ]);
    expect(err.issues[0]).toMatchObject({ key: 'grpcPort', source: 'env', value: '70000' });
    expect(err.issues[0]?.expected).toMatch(/65535/);
    expect(err.issues[1]?.expected).toMatch(/duration such as "250ms"/);
    expect(err.issues[3]).toMatchObject({ key: 'mongoUrl', source: 'default' });
    expect(err.issues[3]).not.toHaveProperty('value');
    expect(err.message).toMatch(/^Invalid configuration \(5 problems\):\n/);
    expect(err.message).toContain('TOOLHUB_GRPC_PORT="70000"');
    expect(err.message).toContain('TOOLHUB_MONGO_URL is required but not set');
    expect(err.message).toContain('TOOLHUB_DEBUG="maybe": expected true/false');
  });

  it('never echoes a secret value', () => {
    const err = configError(() => dispatcher.load({ env: { ...minimalEnv, TOOLHUB_REDIS_URL: 'not a url with p4ssw0rd' } }));
    expect(err.issues[0]).toMatchObject({ env: 'TOOLHUB_REDIS_URL', value: '[REDACTED]' });
    expect(err.message).not.toContain('p4ssw0rd');
  });

  it('names an override as an explicit option', () => {
    const err = configError(() => dispatcher.load({ env: minimalEnv, overrides: { grpcPort: -1 } }));
    expect(err.issues[0]).toMatchObject({ key: 'grpcPort', source: 'override', value: '-1' });
    expect(err.message).toContain('grpcPort=-1 (explicit option, overrides TOOLHUB_GRPC_PORT)');
  });

  it('rejects bad combinations with a message naming every variable involved', () => {
    const err = configError(() => dispatcher.load({ env: { ...minimalEnv, TOOLHUB_CACHE: 'redis' } }));
    expect(err.issues).toEqual([
      {
        key: 'redisUrl',
        env: 'TOOLHUB_REDIS_URL',
        related: ['TOOLHUB_CACHE'],
        source: 'default',
        expected: 'redisUrl must be set when cache is "redis"',
        message: 'TOOLHUB_REDIS_URL + TOOLHUB_CACHE: redisUrl must be set when cache is "redis"',
      },
    ]);
  });

  it('redacts secrets in a copy for logging', () => {
    const config = dispatcher.load({ env: { ...minimalEnv, TOOLHUB_CACHE: 'redis', TOOLHUB_REDIS_URL: 'redis://:pw@r:6379' } });
    expect(dispatcher.redact(config)).toMatchObject({ redisUrl: '[REDACTED]', grpcPort: 50051 });
  });

  it('treats keys that look like credentials as secret unless told otherwise', () => {
    const def = defineConfig({
      apiKey: { schema: z.string().optional(), description: 'k' },
      dbPassword: { schema: z.string().optional(), description: 'p' },
      tokenBudget: { schema: z.coerce.number().optional(), description: 't', secret: false },
    });
    expect(def.vars.map((v) => [v.env, v.secret])).toEqual([
      ['API_KEY', true],
      ['DB_PASSWORD', true],
      ['TOKEN_BUDGET', false],
    ]);
  });

  it('refuses a declaration in which two keys read one variable, or a name a shell cannot export', () => {
    expect(() =>
      defineConfig({
        port: { env: 'PORT', schema: z.string(), description: '' },
        grpcPort: { env: 'PORT', schema: z.string(), description: '' },
      }),
    ).toThrow('config keys "port" and "grpcPort" both read PORT');
    expect(() => defineConfig({ port: { env: 'GRPC-PORT', schema: z.string(), description: '' } })).toThrow(TypeError);
  });

  it('is accepted by loadConfig', () => {
    expect(loadConfig(dispatcher, { env: minimalEnv }).grpcPort).toBe(50051);
  });

  it('renders a Markdown table of its variables', () => {
    const table = formatEnvTable(dispatcher.vars);
    expect(table.split('\n')[0]).toBe('| Variable | Default | Description |');
    expect(table).toContain('| `TOOLHUB_GRPC_PORT` | `50051` | Port of the agent gRPC API |');
    expect(table).toContain('| `TOOLHUB_MONGO_URL` | *(required)* | MongoDB connection string |');
    expect(table).toContain('| `TOOLHUB_REDIS_URL` |  | Redis URL (secret) |');
  });
});
