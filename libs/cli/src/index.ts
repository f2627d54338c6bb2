/**
 * @toolhub/cli — the `toolhub` command line for operators and developers. Its public API is what
 * tests and wrappers need to run it in-process. Any new export added here becomes public API.
 */
export { main } from './program';
export { EXIT_CODES, type ExitCode, exitCodeForError } from './exit-codes';
export { type CliIo, type TextSink, withIoDefaults } from './io';
export { CliUsageError, isCliUsageError } from './errors';
export { RegistryAdminApi, type AdminCredentials, ADMIN_METHOD_PREFIX } from './admin-client';
export { type Settings, resolveSettings, DEFAULT_ADDRESS, DEFAULT_ADMIN_ADDRESS, DEFAULT_TIMEOUT_MS } from './settings';
export { type JsonError } from './report-error';
export { addUserToConfig, issueProviderUser, type IssuedProviderUser, type NatsAddProviderOptions } from './commands/nats-add-provider';
