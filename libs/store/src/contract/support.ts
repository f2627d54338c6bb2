/** Shared pieces of the RegistryStore contract suite: the fixture, a fake clock, builders. */
import { Importance, type ToolCalled, type ToolHubErrorCode, type ToolInfo, findToolHubError, parseToolId } from '@toolhub/contracts';

import type { StoreOptions } from '../options';
import type { RegistryStore } from '../store';

/** What the factory of `storeContractSuite` returns: a fresh, empty store and its teardown. */
export interface StoreFixture {
  readonly store: RegistryStore;
  /**
   * Opens the same data again with `options` (the suite closes every store it got before calling
   * this, as a restarted process would find them).
   */
  reopen?(options: StoreOptions): Promise<RegistryStore>;
  /** Closes what the factory opened (tolerating closed stores) and deletes the data. */
  cleanup(): Promise<void>;
}

/** Makes a fresh, empty store with `options` (the suite passes a fake clock). */
export type StoreFactory = (options: StoreOptions) => Promise<StoreFixture>;

/** What each part of the suite gets. */
export interface ContractContext {
  /** The store in use (changes after `restart`). */
  store(): RegistryStore;
  readonly clock: FakeClock;
  /** False when counted event ids are forgotten on restart (see StoreCapabilities). */
  readonly claimsSurviveRestart: boolean;
  /** Closes the store in use and every one opened by `restart`, then opens the data again. */
  restart(options?: Omit<StoreOptions, 'clock'>): Promise<RegistryStore>;
}

/** A clock tests move by hand. Starts at 2025-03-10 12:30 UTC. */
export class FakeClock {
  static readonly START = Date.UTC(2025, 2, 10, 12, 30);
  now = FakeClock.START;
  readonly read = (): number => this.now;
  reset(): void {
    this.now = FakeClock.START;
  }
  advance(ms: number): void {
    this.now += ms;
  }
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
/** Timeout of each contract test: generous for a slow shared server. */
export const TEST_TIMEOUT = 60_000;

/** A valid tool definition with `name`, overridable in part. */
export function tool(name: string, extra: Partial<ToolInfo> = {}): ToolInfo {
  return {
    id: '',
    provider: '',
    name,
    path: 'files',
    description: `Does ${name.replace(/_/g, ' ')}. Use it when you need that; it returns the result as text.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    outputDescription: 'Text.',
    examples: [],
    importance: Importance.IMPORTANCE_NORMAL,
    annotations: { readOnly: true },
    version: '',
    tags: ['files'],
    defaultTimeoutMs: 0,
    ...extra,
  };
}

/** A `tool.called` event of `toolId` (status ok, 10 ms, timestamp "now" unless given). */
export function called(eventId: string, toolId: string, extra: Partial<ToolCalled> = {}): ToolCalled {
  const parsed = parseToolId(toolId);
  return {
    eventId,
    toolId,
    provider: parsed?.provider ?? '',
    name: parsed?.name ?? '',
    status: 'ok',
    errorCode: 0,
    latencyMs: 10,
    attempts: 1,
    fallbackUsed: '',
    caller: 'contract-test',
    timestampUnixMs: 0,
    searchId: '',
    claimGroup: '',
    ...extra,
  };
}

/** `count` events `<prefix>-<i>` of `toolId`. */
export function calls(prefix: string, toolId: string, count: number, extra: Partial<ToolCalled> = {}): ToolCalled[] {
  return Array.from({ length: count }, (_, i) => called(`${prefix}-${i}`, toolId, extra));
}

/** Awaits `promise`, expects a ToolHubError with `code` (and a violation of `field`), returns it. */
export async function expectToolHubError(promise: Promise<unknown>, code: ToolHubErrorCode, field?: string): Promise<NonNullable<ReturnType<typeof findToolHubError>>> {
  const outcome = await promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  if (outcome.ok) throw new Error(`expected a ToolHubError ${code}, but the call succeeded with ${JSON.stringify(outcome.value)}`);
  const found = findToolHubError(outcome.error);
  if (!found) throw new Error(`expected a ToolHubError ${code}, got ${String(outcome.error)}`);
  expect(found.code).toBe(code);
  if (field !== undefined) expect(found.violations.map((v) => v.field)).toContain(field);
  expect(found.message.length).toBeGreaterThan(20);
  return found;
}
