/** Unicode-aware case and shape conversions used by text_transform. */

/** Every conversion text_transform offers. */
export const TRANSFORMS = ['upper', 'lower', 'title', 'sentence', 'snake', 'kebab', 'camel', 'pascal', 'constant', 'slug', 'trim', 'collapse_whitespace'] as const;
export type Transform = (typeof TRANSFORMS)[number];

/** Splits text into words at spaces, punctuation and camelCase humps: `"parseHTTPResponse v2"` → parse, HTTP, Response, v2. */
export function words(text: string): string[] {
  return text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .split(/[^\p{L}\p{M}\p{N}]+/u)
    .filter((w) => w !== '');
}

function capitalize(word: string, locale: string | undefined): string {
  const [first = '', ...rest] = Array.from(word);
  return first.toLocaleUpperCase(locale) + rest.join('').toLocaleLowerCase(locale);
}

function stripMarks(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').normalize('NFC');
}

/** Applies one conversion. `locale` matters for upper/lower (Turkish dotted i, for instance). */
export function transform(text: string, to: Transform, locale?: string): string {
  switch (to) {
    case 'upper':
      return text.toLocaleUpperCase(locale);
    case 'lower':
      return text.toLocaleLowerCase(locale);
    case 'title':
      return text.replace(/[\p{L}\p{N}][\p{L}\p{M}\p{N}'’]*/gu, (w) => capitalize(w, locale));
    case 'sentence': {
      const lower = text.toLocaleLowerCase(locale);
      return lower.replace(/(^|[.!?]\s+)(\p{L})/gu, (_m, lead: string, letter: string) => lead + letter.toLocaleUpperCase(locale));
    }
    case 'snake':
      return words(text).map((w) => w.toLocaleLowerCase(locale)).join('_');
    case 'kebab':
      return words(text).map((w) => w.toLocaleLowerCase(locale)).join('-');
    case 'constant':
      return words(text).map((w) => w.toLocaleUpperCase(locale)).join('_');
    case 'camel':
      return words(text)
        .map((w, i) => (i === 0 ? w.toLocaleLowerCase(locale) : capitalize(w, locale)))
        .join('');
    case 'pascal':
      return words(text).map((w) => capitalize(w, locale)).join('');
    case 'slug':
      return stripMarks(text)
        .toLocaleLowerCase(locale)
        .replace(/[^\p{L}\p{N}]+/gu, '-')
        .replace(/^-+|-+$/g, '');
    case 'trim':
      return text.trim();
    case 'collapse_whitespace':
      return text.replace(/\s+/g, ' ').trim();
  }
}
