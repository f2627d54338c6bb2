/**
 * One-process mode (the embedded default): dispatcher and adapter-local in one Node process on the
 * in-process bus. Needs nothing but Node: `npm start`.
 */
import { serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { startDispatcher } from '@toolhub/dispatcher-core';
import { createLocalTools } from '@toolhub/local-tools';
import { onShutdown } from '@toolhub/runtime';
import { createLogger, initTelemetry } from '@toolhub/telemetry';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { toolhubConfig } from './config';

const WELCOME = `Welcome to ToolHub.
This file lives in the local provider's file root; agents can read it with file_read.
`;

async function main(): Promise<void> {
  const config = toolhubConfig.load();
  const telemetry = initTelemetry({ serviceName: 'toolhub' });
  const log = createLogger({ name: 'toolhub', level: config.logLevel });
  const root = resolve(config.root);
  mkdirSync(root, { recursive: true });
  if (!existsSync(join(root, 'welcome.txt'))) writeFileSync(join(root, 'welcome.txt'), WELCOME);

  const bus = new InProcessBus();
  const local = staticCatalog('local', createLocalTools({ root }));
  const adapter = await serveAdapter(bus, { provider: 'local', ...local }, { logger: log });
  const running = await startDispatcher(bus, { grpc: { host: config.grpcHost, port: config.grpcPort } });
  const address = running.grpc.address;

  process.stdout.write(
    [
      'ToolHub is running in one process (dispatcher + adapter-local, in-process bus).',
      `  gRPC API:   ${address}  (toolhub.v1.ToolHub; health and reflection on)`,
      `  providers:  local (${local.tools.size} tools)`,
      `  file root:  ${root}`,
      'Try, in another shell:',
      `  grpcurl -plaintext -d '{"provider":"local","name":"file_read","arguments":{"path":"welcome.txt"}}' ${address} toolhub.v1.ToolHub/RunTool`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  onShutdown(log, [
    { name: 'grpc', run: () => running.close() },
    { name: 'adapter-local', run: () => adapter.close() },
    { name: 'bus', run: () => bus.close() },
    { name: 'telemetry', run: () => telemetry.shutdown() },
  ]);
}

main().catch((err: unknown) => {
  process.stderr.write(`ToolHub failed to start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
