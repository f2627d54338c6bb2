/**
 * The `toolhub` command line (commander): global options, the commands and their help, and the
 * mapping of every outcome to an exit code. `main()` never calls process.exit, so tests run it
 * in-process; the bin sets process.exitCode from its answer.
 */
import { Command, CommanderError, Option } from 'commander';

import { adapterInitCommand, type AdapterInitOptions } from './commands/adapter-init';
import { auditCommand, type AuditOptions } from './commands/audit';
import { batchCommand, type BatchOptions } from './commands/batch';
import { catalogCommand } from './commands/catalog';
import { infoCommand } from './commands/info';
import { learnedCommand, type LearnedOptions } from './commands/learned';
import { lsCommand, type LsOptions } from './commands/ls';
import { DEFAULT_MCP_URL, runMcpBridge } from './commands/mcp-bridge';
import { natsAddProviderCommand, type NatsAddProviderOptions } from './commands/nats-add-provider';
import { preloadSetCommand, type PreloadSetOptions, preloadShowCommand, preloadSuggestCommand, type PreloadSuggestOptions } from './commands/preload';
import { providersCommand } from './commands/providers';
import { runCommand, type RunOptions } from './commands/run';
import { runsCancelCommand, runsGetCommand, runsLsCommand, type RunsLsOptions, runsWatchCommand, startRunCommand } from './commands/runs';
import { searchCommand, type SearchOptions } from './commands/search';
import { STATS_SORTS, statsCommand, type StatsOptions } from './commands/stats';
import type { CommandBody } from './context';
import { EXIT_CODES, type ExitCode } from './exit-codes';
import { type CliIo, withIoDefaults } from './io';
import { Output } from './output';
import { collect, oneOf, wholeNumber } from './parse';
import { reportError } from './report-error';
import { Session } from './session';
import { DEFAULT_ADDRESS, DEFAULT_ADMIN_ADDRESS, type GlobalFlags, resolveSettings } from './settings';

const EXIT_HELP = `
Exit codes:
  0  ok
  1  run: the tool ran and reported an error (its output is still printed)
  2  usage error (nothing was sent)
  3  not found (provider, tool, category, statistics)
  4  invalid argument (the server refused the input, e.g. arguments against the schema)
  5  unavailable or timed out (ToolHub not running? start it with npm start)
  6  any other failure

Environment: TOOLHUB_ADDRESS (agent API), TOOLHUB_ADMIN_ADDRESS (admin API),
  TOOLHUB_TOKEN (API key or JWT for both APIs when auth is on), TOOLHUB_CLIENT_CA / _CERT / _KEY / _TLS (TLS).
Examples:
  toolhub ls local
  toolhub search convert json to csv
  toolhub info local:math_calculate
  toolhub run local math_calculate --arg expression='17% * 2340'
  toolhub run mcp everything_echo --args '{"message":"hi"}' --json
  toolhub run local math_calculate --arg expression='2+2' --async   (prints a run id)
  toolhub runs watch <run-id>     (toolhub runs ls | get | cancel)
  toolhub batch calls.yaml        (dependency-ordered calls; {"$ref": "#/calls/<id>/text"} takes an earlier output)
  toolhub stats --sort failure_rate
  toolhub preload suggest
  toolhub learned --provider github
  toolhub adapter init my-adapter --provider weather
  toolhub nats add-provider weather (the NATS user of a new adapter team's provider)
  toolhub mcp                     (an MCP server on stdio for MCP hosts; TOOLHUB_MCP_URL, TOOLHUB_TOKEN)`;

