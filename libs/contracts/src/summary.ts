/** First sentence (or first 160 characters) of a description: the one-line summary agents see. */
export function summarize(description: string): string {
  const oneLine = description.replace(/\s+/g, ' ').trim();
  // Latin sentence ends need a following space (so "v1.2" is not an end); CJK ones do not.
  const m = /^(.{1,200}?(?:[.!?](?=\s|$)|[。！？]))/u.exec(oneLine);
  const first = m?.[1] ?? oneLine;
  return first.length > 160 ? `${first.slice(0, 157)}...` : first;
}
