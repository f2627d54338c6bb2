/**
 * The console in a real browser (Debian's chromium via playwright-core) against a whole ToolHub in
 * this process with API keys: sign in, watch the call count rise while an agent runs tools, apply a
 * preload change and see GetPreloadSet change for agents, register a tool with the form and find it
 * with SearchTools, see a field error for a bad registration, find each change in the audit page;
 * start a slow tool as an async run and watch its progress arrive live, cancel one, see another
 * succeed with its result, and list and filter the runs.
 * Every page is checked with axe-core (no serious or critical violation) and photographed: into a
 * scratch folder by default, into docs/console/ (the README there shows them) when
 * CONSOLE_SCREENSHOTS_DIR names it, so that an ordinary test run leaves the work tree clean.
 * The page runs under the strict CSP: any CSP report in the browser console fails the test.
 */
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';

import { agentClient, launchChromium, seriousViolations } from './support/browser';
import { AGENT_KEY, exportGate, OPERATOR_KEY, type Stack, startStack } from './support/stack';

const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR
  ? resolve(process.env.CONSOLE_SCREENSHOTS_DIR)
  : join(tmpdir(), 'toolhub-console-screenshots');
const WAIT = { timeout: 30_000 };
/** The page's DOM as the predicates below use it (this program has no DOM types). */
interface Dom {
  document: { querySelector(s: string): { textContent: string | null } | null; querySelectorAll(s: string): ArrayLike<{ textContent: string | null }> };
}


