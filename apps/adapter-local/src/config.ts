/** Every environment variable adapter-local reads (docker-compose.yml is checked against this). */
import { defineConfig } from '@toolhub/config';
import { heartbeatConfigFields, opsConfigFields } from '@toolhub/ops';
import { natsAuthConfigFields } from '@toolhub/auth';
import { z } from 'zod';

export const adapterLocalConfig = defineConfig({
  natsUrl: { env: 'NATS_URL', schema: z.string().min(1).default('nats://127.0.0.1:4222'), description: 'NATS server URL(s), comma-separated' },
  root: { env: 'TOOLHUB_LOCAL_ROOT', schema: z.string().min(1), description: 'Directory the file tools are confined to (required)' },
  maxRootBytes: {
    env: 'TOOLHUB_LOCAL_MAX_ROOT_BYTES',
    schema: z.coerce.number().int().positive().default(256 * 1024 * 1024),
    description: 'Quota of the file root: most bytes its files may hold (file_write refuses to go past it)',
  },
  maxRootFiles: {
    env: 'TOOLHUB_LOCAL_MAX_ROOT_FILES',
    schema: z.coerce.number().int().positive().default(10_000),
    description: 'Quota of the file root: most files and folders below it',
  },
  logLevel: { env: 'LOG_LEVEL', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), description: 'Log level' },
  ...heartbeatConfigFields(),
  ...opsConfigFields(),
  ...natsAuthConfigFields(),
});
