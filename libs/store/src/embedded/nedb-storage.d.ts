/** The part of NeDB's storage module (lib/storage.js, untyped) that kept-appends.ts wraps. */
declare module '@seald-io/nedb/lib/storage' {
  export let appendFileAsync: (path: string, data: string, options?: { encoding?: BufferEncoding; mode?: number }) => Promise<void>;
  export let crashSafeWriteFileLinesAsync: (filename: string, lines: string[], modes?: unknown) => Promise<void>;
}
