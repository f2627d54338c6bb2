/** What every command gets: the resolved settings, the connections and the output. */
import type { ExitCode } from './exit-codes';
import type { CliIo } from './io';
import type { Output } from './output';
import type { Session } from './session';
import type { Settings } from './settings';

/** The context of one command run. */
export interface CommandContext {
  settings: Settings;
  session: Session;
  out: Output;
  io: CliIo;
}

/** A command's body: prints its result and answers the exit code (or throws, to be reported). */
export type CommandBody<A extends unknown[]> = (ctx: CommandContext, ...args: A) => Promise<ExitCode>;
