/**
 * The first sentence of a tool's description (what search, listings and the preload set show as
 * its summary), chosen from the operation: `summary`, else the first sentence of `description`,
 * else the operationId in words — skipping banners and boilerplate that some vendor documents put
 * first (OpenAI: "**Starting a new project?** We recommend trying Responses ... --- Creates a
 * model response ..."), which say nothing about what the operation does.
 */

/** Markdown reduced to its words: links to their text, emphasis dropped (code marks kept: they name parameters). */
export function plainText(markdown: string): string {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/(\*\*|__)/g, '')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Sentences that advertise, warn or point elsewhere rather than say what the operation does. */
const BOILERPLATE: readonly RegExp[] = [
  /\?$/, // "Starting a new project?", "Looking for X?"
  /^(note|tip|warning|important|heads up|caution|beta|preview|deprecated|new)\b[:!]?/i,
  /\bwe (recommend|suggest|encourage)\b/i,
  /\b(learn more|see (the|our) (docs|documentation|guide)|for more (information|details)|compare\b.*\bwith\b)/i,
  /^(this (endpoint|operation|api|method) (is|has been) (deprecated|in beta|experimental))/i,
];

function isBoilerplate(sentence: string): boolean {
  return BOILERPLATE.some((re) => re.test(sentence));
}

/** Sentences of plain text (a Latin end needs a following space, so "v1.2" stays whole). */
function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/).map((s) => s.trim()).filter(Boolean);
}

/** Parts of a text split at Markdown horizontal rules (`---`), banner first as vendors write it. */
function sections(markdown: string): string[] {
  return markdown.split(/\n\s*(?:-{3,}|\*{3,}|_{3,})\s*\n/).map(plainText).filter(Boolean);
}

/** The first sentence of `markdown` that is not boilerplate ('' when none). */
export function firstPlainSentence(markdown: string): string {
  for (const part of sections(markdown)) {
    for (const s of sentences(part)) if (!isBoilerplate(s)) return s;
  }
  return '';
}

/** What leads a tool's description: the operation's own words, banners dropped. */
export function operationLead(summary: string, description: string, operationId: string): { lead: string; rest: string } {
  const sentence = (t: string): string => (t && !/[.!?:]$/.test(t) ? `${t}.` : t);
  const lead = firstPlainSentence(summary) || firstPlainSentence(description) || humanize(operationId);
  // The rest of the description, without the banner sections and sentences the lead skipped.
  const restParts = sections(description)
    .map((p) => sentences(p).filter((s) => !isBoilerplate(s)).join(' '))
    .filter(Boolean)
    .join(' ');
  const rest = restParts && !restParts.startsWith(lead.replace(/[.!?:]$/, '')) ? restParts : restParts.slice(lead.length).trim();
  return { lead: sentence(lead), rest: sentence(rest) };
}

/** `getUserByName` → `Get user by name`; `list-data-sets` → `List data sets`. */
export function humanize(id: string): string {
  const words = id
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[^A-Za-z0-9]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : '';
}
