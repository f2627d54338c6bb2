/**
 * The indexed terms and how many tools use each. The index asks it whether a query word is known:
 * only unknown words are expanded by prefix and fuzzy matching, because a word that is in the
 * catalog is not a typo, and expanding it only adds noise (and time) to the ranking.
 */
export class Vocabulary {
  private readonly docFreq = new Map<string, number>();
  private readonly termsOf = new Map<string, readonly string[]>();

  /** Records the terms of one tool (replacing what it had). */
  set(id: string, terms: Iterable<string>): void {
    this.delete(id);
    const unique = [...new Set(terms)];
    for (const t of unique) this.docFreq.set(t, (this.docFreq.get(t) ?? 0) + 1);
    this.termsOf.set(id, unique);
  }

  /** Forgets the terms of one tool. */
  delete(id: string): void {
    const terms = this.termsOf.get(id);
    if (!terms) return;
    for (const t of terms) {
      const n = (this.docFreq.get(t) ?? 1) - 1;
      if (n <= 0) this.docFreq.delete(t);
      else this.docFreq.set(t, n);
    }
    this.termsOf.delete(id);
  }

  /** True when some tool has this term. */
  has(term: string): boolean {
    return this.docFreq.has(term);
  }

  /** How many tools have this term. */
  frequency(term: string): number {
    return this.docFreq.get(term) ?? 0;
  }

  /** Number of distinct terms. */
  get size(): number {
    return this.docFreq.size;
  }
}
