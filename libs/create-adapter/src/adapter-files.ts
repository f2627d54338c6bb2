/**
 * The files of a new adapter repository (`npm create @toolhub/adapter`, `toolhub adapter init`):
 * the SDK dependencies at the exact versions released with this scaffold, one tool, a unit test, a
 * main that reports a NATS refusal in one line with an exit code, a Dockerfile and CI that runs
 * the conformance kit against the adapter on nats-server. Plain template strings, so the package
 * ships no template folder.
 */
import { SCAFFOLD_VERSIONS, THIRD_PARTY_VERSIONS } from './versions';

/**
 * Exit codes of the scaffold's main (sysexits.h): NATS refused the user (bad credentials, or
 * permissions that do not cover this provider), NATS cannot be reached, anything else.
 */
export const ADAPTER_EXIT = { refused: 77, unavailable: 69, failed: 1 } as const;

/** Relative path → content. */
export type ScaffoldFiles = Record<string, string>;

/** The files for provider `provider` (a valid provider name). */
export function adapterFiles(provider: string): ScaffoldFiles {
  // Provider names may hold '-'; tool names may not.
  const tool = `${provider.replace(/-/g, '_')}_hello`.slice(0, 64);
  const pkg = {
    name: `${provider.replace(/_/g, '-')}-toolhub-adapter`,
    version: '0.1.0',
    private: true,
    description: `ToolHub adapter for ${provider}`,
    scripts: {
      build: 'tsc -p .',
      start: 'node dist/src/main.js',
      test: 'tsc -p . && node --test dist/test/',
      conformance: `toolhub-adapter-conformance --provider ${provider} --run-tool ${tool} --run-args '{"name":"CI"}'`,
    },
    engines: { node: '>=20.19' },
    dependencies: {
      '@toolhub/adapter-sdk': SCAFFOLD_VERSIONS['@toolhub/adapter-sdk'],
      '@toolhub/bus': SCAFFOLD_VERSIONS['@toolhub/bus'],
      '@toolhub/contracts': SCAFFOLD_VERSIONS['@toolhub/contracts'],
      '@opentelemetry/api': THIRD_PARTY_VERSIONS['@opentelemetry/api'],
    },
    devDependencies: {
      '@toolhub/adapter-conformance': SCAFFOLD_VERSIONS['@toolhub/adapter-conformance'],
      '@types/node': THIRD_PARTY_VERSIONS['@types/node'],
      typescript: THIRD_PARTY_VERSIONS.typescript,
    },
  };
  return {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'node16', moduleResolution: 'node16', strict: true, outDir: 'dist', rootDir: '.', types: ['node'] }, include: ['src', 'test'] }, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n',
    'src/tools.ts': `import { jsonResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { ToolHubError } from '@toolhub/contracts';

/** The tools of provider ${provider}. Names: ^[a-z][a-z0-9_]{0,63}$; paths: lower-case segments. */
export const tools: ToolDefinition<never>[] = [
  {
    name: '${tool}',
    path: 'greetings',
    description: 'Greets a person by name and returns the greeting. Use to check the adapter works. Not for anything else.',
    inputSchema: { type: 'object', properties: { name: { type: 'string', description: 'Who to greet' } }, required: ['name'] },
    annotations: { readOnly: true, idempotent: true },
    async run(args: { name: string }) {
      // Errors travel by code: the agent gets INVALID_ARGUMENT with this message and field.
      if (args.name.trim() === '') throw ToolHubError.invalidArgument('name must not be empty, e.g. "Ada".', [{ field: '/name', message: 'empty' }]);
      return jsonResult({ greeting: \`Hello, \${args.name}!\` });
    },
  },
];
`,
    'src/main.ts': `import { serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { isBusError, NatsBus, permissionViolationOf } from '@toolhub/bus';

import { tools } from './tools';

const PROVIDER = '${provider}';
/** sysexits.h: NATS refused this user, NATS cannot be reached, anything else. */
const EXIT = { refused: ${ADAPTER_EXIT.refused}, unavailable: ${ADAPTER_EXIT.unavailable}, failed: ${ADAPTER_EXIT.failed} } as const;
const user = process.env['NATS_USER'] ?? '(none)';
const servers = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** One line on stderr and an exit code, instead of a stack trace or an unhandled rejection. */
function fail(code: number, message: string): never {
  process.stderr.write(\`adapter \${PROVIDER}: \${message}\\n\`);
  process.exit(code);
}

/** NATS.js names the error of refused credentials AuthorizationError (it may sit in a cause chain). */
function isAuthorizationError(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) if (e.name === 'AuthorizationError') return true;
  return false;
}

async function main(): Promise<void> {
  let bus: NatsBus;
  try {
    // ensureStream false: an adapter's NATS user may not manage JetStream streams.
    // NATS_USER / NATS_PASSWORD / NATS_INBOX_PREFIX are read from the environment by NatsBus.
    bus = await NatsBus.connect({
      servers,
      name: \`\${PROVIDER}-adapter\`,
      ensureStream: false,
      onStatus: (status) => {
        // The server drops what it refuses (a subscription, a reply) and says so only here.
        const refused = permissionViolationOf(status);
        if (refused) {
          const action = refused.operation === 'publish' ? 'publish to' : 'subscribe to';
          fail(EXIT.refused, \`NATS user "\${user}" may not \${action} "\${refused.subject}": its permissions do not cover provider "\${PROVIDER}". Ask your ToolHub operator for this provider's user (toolhub nats add-provider \${PROVIDER}).\`);
        }
      },
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (isAuthorizationError(err)) fail(EXIT.refused, \`NATS at \${servers} refused user "\${user}": check NATS_USER and NATS_PASSWORD (ask your ToolHub operator: toolhub nats add-provider \${PROVIDER}).\`);
    if (isBusError(err, 'connection_failed')) fail(EXIT.unavailable, message);
    throw err;
  }
  const service = await serveAdapter(bus, { provider: PROVIDER, ...staticCatalog(PROVIDER, tools) });
  // SIGTERM: stop taking work, finish in-flight calls, then leave the bus. With NATS gone there is
  // nothing to drain to: give up after 20 s rather than wait for a server that may never return.
  process.once('SIGTERM', () => {
    setTimeout(() => fail(EXIT.unavailable, 'stopping took over 20 s (NATS unreachable?); exiting.'), 20_000).unref();
    void service.close().then(() => bus.close());
  });
  console.log(\`adapter \${PROVIDER} ready (NATS \${servers}, user \${user})\`);
}

main().catch((err: unknown) => fail(EXIT.failed, err instanceof Error ? err.message : String(err)));
`,
    'test/tools.test.ts': `import { AdapterClient, serveAdapter, staticCatalog } from '@toolhub/adapter-sdk';
import { InProcessBus } from '@toolhub/bus';
import { isToolHubError, RunStatus } from '@toolhub/contracts';
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { tools } from '../src/tools';

const bus = new InProcessBus();
const client = new AdapterClient(bus);
const run = (args: Record<string, unknown>) =>
  client.run('${provider}', { name: '${tool}', arguments: args, deadlineUnixMs: Date.now() + 5000, idempotencyKey: '', caller: 'test' }, { timeoutMs: 5000 });

before(async () => {
  await serveAdapter(bus, { provider: '${provider}', ...staticCatalog('${provider}', tools) }, { announceOnStart: false });
});
after(() => bus.close());

test('greets by name', async () => {
  const res = await run({ name: 'Ada' });
  assert.equal(res.status, RunStatus.RUN_STATUS_OK);
  assert.deepEqual(res.structured, { greeting: 'Hello, Ada!' });
});

test('refuses an empty name with invalid_argument', async () => {
  await assert.rejects(run({ name: ' ' }), (err) => isToolHubError(err, 'invalid_argument'));
});
`,
    Dockerfile: `# NODE_IMAGE: any Node 20.19+ image, e.g. one from your own registry (--build-arg NODE_IMAGE=…).
ARG NODE_IMAGE=node:24-slim
FROM \${NODE_IMAGE} AS build
WORKDIR /app
COPY package*.json tsconfig.json ./
RUN npm ci
COPY src src
COPY test test
RUN npm run build && npm prune --omit=dev

FROM \${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json .
USER node
CMD ["node", "dist/src/main.js"]
`,
    '.github/workflows/ci.yml': `name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    services:
      nats:
        image: nats:2.10
        ports: ['4222:4222']
    env:
      NATS_URL: nats://127.0.0.1:4222
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 24 }
      - run: npm ci
      - run: npm test
      # The adapter against the ToolHub adapter contract, over a real NATS server.
      - run: |
          npm start > adapter.log 2>&1 &
          for i in $(seq 1 30); do grep -q ready adapter.log && break; sleep 1; done
          npx toolhub-adapter-conformance --nats "$NATS_URL" --provider ${provider} --run-tool ${tool} --run-args '{"name":"CI"}'
`,
    'README.md': `# ${pkg.name}

A [ToolHub](https://example.invalid/toolhub) adapter: provider \`${provider}\`.

\`\`\`sh
npm install
npm test                      # unit tests (in-process bus)
npm run build
NATS_URL=nats://127.0.0.1:4222 npm start        # prints "adapter ${provider} ready"
NATS_URL=nats://127.0.0.1:4222 npm run conformance  # the ToolHub adapter conformance kit against it
\`\`\`

Against ToolHub's NATS, start it with the user your ToolHub operator issued for provider
\`${provider}\` (\`toolhub nats add-provider ${provider}\`): \`NATS_URL\`, \`NATS_USER\`,
\`NATS_PASSWORD\` and \`NATS_INBOX_PREFIX\` in the environment, then \`npm start\`. If NATS refuses
that user (wrong password, or permissions for another provider) the adapter says so in one line
and exits with code ${ADAPTER_EXIT.refused}; when NATS cannot be reached, with ${ADAPTER_EXIT.unavailable}.

Add tools in \`src/tools.ts\`. Throw \`ToolHubError.invalidArgument / notFound\` for the caller's
mistakes, return \`toolError('…')\` when the tool itself fails. See ADAPTERS.md in the ToolHub
repository for the contract, the versioning promise and how to release.
`,
  };
}
