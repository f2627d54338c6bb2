/**
 * @toolhub/run-store — durable records of async runs: the RunStore port, no database driver. The
 * implementations have their own entries so a process carries only the driver it opens:
 * `@toolhub/run-store/embedded` (a NeDB file, the one-process mode) and `@toolhub/run-store/mongo`
 * (MongoDB / FerretDB, shared by dispatcher replicas). Any new export added here becomes public API.
 */
export { queuedRunRecord, type RunRequestFields } from './queued-run';
export { type ListRunsQuery, type RunRecord, type RunRecordProgress, type RunRecordState, type RunStore, TERMINAL_RUN_STATES } from './run-store';
