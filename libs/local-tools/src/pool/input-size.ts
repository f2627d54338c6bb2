/** How big a call's arguments are, for the worker pool's large/small split. */

/**
 * About how many bytes `args` take as JSON (UTF-8 strings and keys, 8 per number, 4 per other
 * scalar, 1 per bracket or comma), counted only up to `limit`: the walk stops as soon as the total
 * reaches it, so sizing a megabyte call costs no more than sizing a 64 KiB one. Runs on the
 * adapter's own thread before the call is queued, hence the early stop and no JSON.stringify copy.
 * A cyclic value (never sent by the wire, which carries JSON) simply counts past `limit`.
 */
export function argumentBytes(args: unknown, limit: number): number {
  let total = 0;
  const stack: unknown[] = [args];
  while (stack.length > 0 && total < limit) {
    const value = stack.pop();
    if (typeof value === 'string') total += stringBytes(value, limit - total);
    else if (typeof value === 'number' || typeof value === 'bigint') total += 8;
    else if (Array.isArray(value)) {
      total += 1 + value.length;
      for (const item of value) stack.push(item);
    } else if (typeof value === 'object' && value !== null) {
      total += 1;
      for (const [key, item] of Object.entries(value)) {
        total += stringBytes(key, limit - total) + 2;
        stack.push(item);
      }
    } else total += 4;
  }
  return Math.min(total, limit);
}

/** UTF-8 bytes of `s` plus its quotes, or at least `remaining` when that is sure to be reached. */
function stringBytes(s: string, remaining: number): number {
  // UTF-8 never takes fewer bytes than UTF-16 code units, so a long string needs no encoding pass.
  if (s.length >= remaining) return remaining;
  return Buffer.byteLength(s, 'utf8') + 2;
}
