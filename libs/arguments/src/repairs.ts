/**
 * The safe repairs, each driven by one Ajv error at one place in the arguments. A repair changes
 * only the value the error is about, and only in ways whose meaning is not in doubt; every change
 * is reported as an AppliedFix. Validation runs again afterwards and decides.
 */
import type { AppliedFix } from '@toolhub/contracts';
import type { ErrorObject } from 'ajv';

import { correctableTo } from './closest';
import { displayPointer, isPlainObject, jsonTypeOf, type JsonObject, preview, readSlot, type Slot, slotAt, writeSlot } from './json';

/** A whole number or decimal, optionally signed, with an optional exponent; no leading zeros, hex, or separators. */
const CLEAN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** State shared by the repair rounds of one call. */
export interface RepairState {
  holder: { root: unknown };
  /** Pointers already repaired: each place is repaired at most once, so rounds cannot oscillate. */
  repaired: Set<string>;
  /** Nulls removed from properties, by pointer, to be put back if the property turns out to be required. */
  removedNulls: Map<string, { parent: string; key: string }>;
  /** Deepest nesting accepted in a value parsed from JSON text. */
  maxDepth: number;
}

/** Tries the repair for one error; returns the fix applied, if any. */
export function repair(error: ErrorObject, state: RepairState): AppliedFix | undefined {
  const pointer = error.instancePath;
  if (state.repaired.has(pointer)) return undefined;
  const slot = slotAt(state.holder, pointer);
  if (slot === undefined) return undefined;
  let fix: AppliedFix | undefined;
  switch (error.keyword) {
    case 'type':
      fix = repairType(slot, pointer, String((error.params as { type?: unknown }).type).split(','), error.parentSchema, state);
      break;
    case 'enum':
      fix = repairEnum(slot, pointer, (error.params as { allowedValues?: unknown[] }).allowedValues ?? []);
      break;
    case 'const':
      fix = repairEnum(slot, pointer, [(error.params as { allowedValue?: unknown }).allowedValue]);
      break;
    default:
      return undefined;
  }
  if (fix) state.repaired.add(pointer);
  return fix;
}

function repairType(slot: Slot, pointer: string, wanted: string[], schema: unknown, state: RepairState): AppliedFix | undefined {
  const value = readSlot(slot);
  const field = displayPointer(pointer);
  // `null` for an optional property means "not given" to most callers (OpenAI strict mode sends it).
  if (value === null && !wanted.includes('null') && slot.container !== state.holder && isPlainObject(slot.container)) {
    delete slot.container[slot.key];
    state.removedNulls.set(pointer, { parent: pointer.slice(0, pointer.lastIndexOf('/')), key: slot.key });
    return { field, description: 'removed null from an optional property (treated as not given)' };
  }
  const scalar = coerceScalar(value, wanted, state.maxDepth);
  if (scalar) {
    writeSlot(slot, scalar.value);
    return { field, description: scalar.description };
  }
  // Text that starts like a JSON array but did not parse above is a broken list, not one item.
  const brokenJsonList = typeof value === 'string' && value.trim().startsWith('[');
  if (wanted.includes('array') && value !== null && value !== undefined && !Array.isArray(value) && !brokenJsonList && itemsAccept(schema, value, state.maxDepth)) {
    writeSlot(slot, [value]);
    return { field, description: `wrapped the single value ${preview(value)} in an array (the tool expects a list)` };
  }
  return undefined;
}

/**
 * The value converted to one of the wanted types, when the conversion cannot change its meaning:
 * a clean number string to a number, "true"/"false" to a boolean, a finite number to a string
 * (not an integer past 2^53, which has already lost digits), JSON text to the object or array it
 * spells.
 */
