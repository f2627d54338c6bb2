/** Settings of the one-process mode; all have defaults so `npm start` needs nothing. */
import { defineConfig } from '@toolhub/config';
import { z } from 'zod';

export const toolhubConfig = defineConfig({
  grpcHost: { env: 'TOOLHUB_GRPC_HOST', schema: z.string().min(1).default('127.0.0.1'), description: 'Interface the gRPC API listens on' },
  grpcPort: { env: 'TOOLHUB_GRPC_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50051), description: 'Port of the agent gRPC API (0 = any free port)' },
  root: { env: 'TOOLHUB_LOCAL_ROOT', schema: z.string().min(1).default('.toolhub/files'), description: 'Directory the local file tools are confined to' },
  logLevel: { env: 'LOG_LEVEL', schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'), description: 'Log level (logs go to stderr)' },
});
