/** Every environment variable adapter-cloud reads (docker-compose.yml is checked against this). */
import { defineConfig } from '@toolhub/config';
import { heartbeatConfigFields, opsConfigFields } from '@toolhub/ops';
import { natsAuthConfigFields } from '@toolhub/auth';
import { z } from 'zod';

export const adapterCloudConfig = defineConfig({
  natsUrl: { env: 'NATS_URL', schema: z.string().min(1).default('nats://127.0.0.1:4222'), description: 'NATS server URL(s), comma-separated' },
  configFile: { env: 'TOOLHUB_CLOUD_CONFIG', schema: z.string().optional(), description: 'YAML/JSON file listing the OpenAPI documents (default: libs/cloud-adapter/config/default.yaml)' },
  logLevel: { env: 'LOG_LEVEL', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), description: 'Log level' },
  ...heartbeatConfigFields(),
  ...opsConfigFields(),
  ...natsAuthConfigFields(),
});
