/**
 * Debian's chromium driven by playwright-core (no browser download): the flags that let it start
 * here, an axe-core check, and a long-task recorder. Fails loudly when chromium is missing
 * (scripts/test-all.sh installs it with apt).
 */
import { credentials, Metadata } from '@grpc/grpc-js';
import { type GetPreloadSetRequest, type GetPreloadSetResponse, type RunToolRequest, type RunToolResponse, type SearchToolsRequest, type SearchToolsResponse, ToolHubClient } from '@toolhub/contracts';
import { existsSync, readFileSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; scripts/test-all.sh does) or set CHROMIUM_PATH.`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    // launch() gives every browser a fresh temporary profile (--user-data-dir) of its own.
  });
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
  targets: string[];
}

/** axe-core on the page as it is (evaluated through the DevTools protocol, so the page's CSP stays strict). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }> }> } }).axe;
    const r = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) }));
  });
}

/** Serious or critical violations only (what the issue forbids). */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  return (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * Starts recording long tasks (PerformanceObserver 'longtask', each over 50 ms by definition); the
 * returned function reads those seen since this call. One observer per page, however often called.
 */
export async function recordLongTasks(page: Page): Promise<() => Promise<number[]>> {
  const from = await page.evaluate(() => {
    const w = globalThis as unknown as { __longTasks?: number[] };
    if (!w.__longTasks) {
      const seen: number[] = (w.__longTasks = []);
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) seen.push(e.duration);
      }).observe({ type: 'longtask' as never, buffered: false });
    }
    return w.__longTasks.length;
  });
  return () => page.evaluate((n) => (globalThis as unknown as { __longTasks: number[] }).__longTasks.slice(n), from);
}

/** A promisified agent API client with a credential, as an agent runs tools. */
export function agentClient(address: string, key?: string) {
  const client = new ToolHubClient(address, credentials.createInsecure());
  const md = () => {
    const m = new Metadata();
    if (key) m.set('authorization', `Bearer ${key}`);
    return m;
  };
  type Raw = (req: unknown, md: Metadata, cb: (err: Error | null, res: unknown) => void) => unknown;
  const unary =
    <Req, Res>(fn: Raw) =>
    (req: Req) =>
      new Promise<Res>((resolve, reject) => fn.call(client, req, md(), (err, res) => (err ? reject(err) : resolve(res as Res))));
  return {
    runTool: unary<Partial<RunToolRequest> & { provider: string; name: string }, RunToolResponse>(client.runTool as unknown as Raw),
    searchTools: unary<Partial<SearchToolsRequest> & { queries: string[] }, SearchToolsResponse>(client.searchTools as unknown as Raw),
    getPreloadSet: unary<Partial<GetPreloadSetRequest>, GetPreloadSetResponse>(client.getPreloadSet as unknown as Raw),
    close: () => client.close(),
  };
}