export function coerceScalar(value: unknown, wanted: readonly string[], maxDepth: number): { value: unknown; description: string } | undefined {
  if (typeof value === 'string') {
    const text = value.trim();
    if ((wanted.includes('number') || wanted.includes('integer')) && CLEAN_NUMBER.test(text)) {
      const n = Number(text);
      if (Number.isFinite(n) && (wanted.includes('number') || Number.isSafeInteger(n))) {
        return { value: n, description: `converted the string ${preview(value)} to the ${Number.isInteger(n) ? 'integer' : 'number'} ${n}` };
      }
    }
    if (wanted.includes('boolean') && /^(true|false)$/i.test(text)) {
      const b = text.toLowerCase() === 'true';
      return { value: b, description: `converted the string ${preview(value)} to the boolean ${b}` };
    }
    const parsed = wanted.includes('object') && text.startsWith('{') ? parseJson(text, maxDepth) : wanted.includes('array') && text.startsWith('[') ? parseJson(text, maxDepth) : undefined;
    if (parsed !== undefined && ((wanted.includes('object') && isPlainObject(parsed)) || (wanted.includes('array') && Array.isArray(parsed)))) {
      return { value: parsed, description: `parsed the JSON text ${preview(value, 40)} into ${Array.isArray(parsed) ? 'an array' : 'an object'}` };
    }
    return undefined;
  }
  if (typeof value === 'number' && wanted.includes('string') && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) {
    return { value: String(value), description: `converted the number ${value} to the string "${String(value)}"` };
  }
  return undefined;
}

function parseJson(text: string, maxDepth: number): unknown {
  try {
    const parsed = JSON.parse(text) as unknown;
    return depthWithin(parsed, maxDepth) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function depthWithin(value: unknown, maxDepth: number): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 1 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > maxDepth) return false;
    for (const child of Object.values(v)) stack.push({ v: child, d: d + 1 });
  }
  return true;
}

/** Whether a single value is worth wrapping into an array whose items follow `schema.items`. */
function itemsAccept(schema: unknown, value: unknown, maxDepth: number): boolean {
  const items = isPlainObject(schema) ? schema['items'] : undefined;
  if (!isPlainObject(items)) return items === undefined || items === true;
  const type = items['type'];
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.map(String) : [];
  if (types.length === 0) return true;
  const actual = jsonTypeOf(value);
  if (types.includes(actual) || (actual === 'integer' && types.includes('number'))) return true;
  return coerceScalar(value, types, maxDepth) !== undefined;
}

function repairEnum(slot: Slot, pointer: string, allowed: readonly unknown[]): AppliedFix | undefined {
  const value = readSlot(slot);
  const field = displayPointer(pointer);
  if (typeof value === 'string') {
    const sameText = allowed.filter((a) => (typeof a === 'number' || typeof a === 'boolean') && String(a) === value.trim());
    if (sameText.length === 1) {
      writeSlot(slot, sameText[0]);
      return { field, description: `converted the string ${preview(value)} to ${preview(sameText[0])}, the allowed value it spells` };
    }
    const near = correctableTo(value, allowed.filter((a): a is string => typeof a === 'string'));
    if (near.kind === 'match') {
      writeSlot(slot, near.value);
      const why = near.how === 'case' ? 'same value up to case and separators' : `${near.distance} typo${near.distance > 1 ? 's' : ''} away`;
      return { field, description: `corrected ${preview(value)} to the allowed value ${preview(near.value)} (${why})` };
    }
    return undefined;
  }
  if (typeof value === 'number' || typeof value === 'boolean') {
    const spelled = allowed.filter((a) => typeof a === 'string' && a === String(value));
    if (spelled.length === 1) {
      writeSlot(slot, spelled[0]);
      return { field, description: `converted ${String(value)} to the allowed string value ${preview(spelled[0])}` };
    }
  }
  return undefined;
}

/** The object a removed-null record points into, to put the null back. */
export function restoreNull(holder: { root: unknown }, record: { parent: string; key: string }): boolean {
  const parent = record.parent === '' ? { container: holder as unknown as JsonObject, key: 'root' } : slotAt(holder, record.parent);
  const container = parent ? readSlot(parent) : undefined;
  if (!isPlainObject(container)) return false;
  writeSlot({ container, key: record.key }, null);
  return true;
}
