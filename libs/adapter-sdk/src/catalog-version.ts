import { contentHash } from '@toolhub/contracts';

/** Hash over the tools' names and versions: equal hashes mean equal catalogs. */
export function catalogVersion(tools: ReadonlyArray<{ name: string; version: string }>): string {
  return contentHash(tools.map((t) => [t.name, t.version]).sort(([a], [b]) => String(a).localeCompare(String(b))));
}
