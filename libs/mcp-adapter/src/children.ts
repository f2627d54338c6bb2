/**
 * Stdio servers still running, so that a ToolHub process that exits without calling close() does
 * not leave them behind: one `exit` hook for all of them, installed on first use. (The servers also
 * see their stdin close, which makes well-behaved ones exit on their own.)
 */
const live = new Set<number>();
let hooked = false;

export function trackChild(pid: number): void {
  live.add(pid);
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const p of live) {
      try {
        process.kill(p, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  });
}

export function untrackChild(pid: number): void {
  live.delete(pid);
}

/** Pids of stdio servers this process started and has not seen exit. */
export function liveChildren(): number[] {
  return [...live];
}
