/** Small checks shared by the option normalisers of every category. */
import { LocalToolsError } from './errors';

/**
 * Returns `value ?? fallback` after checking it is an integer in [min, max].
 * @throws LocalToolsError invalid_options naming the field.
 */
export function intOption(field: string, value: number | undefined, fallback: number, min = 1, max = Number.MAX_SAFE_INTEGER): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new LocalToolsError('invalid_options', `${field} must be an integer between ${min} and ${max}; got ${String(value)}.`);
  }
  return v;
}
