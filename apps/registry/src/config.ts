/** Every environment variable the registry app reads (docker-compose.yml is checked against this). */
import { defineConfig, zDuration } from '@toolhub/config';
import { connectionLimitConfigFields, grpcServerConfigFields } from '@toolhub/grpc-edge';
import { opsConfigFields } from '@toolhub/ops';
import { adminJsonLimitConfigFields, searchConfigFields, statsConfigFields } from '@toolhub/registry-core';
import { authConfigFields, natsAuthConfigFields } from '@toolhub/auth';
import { consoleConfigFields } from '@toolhub/console';
import { z } from 'zod';

export const registryConfig = defineConfig({
  natsUrl: { env: 'NATS_URL', schema: z.string().min(1).default('nats://127.0.0.1:4222'), description: 'NATS server URL(s), comma-separated' },
  mongoUrl: { env: 'MONGO_URL', schema: z.string().min(1).default('mongodb://127.0.0.1:27017'), description: 'MongoDB (6+) or FerretDB connection string', secret: true },
  mongoDb: { env: 'TOOLHUB_MONGO_DB', schema: z.string().min(1).default('toolhub'), description: 'Database name' },
  adminHost: { env: 'TOOLHUB_ADMIN_HOST', schema: z.string().min(1).default('127.0.0.1'), description: 'Interface of the RegistryAdmin gRPC API (0.0.0.0 in containers)' },
  adminPort: { env: 'TOOLHUB_ADMIN_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50052), description: 'Port of the RegistryAdmin gRPC API' },
  statsConsumer: {
    env: 'TOOLHUB_STATS_CONSUMER',
    schema: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).default('registry-stats'),
    description: 'Durable JetStream consumer of tool.called events (shared by registry replicas)',
  },
  statsStartWindowMs: {
    env: 'TOOLHUB_STATS_START_WINDOW',
    schema: zDuration({ min: '0ms', max: '30d' }).default(3_600_000),
    description: 'A NEW statistics consumer on an empty store starts this far back ("1h"; "0ms" replays the whole stream); on a restored snapshot it starts at the newest call it holds',
  },
  resyncGraceMs: {
    env: 'TOOLHUB_RESYNC_GRACE',
    schema: zDuration({ min: '0ms', max: '1h' }).default(30_000),
    description: 'After a start, how long adapters have to re-announce ("30s"): then the stored catalog of a provider with no live replica is retired; "0ms" = never',
  },
  ...searchConfigFields(),
  ...statsConfigFields(),
  logLevel: { env: 'LOG_LEVEL', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), description: 'Log level' },
  ...opsConfigFields(),
  ...grpcServerConfigFields(),
  ...connectionLimitConfigFields(),
  ...adminJsonLimitConfigFields(),
  ...natsAuthConfigFields(),
  ...authConfigFields(),
  ...consoleConfigFields(),
});
