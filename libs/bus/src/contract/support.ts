/**
 * Helpers for the bus contract suite. Plain functions, no Jest globals, so they are easy to reuse.
 */
import { randomBytes } from 'node:crypto';

import { type Bus } from '../bus';
import { isBusError, type BusErrorCode } from '../errors';

/** What a contract-suite factory returns for each test. */
export interface BusFixture {
  /** The bus under test. */
  bus: Bus;
  /**
   * Opens a second bus on the same broker (another connection), so delivery across connections is
   * tested. Omit for single-process buses: the suite then uses `bus` for both ends.
   */
  peer?: () => Promise<Bus>;
  /** Closes everything the fixture opened. Called after each test. */
  cleanup: () => Promise<void>;
}

/** Creates a fresh fixture; called once per test. */
export type BusFactory = () => Promise<BusFixture>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const bytes = (s: string): Uint8Array => encoder.encode(s);
export const text = (b: Uint8Array): string => decoder.decode(b);

/** A token unique to one test, so tests sharing a broker (and its stream) never see each other. */
export function uniqueToken(): string {
  return `t${randomBytes(6).toString('hex')}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `check` until it returns true; throws with `what` after `timeoutMs`. */
export async function eventually(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await sleep(10);
  }
}

/** Resolves to the BusError code an action failed with (sync throw or rejection), or fails the test. */
export async function failureCode(action: () => unknown): Promise<BusErrorCode> {
  try {
    await action();
  } catch (err) {
    if (isBusError(err)) return err.code;
    throw new Error(`expected a BusError, got: ${String(err)}`, { cause: err });
  }
  throw new Error('expected the action to fail, but it succeeded');
}
