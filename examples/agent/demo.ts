/**
 * `npm run demo`: starts the whole one-process ToolHub inside this process (free ports, temporary
 * data), lets the scripted model walk three tasks through search → info → run → answer with the
 * same agent loop a real LLM uses, prints every step and a token summary, shows the statistics
 * the registry recorded through the `toolhub` CLI, then shuts everything down.
 * Needs no network and no LLM. Exit code 0 when every task reached the right tool and answer.
 */
import { ToolHubAgentClient } from '@toolhub/agent-kit';
import { main as toolhubCli } from '@toolhub/cli';

import { allToolsInlinedTokens, runDemoTasks } from './demo-tasks';
import { ScriptedModel } from './scripted-model';
import { o200kCounter } from './tokens';
import { startInProcessToolHub } from './toolhub-in-process';

const print = (...lines: string[]): void => {
  for (const line of lines.length ? lines : ['']) process.stdout.write(`${line}\n`);
};
const fmt = (n: number): string => n.toLocaleString('en-US');

async function waitForStats(cli: typeof toolhubCli, env: Record<string, string>, calls: number): Promise<void> {
  const end = Date.now() + 5000;
  while (Date.now() < end) {
    let out = '';
    await cli(['stats', '--json'], { env, stdout: { write: (s: string) => (out += s) }, stderr: { write: () => true } });
    const stats = (JSON.parse(out || '{}') as { stats?: { calls: number }[] }).stats ?? [];
    if (stats.reduce((n, s) => n + s.calls, 0) >= calls) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function demo(): Promise<number> {
  print('ToolHub demo — a scripted model (deterministic, no LLM) drives the real agent loop against an in-process ToolHub.');
  const started = Date.now();
  const hub = await startInProcessToolHub();
  const stop = (): void => void hub.close().finally(() => process.exit(130));
  process.once('SIGINT', stop);
  const client = await ToolHubAgentClient.connect(hub.address, { caller: 'demo-agent' });
  try {
    print(`ToolHub started in ${Date.now() - started} ms: agent API ${hub.address}, admin API ${hub.adminAddress}`);
    print(`providers: ${hub.providers.join(', ')}`);
    const countTokens = o200kCounter();
    const results = await runDemoTasks({ hub: client, model: new ScriptedModel({ countTokens }), print, countTokens });

    const inlined = await allToolsInlinedTokens(client, countTokens);
    print('', `━━ Tokens (o200k_base; prompt tokens are summed over every model call of the task)`);
    const rows = results.map((r, i) => [`${i + 1}. ${r.task.task.length > 34 ? `${r.task.task.slice(0, 33)}…` : r.task.task}`, String(r.run.steps), fmt(r.run.usage.promptTokens), fmt(r.run.usage.completionTokens), `${fmt(r.toolTokens.first)} → ${fmt(r.toolTokens.last)}`, r.ok ? '✓' : '✗']);
    const head = ['task', 'model calls', 'prompt', 'completion', 'tool definitions', 'ok'];
    const widths = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
    for (const r of [head, ...rows]) print(`  ${r.map((v, c) => (c === 0 ? v.padEnd(widths[c]!) : v.padStart(widths[c]!))).join('  ')}`);
    const first = results[0]?.toolTokens.first ?? 0;
    print(
      `  Every request offered the 4 meta-tools (${fmt(first)} tokens) plus the tools the model had looked up with tool_info;`,
      `  inlining all ${inlined.tools} tools instead would cost ${fmt(inlined.tokens)} tokens in every request (the meta-tools are ${Math.round((1 - first / inlined.tokens) * 100)}% fewer).`,
    );

    // Every run was measured: ask the registry through the CLI, as an operator would.
    const env = { TOOLHUB_ADDRESS: hub.address, TOOLHUB_ADMIN_ADDRESS: hub.adminAddress };
    await waitForStats(toolhubCli, env, results.filter((r) => r.ranTool).length);
    print('', '━━ What the registry recorded — `toolhub stats` against this ToolHub:');
    let table = '';
    await toolhubCli(['stats', '--limit', '5'], { env, stdout: { write: (s: string) => (table += s) } });
    print(...table.trimEnd().split('\n').map((l) => `  ${l}`));

    const passed = results.filter((r) => r.ok).length;
    print('', `${passed}/${results.length} tasks reached the right tool and answer.`);
    print('Next: `npm start` runs ToolHub for real; then `npm run toolhub -- search <words>` or `npx tsx examples/agent/openai-agent.ts "<task>"` with OPENAI_* set.');
    return passed === results.length ? 0 : 1;
  } finally {
    client.close();
    await hub.close();
    process.removeListener('SIGINT', stop);
  }
}

demo().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