describe('operator console in chromium', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let agent: ReturnType<typeof agentClient>;
  const cspReports: string[] = [];
  const pageErrors: string[] = [];

  const shoot = async (name: string) => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };
  const expectAccessible = async (name: string) => {
    const bad = await seriousViolations(page);
    if (bad.length) throw new Error(`${name}: axe-core found serious/critical violations: ${JSON.stringify(bad, null, 2)}`);
  };
  const go = async (hash: string) => {
    await page.evaluate((h) => ((globalThis as unknown as { location: { hash: string } }).location.hash = h), hash);
  };
  const number = async (testId: string) => Number((await page.getByTestId(testId).textContent()) ?? 'NaN');

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    stack = await startStack({ auth: true });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 860 }, locale: 'en-US' });
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspReports.push(m.text());
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    agent = agentClient(stack.dispatcher.grpc.address, AGENT_KEY);
  }, 120_000);

  afterAll(async () => {
    agent?.close();
    await browser?.close();
    await stack?.close();
  });

  it('asks for a credential, refuses an agent key with the reason, and signs an operator in', async () => {
    await page.goto(stack.console.url);
    await page.getByLabel('API key or bearer token').waitFor(WAIT);
    await expectAccessible('sign-in');
    await shoot('sign-in');
    await page.getByLabel('API key or bearer token').fill(AGENT_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'needs the operator or admin role' }).waitFor(WAIT);
    await page.getByLabel('API key or bearer token').fill(OPERATOR_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('principal').filter({ hasText: 'key:ops-alice' }).waitFor(WAIT);
    // The key is never rendered.
    expect(await page.content()).not.toContain(OPERATOR_KEY);
  });

  it('shows the overview, and the call count rises while an agent runs tools', async () => {
    // A fresh load (about:blank first: a hash change alone would not reload the page).
    await page.goto('about:blank');
    const started = performance.now();
    await page.goto(`${stack.console.url}#/overview`);
    await page.getByTestId('providers').getByRole('cell', { name: 'local', exact: true }).waitFor(WAIT);
    await page.waitForFunction(() => /^\d+$/.test((globalThis as unknown as Dom).document.querySelector('[data-testid=total-calls]')?.textContent ?? ''), undefined, WAIT);
    process.stdout.write(`console: overview usable ${Math.round(performance.now() - started)} ms after navigation (signed in, ToolHub in-process)\n`);
    // Three rounds, each waited for on the page, so the charts get several points.
    for (let round = 0; round < 3; round++) {
      const before = await number('total-calls');
      for (let i = 0; i < 4 + round * 2; i++) await agent.runTool({ provider: 'local', name: 'echo_text', arguments: { text: 'hi' }, timeoutMs: 10_000, idempotencyKey: '', expectedVersion: '', caller: 'console-test', searchId: '' });
      // Failing calls count too (and move the error rate): the tool's failure reaches the agent as a gRPC error.
      await expect(agent.runTool({ provider: 'local', name: 'flaky_lookup', arguments: { key: 'k' }, timeoutMs: 10_000, idempotencyKey: '', expectedVersion: '', caller: 'console-test', searchId: '' })).rejects.toThrow(/backend answered 500/);
      await page.waitForFunction((b) => Number((globalThis as unknown as Dom).document.querySelector('[data-testid=total-calls]')?.textContent) > b, before, WAIT);
    }
    await page.getByRole('link', { name: 'local:echo_text' }).waitFor(WAIT);
    await expectAccessible('overview');
    await shoot('overview');
  });

  it('shows the texts in Chinese', async () => {
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('heading', { name: '概览' }).waitFor(WAIT);
    await expectAccessible('overview-zh');
    await shoot('overview-zh');
    await page.getByLabel('语言').selectOption('en');
    await page.getByRole('heading', { name: 'Overview' }).waitFor(WAIT);
  });

  it('applies a preload change from a suggestion, after showing its diff, and agents get the new set', async () => {
    const before = await agent.getPreloadSet({ format: 0 });
    expect(before.tools.map((t) => t.id)).not.toContain('local:echo_text');
    await go('#/preload');
    const add = page.getByRole('button', { name: 'Add local:echo_text' });
    await add.waitFor(WAIT);
    await add.click();
    const diff = page.getByTestId('preload-diff');
    await diff.getByText('+local:echo_text').waitFor(WAIT);
    await page.waitForFunction(() => /^\+\d+$/.test((globalThis as unknown as Dom).document.querySelector('[data-testid=token-delta]')?.textContent ?? ''), undefined, WAIT);
    expect(await page.getByTestId('proposed-fingerprint').textContent()).not.toBe(before.fingerprint);
    await expectAccessible('preload');
    await shoot('preload-diff');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('status').filter({ hasText: 'Applied: revision' }).waitFor(WAIT);
    // What agents get: the dispatcher's GetPreloadSet, changed once the registry's invalidation reaches it.
    const deadline = Date.now() + 30_000;
    let after = await agent.getPreloadSet({ format: 0 });
    while (!after.tools.some((t) => t.id === 'local:echo_text') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      after = await agent.getPreloadSet({ format: 0 });
    }
    expect(after.tools.map((t) => t.id)).toContain('local:echo_text');
    expect(after.fingerprint).not.toBe(before.fingerprint);
    await page.getByTestId('preload-audit').getByText('added local:echo_text').waitFor(WAIT);
    await shoot('preload');
  });

  it('shows the registry’s field error beside the field for a bad registration', async () => {
    await go('#/register');
    await page.getByLabel('Provider').fill('manual');
    await page.getByLabel('Name', { exact: true }).fill('Bad Name!');
    await page.getByLabel('Description').fill('Tells the weather.');
    await page.getByRole('button', { name: 'Register' }).click();
    const fieldError = page.getByTestId('error-name');
    await fieldError.waitFor(WAIT);
    expect(await fieldError.textContent()).toMatch(/name/i);
    expect(await page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid')).toBe('true');
    await expectAccessible('register');
    await shoot('register-error');
  });

  it('registers a tool with the form, and agents find it with SearchTools', async () => {
    await page.getByLabel('Name', { exact: true }).fill('weather_forecast');
    await page.getByLabel('Category path').fill('weather/forecast');
    await page.getByLabel('Description').fill('Forecasts the weather of a city for the next days: temperature, rain and wind.');
    await page.getByLabel('Parameters (JSON Schema)').fill(JSON.stringify({ type: 'object', properties: { city: { type: 'string', description: 'City name' }, days: { type: 'integer', minimum: 1, maximum: 7 } }, required: ['city'] }, null, 2));
    await page.getByLabel('Return format').fill('JSON: one entry per day with min/max temperature, rain probability and wind.');
    await page.getByLabel('Usage examples (JSON list)').fill(JSON.stringify([{ description: 'Three days in Shanghai', arguments: { city: 'Shanghai', days: 3 }, result: '[{"day":1,"min":12,"max":19}]' }]));
    await page.getByRole('button', { name: 'Register' }).click();
    await page.getByTestId('registered').waitFor(WAIT);
    await shoot('register');
    const deadline = Date.now() + 30_000;
    let ids: string[] = [];
    while (!ids.includes('manual:weather_forecast') && Date.now() < deadline) {
      ids = (await agent.searchTools({ queries: ['weather forecast for a city'], provider: '', path: '', limit: 10, mode: 0, explain: false })).hits.map((h) => h.id);
      if (!ids.includes('manual:weather_forecast')) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ids).toContain('manual:weather_forecast');
  });

  it('registers the tools of an uploaded catalog file', async () => {
    const file = { tools: [{ provider: 'manual', name: 'currency_convert', path: 'finance', description: 'Converts an amount between two currencies at today’s rate.', inputSchema: { type: 'object', properties: { amount: { type: 'number' } } } }] };
    await page.getByLabel('Upload a catalog file').setInputFiles({ name: 'catalog.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(file)) });
    await page.getByTestId('upload-result').getByText('✓ manual:currency_convert').waitFor(WAIT);
  });

  it('shows the catalog tree and filters it', async () => {
    await go('#/catalog');
    await page.getByRole('treeitem').filter({ hasText: 'echo_text' }).waitFor(WAIT);
    // Tools registered by hand (provider without an adapter) come from the registry's own list.
    await page.getByRole('treeitem').filter({ hasText: 'weather_forecast' }).waitFor(WAIT);
    await expectAccessible('catalog');
    await shoot('catalog');
    await page.getByLabel('Filter tools by name, path or description').fill('reverse');
    await page.getByTestId('catalog-count').filter({ hasText: '1 shown' }).waitFor(WAIT);
  });

  it("runs a tool from its page's generated form and shows the result the agent would see", async () => {
    await go('#/tool/local/echo_text');
    await page.getByTestId('schema').waitFor(WAIT);
    await page.getByLabel(/^text/).fill('hi');
    await page.getByLabel(/^times/).fill('2');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByTestId('run-result').getByText('hihi').waitFor(WAIT);
    await expectAccessible('tool');
    await shoot('tool');
  });

  /** Starts `slow_export` as an async run from its tool page; resolves with the run id once its page is open. */
  const startExport = async (args: { label: string; parts: number } | string): Promise<string> => {
    await go('#/tool/local/slow_export');
    await page.getByTestId('schema').waitFor(WAIT);
    if (typeof args === 'string') await page.getByLabel(/^Arguments as JSON/).fill(args);
    else {
      await page.getByLabel(/^label/).fill(args.label);
      await page.getByLabel(/^parts/).fill(String(args.parts));
    }
    await page.getByRole('button', { name: 'Start as async run' }).click();
    await page.waitForFunction(() => (globalThis as unknown as { location: { hash: string } }).location.hash.startsWith('#/run/'), undefined, WAIT);
    await page.getByTestId('run-state').waitFor(WAIT);
    return decodeURIComponent(await page.evaluate(() => (globalThis as unknown as { location: { hash: string } }).location.hash.slice('#/run/'.length)));
  };
  const progressShows = (text: string) => page.getByTestId('run-progress-text').filter({ hasText: text }).waitFor(WAIT);
  const stateIs = (state: string) => page.locator(`[data-testid=run-state][data-state=${state}]`).waitFor(WAIT);

  it('starts a slow tool as an async run from its page, shows progress and log lines live, then the result', async () => {
    const runId = await startExport({ label: 'browser-a', parts: 3 });
    expect(runId).toMatch(/\S/);
    await progressShows('waiting for part 1 of 3');
    await stateIs('RUN_STATE_RUNNING');
    // Marks this page: had it reloaded (or polled a new page), the mark would be gone.
    await page.evaluate(() => ((globalThis as unknown as { __sameRunPage?: boolean }).__sameRunPage = true));
    exportGate.release('browser-a');
    await progressShows('1 / 3');
    await page.getByTestId('run-log').filter({ hasText: 'browser-a: part 1 written' }).waitFor(WAIT);
    exportGate.release('browser-a');
    await progressShows('2 / 3');
    await page.getByTestId('run-log').filter({ hasText: 'browser-a: part 2 written' }).waitFor(WAIT);
    expect(await page.locator('progress#run-progress').getAttribute('value')).toBe('2');
    await expectAccessible('run');
    await shoot('run');
    exportGate.release('browser-a');
    await stateIs('RUN_STATE_SUCCEEDED');
    await page.getByTestId('run-result').getByText('exported 3 parts of browser-a').waitFor(WAIT);
    expect(await page.evaluate(() => (globalThis as unknown as { __sameRunPage?: boolean }).__sameRunPage)).toBe(true);
    await expectAccessible('run-result');
    await shoot('run-result');
  });

  it('cancels a running run after a confirmation, and the tool is aborted at the adapter', async () => {
    await startExport({ label: 'browser-b', parts: 3 });
    await progressShows('waiting for part 1 of 3');
    await page.getByRole('button', { name: 'Cancel run…' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.waitFor(WAIT);
    await expectAccessible('run-cancel');
    await shoot('run-cancel');
    await confirm.getByLabel('Reason (kept with the run)').fill('not needed any more');
    await confirm.getByRole('button', { name: 'Yes, cancel the run' }).click();
    await stateIs('RUN_STATE_CANCELLED');
    await page.getByTestId('run-error').filter({ hasText: 'not needed any more' }).waitFor(WAIT);
    // The tool's signal fired at the adapter (the test fails by timeout otherwise).
    await exportGate.whenAborted('browser-b');
    expect(exportGate.aborted.has('browser-b')).toBe(true);
  });

  it('shows a run whose arguments fail validation with the field, as the API gives it', async () => {
    await startExport('{"label": "browser-c", "parts": "many"}');
    await stateIs('RUN_STATE_FAILED');
    await page.getByTestId('run-error').filter({ hasText: '/parts' }).waitFor(WAIT);
  });

  it('lists the runs with their statistics, and filters them by state', async () => {
    await go('#/runs');
    const table = page.getByTestId('runs-table');
    await table.getByRole('row').filter({ hasText: 'local:slow_export' }).filter({ has: page.locator('[data-state=RUN_STATE_SUCCEEDED]') }).waitFor(WAIT);
    await table.getByRole('row').filter({ has: page.locator('[data-state=RUN_STATE_CANCELLED]') }).waitFor(WAIT);
    await table.getByRole('row').filter({ has: page.locator('[data-state=RUN_STATE_FAILED]') }).waitFor(WAIT);
    await page.getByTestId('run-stats-count').filter({ hasText: '3' }).waitFor(WAIT);
    await expectAccessible('runs');
    await shoot('runs');
    await page.getByLabel('State', { exact: true }).selectOption('RUN_STATE_CANCELLED');
    await page.waitForFunction(
      () => {
        const rows = Array.from((globalThis as unknown as Dom).document.querySelectorAll('[data-testid=runs-table] tbody tr'));
        return rows.length === 1 && rows[0]!.textContent!.includes('cancelled');
      },
      undefined,
      WAIT,
    );
    await table.getByRole('link').first().click();
    await stateIs('RUN_STATE_CANCELLED');
    // The Runs pages in Chinese.
    await page.getByLabel('Language').selectOption('zh');
    await page.getByRole('heading', { name: '运行' }).first().waitFor(WAIT);
    await page.locator('[data-testid=run-state]').filter({ hasText: '已取消' }).waitFor(WAIT);
    await go('#/runs');
    await page.getByRole('heading', { name: '我的异步运行', exact: true }).waitFor(WAIT);
    await expectAccessible('runs-zh');
    await page.getByLabel('语言').selectOption('en');
    await page.getByRole('heading', { name: 'Your async runs', exact: true }).waitFor(WAIT);
  });

  it('shows the hits an agent would get in the search playground', async () => {
    await go('#/search');
    await page.getByLabel('What the agent asks for').fill('reverse the characters of a text');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByTestId('search-hits').getByRole('link', { name: 'local:reverse_text' }).waitFor(WAIT);
    await expectAccessible('search');
    await shoot('search');
    // As the agent key sees it: its grants hide the text transforms.
    await page.getByLabel('View as').selectOption('key:fleet');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForFunction(() => !(globalThis as unknown as Dom).document.querySelector('[data-testid=search-hits]')?.textContent?.includes('local:reverse_text'), undefined, WAIT);
    await page.getByTestId('search-hits').getByRole('link', { name: 'local:echo_text' }).waitFor(WAIT);
  });

  it('finds each change in the audit page, with who made it, and filters by target', async () => {
    await go('#/audit');
    const table = page.getByTestId('audit-table');
    await table.getByRole('row').filter({ hasText: 'SetPreloadList' }).filter({ hasText: 'key:ops-alice' }).waitFor(WAIT);
    await table.getByRole('row').filter({ hasText: 'RegisterTool' }).filter({ hasText: 'manual:weather_forecast' }).waitFor(WAIT);
    await table.getByRole('row').filter({ hasText: 'RegisterTool' }).filter({ hasText: 'manual:currency_convert' }).waitFor(WAIT);
    // Access: the principals the key file names and the grants in force (GetAccess).
    await page.getByTestId('configured-principals').getByRole('row').filter({ hasText: 'key:fleet' }).filter({ hasText: 'agent' }).waitFor(WAIT);
    await page.getByTestId('grants').getByRole('row').filter({ hasText: 'role:agent' }).filter({ hasText: 'local:text/transform/**' }).waitFor(WAIT);
    await expectAccessible('audit');
    await shoot('audit');
    await page.getByLabel('Target').fill('preload');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => !Array.from((globalThis as unknown as Dom).document.querySelectorAll('[data-testid=audit-table] tbody tr')).some((r) => r.textContent?.includes('RegisterTool')), undefined, WAIT);
    expect(await table.getByRole('row').filter({ hasText: 'SetPreloadList' }).count()).toBeGreaterThan(0);
  });

  it('ran every page under the strict CSP without a report or a script error', () => {
    expect(cspReports).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
