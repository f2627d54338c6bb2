/** The math category: math_calculate. */
import type { ToolDefinition } from '@toolhub/adapter-sdk';
import { closestMatches, ToolHubError } from '@toolhub/contracts';
import { distance } from 'fastest-levenshtein';
import { z } from 'zod';

import { defineTool, textResult } from '../define';
import { intOption } from '../options-util';
import { type EvaluationFailure, MathEngine, type MathEngineOptions } from './engine';

/** Options of {@link createMathTools}. */
export interface MathToolsOptions extends MathEngineOptions {
  /** Longest expression accepted, in characters. @default 2000 */
  maxExpressionLength?: number;
  /** Share an engine (e.g. to close it on shutdown). @default a new engine, started on first use */
  engine?: MathEngine;
}

const EXAMPLE = '"sqrt(3^2 + 4^2)"';
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function caret(expression: string, char: number): string {
  // Show at most 60 characters around the position so long expressions stay readable.
  const start = Math.max(0, char - 40);
  const snippet = expression.slice(start, start + 60);
  return `\n  ${snippet}\n  ${' '.repeat(Math.max(0, char - 1 - start))}^`;
}

/** Close function names, best first: fewest edits, then names that start with what was typed (sqr → sqrt). */
function nearestFunctions(typed: string, names: readonly string[]): string[] {
  return closestMatches(typed, names, 10)
    .sort((a, b) => distance(typed, a) - distance(typed, b) || Number(b.startsWith(typed)) - Number(a.startsWith(typed)))
    .slice(0, 3);
}

/** Turns a failure mathjs reported into an error the LLM can act on. */
function toError(f: EvaluationFailure, expression: string, functionNames: readonly string[]): ToolHubError {
  if (f.variable !== undefined) {
    return ToolHubError.invalidArgument(`Variable ${f.variable} could not be evaluated: ${f.message}. Give a number, or a value expression such as "5 kg".`, [
      { field: `/variables/${f.variable}`, message: f.message, expected: 'a number or a value expression', example: '"5 kg"' },
    ]);
  }
  const field = '/expression';
  const disabled = /^Function (\w+) is disabled/.exec(f.message);
  if (disabled) {
    const fn = disabled[1] as string;
    return ToolHubError.invalidArgument(
      `The function ${fn}() is not available in math_calculate: functions that parse, rewrite or reconfigure expressions (such as evaluate, parse, import, createUnit, simplify, derivative, config) are disabled for safety. Write the expression directly, e.g. ${EXAMPLE}.`,
      [{ field, message: `uses the disabled function ${fn}`, expected: 'an expression without disabled functions', example: EXAMPLE }],
    );
  }
  if (f.name === 'SyntaxError') {
    const where = f.char !== undefined ? ` at character ${f.char}` : '';
    return ToolHubError.invalidArgument(`Syntax error in the expression${where}: ${f.message.replace(/\s*\(char \d+\)$/, '')}.${f.char !== undefined ? caret(expression, f.char) : ''}`, [
      { field, message: `syntax error${where}`, expected: 'a math.js expression', example: EXAMPLE },
    ]);
  }
  const fn = /^Undefined function (\w+)/.exec(f.message);
  if (fn) {
    const near = nearestFunctions(fn[1] as string, functionNames);
    return ToolHubError.invalidArgument(`Unknown function ${fn[1]}()${near.length > 0 ? `; did you mean ${near.join(', ')}?` : '.'}`, [
      { field, message: `unknown function ${fn[1]}`, expected: 'a math.js function such as sqrt, log, sin, round', example: EXAMPLE },
    ]);
  }
  const symbol = /^Undefined symbol (\w+)/.exec(f.message);
  if (symbol) {
    const name = symbol[1] as string;
    return ToolHubError.invalidArgument(
      `Unknown symbol ${name}: pass its value in variables, e.g. {"${name}": 2}, or assign it first ("${name} = 2; ${name} * 3"). Units must be ones math.js knows (m, kg, s, km/h, degC…).`,
      [{ field, message: `undefined symbol ${name}`, expected: 'known constants, units or variables', example: EXAMPLE }],
    );
  }
  return ToolHubError.invalidArgument(`math_calculate could not evaluate the expression: ${f.message}`, [
    { field, message: f.message, expected: 'a math.js expression whose operand types and units fit', example: EXAMPLE },
  ]);
}

/** The math tools: math_calculate. @throws LocalToolsError invalid_options */
export function createMathTools(options: MathToolsOptions = {}): ToolDefinition[] {
  const maxLength = intOption('maxExpressionLength', options.maxExpressionLength, 2000, 100, 100_000);
  const engine = options.engine ?? MathEngine.create(options);
  const calculate = defineTool({
    name: 'math_calculate',
    path: 'math',
    importance: 'core',
    description:
      'Evaluate a math expression with the math.js parser instead of doing arithmetic in your head: numbers, + - * / ^ %, functions (sqrt, log, sin, round, mean, det…), ' +
      'units and conversions ("5 km to mile", "12 kg * 9.81 m/s^2"), complex numbers, matrices, variables and several statements separated by ";" (the last value is returned). ' +
      'Returns the result as text and structured {result, type, value, unit}. Do not use it for dates (time tools) or symbolic algebra (simplify and derivative are disabled). ' +
      `Expressions are limited to ${maxLength} characters and ${engine.timeoutMs} ms of evaluation.`,
    input: z.strictObject({
      expression: z.string().min(1).max(maxLength).describe('A math.js expression, e.g. "sqrt(3^2 + 4^2)", "5 km to mile", "a = 2; a^10".'),
      variables: z
        .record(z.string().regex(VARIABLE_NAME), z.union([z.number(), z.string().max(200)]))
        .optional()
        .describe('Values for symbols used in the expression: numbers, or value expressions such as "5 kg".'),
      precision: z.number().int().min(1).max(64).default(14).describe('Significant digits in the result text.'),
    }),
    outputDescription: 'The formatted result; structured: {expression, result, type, value?, unit?} (value is a number in the shown unit when there is one).',
    examples: [
      { description: 'Unit conversion', arguments: { expression: '5 km to mile' }, result: '3.1068559611867 mile' },
      { description: 'With a variable', arguments: { expression: 'price * (1 + vat)', variables: { price: 120, vat: 0.2 } }, result: '144' },
    ],
    annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
    tags: ['math', 'calculator', 'arithmetic', 'units', 'convert', 'expression', 'matrix'],
    async run(args, ctx) {
      const variables = Object.entries(args.variables ?? {});
      if (variables.length > 100) {
        throw ToolHubError.invalidArgument(`${variables.length} variables given; at most 100 are accepted.`, [{ field: '/variables', message: 'too many', expected: 'at most 100 entries', example: '{"x": 2}' }]);
      }
      const outcome = await engine.evaluate({ expression: args.expression, variables, precision: args.precision }, ctx);
      if (!outcome.ok) throw toError(outcome, args.expression, engine.functionNames);
      const text = outcome.type === 'undefined' ? '(no result: the last statement ends with ";")' : outcome.result;
      const structured: Record<string, unknown> = { expression: args.expression, result: outcome.result, type: outcome.type };
      if (outcome.value !== undefined) structured['value'] = outcome.value;
      if (outcome.unit !== undefined) structured['unit'] = outcome.unit;
      return textResult(text, structured);
    },
  });
  return [calculate];
}
