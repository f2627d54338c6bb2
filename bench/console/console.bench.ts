/**
 * The operator console measured in Debian's chromium: bundle size (gzipped), time until the
 * overview is usable (fresh page load, ToolHub local in this process), and the catalog page with
 * 20,000 tools: time until the tree shows them, and long tasks (> 50 ms, PerformanceObserver
 * 'longtask') while scrolling it from top to bottom and while filtering. Writes
 * bench/results/console.json and prints a Markdown table. A benchmark, never a test.
 *
 *   npm run bench -- console          CONSOLE_TOOLS=20000 CONSOLE_RUNS=5 to change sizes
 */
import { textResult, type ToolDefinition } from '@toolhub/adapter-sdk';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { launchChromium, recordLongTasks } from '../../libs/console/test/support/browser';
import { STACK_TOOLS, startStack } from '../../libs/console/test/support/stack';

const TOOLS = Number(process.env['CONSOLE_TOOLS'] ?? 20_000);
const RUNS = Number(process.env['CONSOLE_RUNS'] ?? 5);
const ROOT = join(__dirname, '..', '..', '..');

function bulkTools(n: number): ToolDefinition<never>[] {
  const verbs = ['get', 'list', 'create', 'update', 'delete', 'search', 'export', 'sync'];
  return Array.from({ length: n }, (_, i) => ({
    name: `${verbs[i % verbs.length]}_item_${i}`,
    path: `area_${i % 25}/group_${i % 400}`,
    description: `${verbs[i % verbs.length]} one item of collection ${i % 400} in area ${i % 25}; returns the item as JSON with its id, name and timestamps.`,
    inputSchema: { type: 'object', properties: { id: { type: 'string', description: 'Item id' } }, required: ['id'] },
    run: async () => textResult('ok'),
  }));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  const report = JSON.parse(readFileSync(join(ROOT, 'libs/console/dist/ui/build-report.json'), 'utf8')) as { js: { raw: number; gzip: number }; css: { raw: number; gzip: number }; ms: number };
  const syncStarted = performance.now();
  const stack = await startStack({ bulkTools: bulkTools(TOOLS), uiDir: join(ROOT, 'libs/console/dist/ui') });
  const syncMs = performance.now() - syncStarted;
  const browser = await launchChromium();
  try {
    // Overview: a fresh browser context each run (nothing cached), local mode (no sign-in).
    const overview: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await ctx.newPage();
      const t0 = performance.now();
      await page.goto(`${stack.console.url}#/overview`);
      await page.getByTestId('providers').getByRole('cell', { name: 'bulk', exact: true }).waitFor({ timeout: 60_000 });
      await page.getByTestId('total-calls').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 60_000 });
      overview.push(performance.now() - t0);
      await ctx.close();
    }

    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await ctx.newPage();
    await page.goto(`${stack.console.url}#/overview`);
    await page.getByTestId('total-calls').filter({ hasText: /^\d+$/ }).waitFor({ timeout: 60_000 });
    const loadTasks = await recordLongTasks(page);
    const t0 = performance.now();
    await page.evaluate(() => ((globalThis as unknown as { location: { hash: string } }).location.hash = '#/catalog'));
    const total = TOOLS + STACK_TOOLS.length;
    await page
      .getByTestId('catalog-count')
      .filter({ hasText: `${total} tools` })
      .waitFor({ timeout: 120_000 })
      .catch(async (err: unknown) => {
        await page.screenshot({ path: join(ROOT, 'bench/results/console-catalog-failed.png') });
        throw new Error(`the catalog did not show ${total} tools (page: bench/results/console-catalog-failed.png, count: ${await page.getByTestId('catalog-count').textContent()})`, { cause: err });
      });
    await page.getByRole('treeitem').first().waitFor();
    const catalogMs = performance.now() - t0;
    // The registry's own list (providers agents cannot list) merges in afterwards: scroll after it.
    await page.locator('[data-testid=catalog-count][data-complete=true]').waitFor({ timeout: 180_000 });
    const completeMs = performance.now() - t0;
    const duringLoad = await loadTasks();

    // Scroll the whole tree with the mouse wheel, one step per frame's worth of time.
    const tree = page.getByTestId('catalog-tree');
    const box = (await tree.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const scrollTasks = await recordLongTasks(page);
    // Main-thread time (DevTools Performance metrics): how much of the scroll was the page's own work.
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Performance.enable');
    const metric = async (name: string) => ((await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === name)?.value ?? 0) * 1000;
    const task0 = await metric('TaskDuration');
    const script0 = await metric('ScriptDuration');
    const rows = await page.evaluate(() => (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown> } }).document.querySelectorAll('[role=treeitem]').length);
    let steps = 0;
    const s0 = performance.now();
    for (;;) {
      await page.mouse.wheel(0, 1200);
      steps++;
      await page.waitForTimeout(16);
      const atEnd = await tree.evaluate((el) => {
        const e = el as unknown as { scrollTop: number; clientHeight: number; scrollHeight: number };
        return e.scrollTop + e.clientHeight >= e.scrollHeight - 2;
      });
      if (atEnd || steps > 5000) break;
    }
    const scrollMs = performance.now() - s0;
    const taskMs = (await metric('TaskDuration')) - task0;
    const scriptMs = (await metric('ScriptDuration')) - script0;
    const duringScroll = await scrollTasks();

    const filterTasks = await recordLongTasks(page);
    await page.getByLabel('Filter tools by name, path or description').pressSequentially('group_17', { delay: 50 });
    await page.getByTestId('catalog-count').filter({ hasText: /shown/ }).waitFor();
    const duringFilter = await filterTasks();
    await ctx.close();

    const result = {
      at: new Date().toISOString(),
      tools: total,
      bundle: { jsGzipKB: +(report.js.gzip / 1024).toFixed(1), jsKB: +(report.js.raw / 1024).toFixed(1), cssGzipKB: +(report.css.gzip / 1024).toFixed(1), buildMs: report.ms },
      registrySyncMs: Math.round(syncMs),
      overviewUsableMs: { runs: overview.map(Math.round), median: Math.round(median(overview)) },
      catalog: {
        loadMs: Math.round(catalogMs),
        registryListMs: Math.round(completeMs),
        longTasksDuringLoadMs: duringLoad.map(Math.round),
        rowsInDom: rows,
        scroll: { steps, ms: Math.round(scrollMs), mainThreadMsPerStep: +(taskMs / steps).toFixed(2), scriptMsPerStep: +(scriptMs / steps).toFixed(2), longTasksOver50Ms: duringScroll.map(Math.round) },
        filter: { longTasksOver50Ms: duringFilter.map(Math.round) },
      },
    };
    mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
    writeFileSync(join(ROOT, 'bench/results/console.json'), JSON.stringify(result, null, 2));
    process.stdout.write(
      [
        '| measure | value |',
        '| --- | --- |',
        `| bundle JS (gzipped) | ${result.bundle.jsGzipKB} KB (${result.bundle.jsKB} KB raw); CSS ${result.bundle.cssGzipKB} KB gzipped; built in ${result.bundle.buildMs} ms |`,
        `| overview usable (fresh load, median of ${RUNS}) | ${result.overviewUsableMs.median} ms (runs ${result.overviewUsableMs.runs.join(', ')}) |`,
        `| catalog: ${total} tools shown after | ${result.catalog.loadMs} ms (long tasks meanwhile: ${result.catalog.longTasksDuringLoadMs.join(', ') || 'none'} ms) |`,
        `| catalog: registry's own list merged after | ${result.catalog.registryListMs} ms |`,
        `| catalog: rows in the DOM | ${rows} |`,
        `| catalog: scroll top → bottom | ${steps} wheel steps in ${result.catalog.scroll.ms} ms; long tasks > 50 ms: ${duringScroll.length ? duringScroll.map(Math.round).join(', ') + ' ms' : 'none'} |`,
        `| catalog: main-thread time per scroll step | ${result.catalog.scroll.mainThreadMsPerStep} ms (script ${result.catalog.scroll.scriptMsPerStep} ms) |`,
        `| catalog: typing a filter | long tasks > 50 ms: ${duringFilter.length ? duringFilter.map(Math.round).join(', ') + ' ms' : 'none'} |`,
        '',
      ].join('\n'),
    );
  } finally {
    await browser.close();
    await stack.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`console bench failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
