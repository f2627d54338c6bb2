/**
 * Prints an agent run step by step for people: what the model said and called, and a short
 * reading of each result (search hits, the chosen tool and its schema, the tool's output).
 */
import type { AgentEvent } from './agent-loop';
import { parseRunResult, parseSearchHits, parseToolInfo, schemaSummary } from './meta-results';

function cut(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((l) => prefix + l)
    .join('\n');
}

/** A summary of one tool result, by meta-tool. */
export function describeResult(name: string, content: string, isError: boolean, width = 100): string[] {
  if (isError) return [`← ${cut(content.split('\n')[0]!, width)}`, ...content.split('\n').slice(1, 4).map((l) => `  ${cut(l, width)}`)];
  if (name === 'tool_search') {
    const hits = parseSearchHits(content);
    if (hits.length === 0) return [`← ${cut(content, width)}`];
    return [`← ${hits.length} hits, best first:`, ...hits.slice(0, 3).map((h, i) => `  ${i + 1}. ${h.id} - ${cut(h.summary, width - h.id.length - 8)}`)];
  }
  if (name === 'tool_info') {
    const info = parseToolInfo(content);
    if (!info) return [`← ${cut(content, width)}`];
    return [`← ${info.id}: ${cut(info.description, width - info.id.length - 4)}`, `  schema: ${cut(schemaSummary(info.inputSchema), width - 10)}`];
  }
  const run = parseRunResult(content);
  const lines = run.output.split('\n');
  const shown = lines.slice(0, 6).map((l, i) => `${i === 0 ? '← ' : '  '}${cut(l, width)}`);
  if (lines.length > 6) shown.push(`  … ${lines.length - 6} more lines`);
  if (run.notes.length) shown.push(`  (${run.notes.length} note${run.notes.length === 1 ? '' : 's'}: ${cut(run.notes[0]!, width - 20)}${run.notes.length > 1 ? ' …' : ''})`);
  return shown;
}

/** An onEvent handler for runAgent() that writes each step with `write` (one call per line). */
export function stepPrinter(write: (line: string) => void, width = 100): (event: AgentEvent) => void {
  const pad = '         ';
  return (event) => {
    switch (event.type) {
      case 'model':
        if (event.message.tool_calls?.length) {
          if (event.message.content) write(`  ${String(event.step).padStart(2)} model  ${cut(event.message.content, width)}`);
          else write(`  ${String(event.step).padStart(2)} model`);
          for (const c of event.message.tool_calls) write(`${pad}→ ${c.function.name} ${cut(c.function.arguments, width)}`);
        }
        break;
      case 'tool':
        for (const line of describeResult(event.call.function.name, event.result.content, event.result.isError, width)) write(pad + line);
        break;
      case 'answer':
        write(`  ${String(event.step).padStart(2)} answer ${indent(event.text, pad).trimStart()}`);
        break;
      case 'step_limit':
        write(`  stopped: no answer after ${event.step} model turns`);
        break;
    }
  };
}
