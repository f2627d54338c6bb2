/** Importance levels by name, as operators write them in config and YAML. */
import { Importance } from './gen/toolhub/v1/tool';

export type ImportanceName = 'core' | 'normal' | 'low';

/** `'core'` → Importance.IMPORTANCE_CORE; unknown or missing → normal. */
export function importanceFromName(name: ImportanceName | undefined): Importance {
  switch (name) {
    case 'core':
      return Importance.IMPORTANCE_CORE;
    case 'low':
      return Importance.IMPORTANCE_LOW;
    default:
      return Importance.IMPORTANCE_NORMAL;
  }
}

/** Importance.IMPORTANCE_CORE → `'core'`; unspecified counts as normal. */
export function importanceName(value: Importance): ImportanceName {
  if (value === Importance.IMPORTANCE_CORE) return 'core';
  if (value === Importance.IMPORTANCE_LOW) return 'low';
  return 'normal';
}
