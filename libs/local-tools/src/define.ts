/**
 * `defineTool`: a zod object schema plus metadata → a {@link ToolDefinition} whose input schema is
 * generated from the zod schema and whose `run` parses arguments before calling the handler.
 */
import type { RunContext, ToolDefinition, ToolResult } from '@toolhub/adapter-sdk';
import { assertToolName, normalizePath, ToolHubError, toToolHubError } from '@toolhub/contracts';
import type { z } from 'zod';

import { LocalToolsError } from './errors';
import { toInputSchema } from './schema';
import { invalidArguments } from './violations';

/** One worked example of a call, shown to the LLM by `tool_info`. */
export type ToolExample = NonNullable<ToolDefinition['examples']>[number];

/** Everything {@link defineTool} needs: the metadata of a ToolDefinition, a zod schema and a handler. */
export interface ToolSpec<S extends z.ZodObject> {
  /** Matches ^[a-z][a-z0-9_]{0,63}$, e.g. `file_read`. */
  name: string;
  /** Category path, e.g. `file`. */
  path: string;
  /** One short paragraph: when to use it, what it returns, when not to use it, key limits. */
  description: string;
  /** The arguments; give every property a `.describe()`. Use `z.strictObject` to reject unknown keys. */
  input: S;
  outputDescription?: string;
  /** Each example's arguments must parse with `input` (checked by defineTool). */
  examples?: ToolExample[];
  /** @default 'normal' */
  importance?: 'core' | 'normal' | 'low';
  annotations?: ToolDefinition['annotations'];
  tags?: string[];
  defaultTimeoutMs?: number;
  /** The implementation, called with parsed arguments. Throw ToolHubError for expected failures. */
  run(args: z.output<S>, ctx: RunContext): Promise<ToolResult>;
}

/**
 * Builds a ToolDefinition from a zod schema. The published `inputSchema` is
 * `z.toJSONSchema(input)` (draft 2020-12, input side, without `$schema`). `run` parses the
 * arguments with zod and throws `ToolHubError.invalidArgument` with one violation per bad field
 * (JSON pointer, message, expected shape, example) when they do not fit; a ToolHubError thrown by
 * the handler passes through, and anything else becomes `internal`.
 *
 * @throws LocalToolsError invalid_definition for a bad name or path, a property without a
 *   description, or an example whose arguments do not parse.
 */
export function defineTool<S extends z.ZodObject>(spec: ToolSpec<S>): ToolDefinition {
  try {
    assertToolName(spec.name);
    if (normalizePath(spec.path) !== spec.path || spec.path === '') throw new Error(`path ${JSON.stringify(spec.path)} is not a normalised category path`);
  } catch (err) {
    throw new LocalToolsError('invalid_definition', `Tool ${spec.name}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (spec.description.trim() === '') throw new LocalToolsError('invalid_definition', `Tool ${spec.name}: the description is empty.`);
  const inputSchema = toInputSchema(spec.input, spec.name);
  const examples = spec.examples ?? [];
  examples.forEach((example, i) => {
    const parsed = spec.input.safeParse(example.arguments);
    if (!parsed.success) {
      throw new LocalToolsError('invalid_definition', `Tool ${spec.name}: example ${i} does not match the input schema: ${parsed.error.message}`);
    }
  });

  const definition: ToolDefinition = {
    name: spec.name,
    path: spec.path,
    description: spec.description,
    inputSchema,
    importance: spec.importance ?? 'normal',
    examples,
    async run(args: Record<string, unknown>, ctx: RunContext): Promise<ToolResult> {
      if (ctx.signal.aborted) throw ToolHubError.timeout(`${spec.name} was not started: the call's deadline had already passed.`);
      // reportInput puts the offending value into each issue, so messages can say what was received.
      const parsed = spec.input.safeParse(args ?? {}, { reportInput: true });
      if (!parsed.success) throw invalidArguments(spec.name, parsed.error.issues, inputSchema, examples);
      try {
        return await spec.run(parsed.data, ctx);
      } catch (err) {
        // A ToolHubError (even wrapped in a cause chain) passes through; anything else is our fault.
        throw toToolHubError(err, `${spec.name} failed unexpectedly`);
      }
    },
  };
  if (spec.outputDescription !== undefined) definition.outputDescription = spec.outputDescription;
  if (spec.annotations !== undefined) definition.annotations = spec.annotations;
  if (spec.tags !== undefined) definition.tags = spec.tags;
  if (spec.defaultTimeoutMs !== undefined) definition.defaultTimeoutMs = spec.defaultTimeoutMs;
  return definition;
}

/** A result with one text block and, optionally, the same data as structured output. */
export function textResult(text: string, structured?: unknown): ToolResult {
  return structured === undefined ? { content: [{ text }] } : { content: [{ text }], structured };
}

/** A JSON example for descriptions and messages. */
export function json(value: unknown): string {
  return JSON.stringify(value);
}
