/** Settings of the one-process mode; all have defaults so `npm start` needs nothing. */
import { defineConfig, zBoolean, zDuration } from '@toolhub/config';
import { argumentLimitConfigFields } from '@toolhub/dispatcher-core';
import { connectionLimitConfigFields, grpcServerConfigFields } from '@toolhub/grpc-edge';
import { opsConfigFields } from '@toolhub/ops';
import { adminJsonLimitConfigFields, searchConfigFields, statsConfigFields } from '@toolhub/registry-core';
import { asyncRunConfigFields } from '@toolhub/dispatcher-core';
import { authConfigFields } from '@toolhub/auth';
import { mcpConfigFields } from '@toolhub/mcp-door';
import { consoleConfigFields } from '@toolhub/console';
import { z } from 'zod';

const level = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export const toolhubConfig = defineConfig({
  grpcHost: { env: 'TOOLHUB_GRPC_HOST', schema: z.string().min(1).default('127.0.0.1'), description: 'Interface the gRPC APIs listen on' },
  grpcPort: { env: 'TOOLHUB_GRPC_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50051), description: 'Port of the agent gRPC API (0 = any free port)' },
  adminPort: { env: 'TOOLHUB_ADMIN_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50052), description: 'Port of the RegistryAdmin gRPC API (0 = any free port)' },
  dataDir: { env: 'TOOLHUB_DATA_DIR', schema: z.string().min(1).default('.toolhub'), description: 'Where the embedded registry keeps its data and the local tools their files' },
  root: { env: 'TOOLHUB_LOCAL_ROOT', schema: z.string().min(1).optional(), description: 'Directory the local file tools are confined to (default <data dir>/files)' },
  mcp: { env: 'TOOLHUB_MCP', schema: zBoolean().default(true), description: 'Mount the MCP servers of TOOLHUB_MCP_CONFIG under provider mcp' },
  mcpConfig: { env: 'TOOLHUB_MCP_CONFIG', schema: z.string().optional(), description: 'MCP servers file (default: server-everything over stdio)' },
  cloud: { env: 'TOOLHUB_CLOUD', schema: zBoolean().default(true), description: 'Mount the OpenAPI documents of TOOLHUB_CLOUD_CONFIG under provider cloud' },
  cloudConfig: { env: 'TOOLHUB_CLOUD_CONFIG', schema: z.string().optional(), description: 'OpenAPI documents file (default: the Petstore example, calling a mock at 127.0.0.1:4010)' },
  resyncGraceMs: {
    env: 'TOOLHUB_RESYNC_GRACE',
    schema: zDuration({ min: '0ms', max: '1h' }).default(30_000),
    description: 'After a start, how long a provider of the stored catalog has to re-announce ("30s"): then the tools of a provider switched off are retired; "0ms" = never',
  },
  ...searchConfigFields(),
  ...statsConfigFields(),
  ...asyncRunConfigFields(),
  logLevel: { env: 'LOG_LEVEL', schema: level.default('warn'), description: 'Log level (logs go to stderr)' },
  ...opsConfigFields(),
  ...grpcServerConfigFields(),
  ...connectionLimitConfigFields(),
  ...adminJsonLimitConfigFields(),
  ...argumentLimitConfigFields(),
  ...authConfigFields(),
  ...mcpConfigFields(),
  ...consoleConfigFields(),
});