/** Builds the program; `state.code` receives the exit code of the command that ran. */
function buildProgram(io: CliIo, state: { code: ExitCode }): Command {
  const program = new Command('toolhub');
  program
    .description('Operate and explore ToolHub from the shell: list, inspect, search and run tools; read statistics; edit the preload list.')
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .exitOverride()
    .showSuggestionAfterError(true)
    .showHelpAfterError('(toolhub --help lists the commands and options)')
    .option('--address <host:port>', `agent API (env TOOLHUB_ADDRESS, default ${DEFAULT_ADDRESS})`)
    .option('--admin-address <host:port>', `registry admin API (env TOOLHUB_ADMIN_ADDRESS, default ${DEFAULT_ADMIN_ADDRESS})`)
    .option('--json', 'print one JSON document instead of tables')
    .addOption(new Option('--timeout <ms>', 'deadline of each call in ms (default 10000); for run, the tool\'s timeout').argParser(wholeNumber(1)))
    .option('--tls', 'TLS to both APIs with the system\'s CAs (env TOOLHUB_CLIENT_TLS=1)')
    .option('--ca <file>', 'TLS, trusting this CA (PEM) for the servers\' certificates (env TOOLHUB_CLIENT_CA)')
    .option('--cert <file>', 'client certificate (PEM) for mTLS, with --key (env TOOLHUB_CLIENT_CERT)')
    .option('--key <file>', 'private key of --cert (env TOOLHUB_CLIENT_KEY)')
    .addHelpText('after', EXIT_HELP);

  /** Wraps a command body: settings, connections, error reporting, cleanup. */
  const act =
    <A extends unknown[]>(body: CommandBody<A>) =>
    async (...raw: unknown[]): Promise<void> => {
      const command = raw[raw.length - 1] as Command;
      const args = raw.slice(0, -1) as A;
      const flags = command.optsWithGlobals<GlobalFlags>();
      const out = new Output(io, flags.json === true);
      let session: Session | undefined;
      try {
        const settings = resolveSettings(flags, io.env);
        session = new Session(settings);
        state.code = await body({ settings, session, out, io }, ...args);
      } catch (err) {
        state.code = reportError(err, out, session?.settings);
      } finally {
        session?.close();
      }
    };

  program
    .command('adapter')
    .description('adapter development')
    .command('init')
    .description('scaffold an adapter repository: SDK, one tool, a test, a Dockerfile and CI running the conformance kit')
    .argument('<dir>', 'directory to create (must be new or empty)')
    .option('--provider <name>', 'provider name (default: from the directory name)')
    .action(act<[string, AdapterInitOptions]>(adapterInitCommand));

  program
    .command('nats')
    .description('NATS users of ToolHub services')
    .command('add-provider')
    .description("issue a new provider's NATS user: its users entry (permissions for that provider only), a password, and the adapter's NATS_* environment")
    .argument('<provider>', 'provider name, e.g. weather')
    .option('--user <name>', 'NATS user name (default adapter_<provider>)')
    .option('--password <password>', 'password (default: 24 random characters)')
    .option('--conf <file>', 'add the user to this nats-server config (e.g. deploy/nats/toolhub-auth.conf) instead of printing the entry')
    .action(act<[string, NatsAddProviderOptions]>(natsAddProviderCommand));

  program
    .command('mcp')
    .description('an MCP server on stdio for hosts that launch a command, bridged to the hub\'s MCP door with TOOLHUB_TOKEN')
    .option('--url <url>', `the hub's MCP door (env TOOLHUB_MCP_URL, default ${DEFAULT_MCP_URL})`)
    .action(async (o: { url?: string }) => {
      try {
        state.code = (await runMcpBridge({ url: o.url ?? (io.env['TOOLHUB_MCP_URL'] || DEFAULT_MCP_URL), token: io.env['TOOLHUB_TOKEN'] || undefined, log: (l) => io.stderr.write(`${l}\n`) })) as ExitCode;
      } catch (err) {
        io.stderr.write(`toolhub mcp: ${(err as Error).message}\n`);
        state.code = EXIT_CODES.usage;
      }
    });

  program
    .command('providers')
    .description('the providers the dispatcher knows, with health and tool counts')
    .action(act(providersCommand));

  program
    .command('catalog')
    .description('catalog sync per provider (registry admin API) and every quarantined tool or source with its reason')
    .argument('[provider]', 'only this provider')
    .action(act((ctx, provider: string | undefined) => catalogCommand(ctx, provider)));

  program
    .command('audit')
    .description('admin changes recorded by the registry, newest first: who, when, what, before and after (needs an operator credential in TOOLHUB_TOKEN when auth is on)')
    .argument('[target]', 'only changes of this tool id, or "preload"')
    .option('--principal <id>', 'only changes by this principal, e.g. key:ops')
    .option('--limit <n>', 'at most this many entries (default 50)')
    .action(act<[string | undefined, AuditOptions]>(auditCommand));

  program
    .command('ls')
    .description('like ls: providers; a provider\'s categories and tools; or a category (local/file or local file)')
    .argument('[provider]', 'provider, or provider/path')
    .argument('[path]', 'category path, e.g. file or demo/everything')
    .option('-r, --recursive', 'every tool below the path')
    .action(act((ctx, provider: string | undefined, path: string | undefined, o: LsOptions) => lsCommand(ctx, provider, path, o)));

  program
    .command('info')
    .description('a tool\'s description, parameters and an example call')
    .argument('<tool>', 'provider, or the tool id provider:name')
    .argument('[name]', 'tool name (when the first argument is the provider)')
    .action(act((ctx, tool: string, name: string | undefined) => infoCommand(ctx, tool, name)));

  program
    .command('run')
    .description('run a tool; its output goes to stdout')
    .argument('<tool>', 'provider, or the tool id provider:name')
    .argument('[name]', 'tool name (when the first argument is the provider)')
    .option('--args <json>', 'the arguments as one JSON object; @file reads a file, - reads stdin')
    .option('--arg <key=value>', 'one argument: key=value (a string) or key:=json (number, boolean, array...); repeatable', collect)
    .option('--idempotency-key <key>', 'makes retries of a non-idempotent tool safe: the same key returns the first result')
    .option('--progress', "print the tool's progress and log lines to stderr while it runs")
    .option('--async', 'start the run and print its id at once (StartRun); follow it with toolhub runs watch|get|cancel <id>')
    .addHelpText('after', '\nThe global --timeout <ms> sets the tool\'s timeout.\nExit codes: 0 ok, 1 the tool reported an error, 3 unknown tool, 4 arguments refused, 5 unavailable/timed out.')
    .action(act((ctx, tool: string, name: string | undefined, o: RunOptions & { async?: boolean }) => (o.async ? startRunCommand(ctx, tool, name, o) : runCommand(ctx, tool, name, o))));

  const runs = program.command('runs').description('your async runs (started with toolhub run --async): list, follow, fetch, cancel');
  runs
    .command('ls')
    .description('your runs, newest first')
    .addOption(new Option('--state <state>', 'only runs in this state').choices(['queued', 'running', 'succeeded', 'failed', 'cancelled', 'unknown']))
    .option('--limit <n>', 'runs per page (default 50, at most 500)', wholeNumber(1))
    .option('--page-token <token>', 'the next page (printed under the table)')
    .action(act((ctx, o: RunsLsOptions) => runsLsCommand(ctx, o)));
  runs
    .command('get')
    .description('a run\'s state and, once it ended, its result (exit 0 succeeded or still going, 1 tool error, 6 failed/cancelled/unknown)')
    .argument('<run-id>')
    .action(act((ctx, id: string) => runsGetCommand(ctx, id)));
  runs
    .command('watch')
    .description('follow a run to its end: state changes and log lines as they come, then its result')
    .argument('<run-id>')
    .action(act((ctx, id: string) => runsWatchCommand(ctx, id)));
  runs
    .command('cancel')
    .description('cancel a queued run, or stop a running one (the adapter is told to abort)')
    .argument('<run-id>')
    .option('--reason <text>', 'recorded with the run')
    .action(act((ctx, id: string, o: { reason?: string }) => runsCancelCommand(ctx, id, o)));

  program
    .command('batch')
    .description('run a dependency-ordered batch of calls from a JSON or YAML file (RunTools); prints each call\'s result')
    .argument('<file>', 'the batch file; - reads stdin')
    .option('--max-parallel <n>', 'most calls running at once (default: the file\'s max_parallel, else 8; at most 32)', wholeNumber(1))
    .addHelpText(
      'after',
      `
File (JSON or YAML): a list \`calls\` (or the list itself), each {id, tool: provider:name, args, after?: [ids], timeout_ms?, idempotency_key?}.
An argument {"$ref": "#/calls/<id>/structured/<json pointer>"} (or .../text, .../content/...) takes that call's output
and makes this call wait for it. The server checks every id, reference and tool before any call runs.
The global --timeout <ms> is each call's timeout where the file sets none.
Exit codes: 0 every call ok, 1 a call failed, reported an error or was skipped (all results are printed),
  2 bad file, 4 the batch was refused (a cycle, an unknown call id or tool), 5 unavailable.

  calls:
    - id: sum
      tool: local:math_calculate
      args: { expression: "2 + 2" }
    - id: stats
      tool: local:text_stats
      args: { text: { $ref: "#/calls/sum/text" } }`,
    )
    .action(act((ctx, file: string, o: BatchOptions) => batchCommand(ctx, file, o)));

  program
    .command('search')
    .description('ranked search over every provider: keywords, fused with embeddings when the registry has an endpoint (see --mode)')
    .argument('[words...]', 'what the tool should do (the words form one query)')
    .option('-q, --query <text>', 'another query; hits of all queries are merged (repeatable, 5 in all)', collect)
    .option('--provider <provider>', 'only this provider')
    .option('--path <path>', 'only below this category path')
    .option('--limit <n>', 'most hits (default 10)', wholeNumber(1))
    .option('--mode <mode>', 'lexical | semantic | hybrid (default: hybrid when the registry has an embeddings endpoint, else lexical); the answer says which mode answered and why')
    .action(act((ctx, words: string[], o: SearchOptions) => searchCommand(ctx, words, o)));

  program
    .command('learned')
    .description('what search learned from use (registry admin API): which tool agents ran after which query, newest first, with its current weight and the bounds (needs an operator credential in TOOLHUB_TOKEN when auth is on)')
    .option('--provider <provider>', 'only tools of this provider')
    .option('--limit <n>', 'most pairs (default 20, at most 1000)', wholeNumber(1))
    .action(act((ctx, o: LearnedOptions) => learnedCommand(ctx, o)));

  program
    .command('stats')
    .description('call statistics per tool (registry admin API): busiest first, or one tool in detail')
    .argument('[tool-id]', 'one tool, provider:name')
    .addOption(new Option('--sort <order>', `order: ${STATS_SORTS.join(', ')}`).argParser(oneOf(STATS_SORTS)).default('calls'))
    .option('--limit <n>', 'most rows (default 20)', wholeNumber(1))
    .option('--provider <provider>', 'only this provider')
    .action(act((ctx, toolId: string | undefined, o: StatsOptions) => statsCommand(ctx, toolId, o)));

  const preload = program.command('preload').description('the preload list: tools every agent gets in its prompt (registry admin API)');
  preload
    .command('show')
    .description('the current list, its revision and who changed it')
    .action(act((ctx) => preloadShowCommand(ctx)));
  preload
    .command('suggest')
    .description('tools ranked by use for the list, and preloaded tools that could go (changes nothing)')
    .option('--limit <n>', 'most suggestions (default 5)', wholeNumber(1))
    .action(act((ctx, o: PreloadSuggestOptions) => preloadSuggestCommand(ctx, o)));
  preload
    .command('set')
    .description('replace the list with these tool ids, in this order')
    .argument('[ids...]', 'tool ids provider:name')
    .option('--expected-revision <n>', 'refuse the change unless the list is still at this revision (see preload show; 0 skips the check)', wholeNumber(0))
    .option('--by <who>', 'who made the change (default $USER)')
    .option('--comment <text>', 'why')
    .option('--clear', 'empty the list')
    .option('--force', 'do not check that the tools exist')
    .action(act((ctx, ids: string[], o: PreloadSetOptions) => preloadSetCommand(ctx, ids, o)));

  return program;
}

/**
 * Runs the CLI on `argv` (the arguments after the program name) and answers the exit code; never
 * exits the process and never throws.
 */
export async function main(argv: readonly string[], io: Partial<CliIo> = {}): Promise<ExitCode> {
  const resolved = withIoDefaults(io);
  const state: { code: ExitCode } = { code: EXIT_CODES.ok };
  const program = buildProgram(resolved, state);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return state.code;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end with a CommanderError too; they are not failures.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT_CODES.ok;
      return EXIT_CODES.usage;
    }
    return reportError(err, new Output(resolved, argv.includes('--json')));
  }
}
