/**
 * A real agent on any OpenAI-compatible Chat Completions endpoint, using ToolHub for its tools:
 *
 *   OPENAI_MODEL=gpt-4o-mini OPENAI_API_KEY=sk-... npx tsx examples/agent/openai-agent.ts "What is 17% of 2,340?"
 *   OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=llama3.1 npx tsx examples/agent/openai-agent.ts "..."
 *
 * It talks to a running ToolHub (`npm start`; TOOLHUB_ADDRESS, default 127.0.0.1:50051), or with
 * --in-process starts one inside this process. --scripted uses the scripted model instead of an
 * endpoint (no LLM needed): the loop is the same code either way. Prints every step.
 * Exit codes: 0 answered, 1 no answer within AGENT_MAX_STEPS (default 8), 2 usage, 3 failure.
 */
import { AgentToolkit, clientOptionsFromEnv, ToolHubAgentClient } from '@toolhub/agent-kit';

import { runAgent } from './agent-loop';
import type { ChatModel } from './chat';
import { OpenAICompatibleModel } from './openai-model';
import { stepPrinter } from './print-steps';
import { ScriptedModel } from './scripted-model';
import { type InProcessToolHub, startInProcessToolHub } from './toolhub-in-process';

const USAGE = `usage: npx tsx examples/agent/openai-agent.ts [--in-process] [--scripted] "<task>"
  env: OPENAI_MODEL (required unless --scripted), OPENAI_BASE_URL (default https://api.openai.com/v1), OPENAI_API_KEY,
       TOOLHUB_ADDRESS (default 127.0.0.1:50051), AGENT_MAX_STEPS (default 8),
       TOOLHUB_TOKEN and TOOLHUB_CLIENT_CA/_CERT/_KEY/_TLS for a ToolHub with auth or TLS on`;

const print = (line: string): void => void process.stdout.write(`${line}\n`);

async function agent(argv: string[]): Promise<number> {
  const flags = new Set(argv.filter((a) => a.startsWith('--')));
  const task = argv.filter((a) => !a.startsWith('--')).join(' ').trim();
  const unknown = [...flags].filter((f) => f !== '--in-process' && f !== '--scripted');
  if (!task || unknown.length) {
    process.stderr.write(`${unknown.length ? `unknown option ${unknown.join(', ')}\n` : ''}${USAGE}\n`);
    return 2;
  }
  let model: ChatModel;
  try {
    model = flags.has('--scripted') ? new ScriptedModel() : OpenAICompatibleModel.fromEnv();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  let hub: InProcessToolHub | undefined;
  if (flags.has('--in-process')) {
    hub = await startInProcessToolHub();
    print(`ToolHub started in-process at ${hub.address} (${hub.providers.join(', ')})`);
  }
  const address = hub?.address ?? (process.env['TOOLHUB_ADDRESS'] || '127.0.0.1:50051');
  // Credentials from the environment only for a ToolHub outside this process (the in-process one is in local mode).
  const client = await ToolHubAgentClient.connect(address, { ...(hub ? {} : clientOptionsFromEnv()), caller: `openai-agent/${model.name}` });
  try {
    const toolkit = await AgentToolkit.create(client);
    if (toolkit.preloadError) print(`note: no preload set (${toolkit.preloadError.message}); starting with the meta-tools only`);
    print(`model ${model.name} · ToolHub ${address} · task: ${task}`);
    const maxSteps = Number(process.env['AGENT_MAX_STEPS'] || 8);
    const run = await runAgent({ model, toolkit, task, maxSteps, onEvent: stepPrinter(print) });
    print(`tokens: ${run.usage.promptTokens} prompt + ${run.usage.completionTokens} completion over ${run.steps} model calls`);
    return run.answer === undefined ? 1 : 0;
  } finally {
    client.close();
    await hub?.close();
  }
}

agent(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`agent failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 3;
  },
);
