/**
 * Source of the calculator worker thread. It is a fixed string in this repository (never built
 * from input): the worker loads mathjs, disables the functions the mathjs security guide names as
 * risky, and evaluates expressions it receives as data with mathjs's own parser. JavaScript
 * `eval`/`Function` are never applied to caller input.
 *
 * Why a worker: a mathjs expression can be arbitrarily expensive (`ones(9999, 9999)`, recursive
 * function definitions, broadcasting), and evaluation is synchronous. Only a separate thread with
 * a heap limit can be stopped at a deadline without blocking the adapter's event loop.
 *
 * Why a string and not a file: the build bundles each app into one file, so a sibling .js file
 * would not ship; a string needs no build step and works the same under Jest, tsx and esbuild.
 */
export const WORKER_SOURCE = String.raw`'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { create, all } = require(workerData.mathjsPath);
const math = create(all);
const evaluate = math.evaluate;
function disabled(name) {
  return function () { throw new Error('Function ' + name + ' is disabled'); };
}
const blocked = {};
for (const name of workerData.disabled) {
  if (!workerData.shadowed.includes(name)) blocked[name] = disabled(name);
}
math.import(blocked, { override: true });

function clip(text) {
  return text.length > workerData.maxResultChars ? text.slice(0, workerData.maxResultChars) + ' …(cut)' : text;
}

function describe(value, precision) {
  if (value && value.isResultSet) value = value.entries[value.entries.length - 1];
  const type = math.typeOf(value);
  const out = { type: type, result: value === undefined ? '' : clip(math.format(value, { precision: precision })) };
  if (type === 'number' || type === 'boolean') out.value = value;
  else if (type === 'BigNumber' || type === 'Fraction') out.value = math.number(value);
  else if (type === 'Unit' && value.value !== null) {
    const shown = /^\S+\s+(.+)$/.exec(out.result);
    if (shown) {
      try { out.value = value.toNumber(shown[1]); out.unit = shown[1]; } catch (e) { /* keep the text only */ }
    }
  }
  return out;
}

parentPort.on('message', function (job) {
  let variable;
  try {
    // Functions the instance itself needs (typed) cannot be overridden; a stub in the scope hides them.
    const scope = new Map(workerData.shadowed.map(function (name) { return [name, disabled(name)]; }));
    for (const [name, v] of job.variables) {
      variable = name;
      scope.set(name, typeof v === 'string' ? evaluate(v, new Map()) : v);
    }
    variable = undefined;
    parentPort.postMessage(Object.assign({ id: job.id, ok: true }, describe(evaluate(job.expression, scope), job.precision)));
  } catch (err) {
    parentPort.postMessage({
      id: job.id,
      ok: false,
      name: err && err.name ? String(err.name) : 'Error',
      message: String(err && err.message ? err.message : err),
      char: err && typeof err.char === 'number' ? err.char : undefined,
      variable: variable,
    });
  }
});

const functions = Object.keys(math).filter(function (k) { return typeof math[k] === 'function' && /^[a-z]/.test(k) && !workerData.disabled.includes(k); });
parentPort.postMessage({ ready: true, functions: functions });
`;
