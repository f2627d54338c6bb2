/**
 * Word lists of the analyzer: stop words (English and Chinese function words) and synonym groups
 * of words that tool descriptions and agent queries use interchangeably. The lists are generic —
 * written from how tool catalogs name things, not from any benchmark's queries.
 */

/** English function words that carry no meaning for finding a tool. */
export const ENGLISH_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between both but by ' +
    'can could did do does doing down during each etc few for from further had has have having he her here hers herself him ' +
    'himself his how i if in into is it its itself just me more most my myself no nor not of off on once only or other our ' +
    'ours ourselves out over own please same she should so some such than that the their theirs them themselves then there ' +
    'these they this those through to too under until up very was we were what when where which while who whom why will ' +
    'with would you your yours yourself yourselves'
  ).split(' '),
);

/**
 * Query words that mislead across providers (a vendor's name inside a word, a verb every catalog
 * uses): left out of queries that have other words. Chosen by bench/search/stop-list.bench.ts on
 * the validation half of MetaTool and BFCL (even queries), never on the evaluation half.
 */
export const QUERY_STOP_WORDS: readonly string[] = ['like'];

/** Chinese single-character function words (particles, conjunctions, pronouns). */
export const CHINESE_STOP_WORDS: ReadonlySet<string> = new Set(
  '的 了 和 与 及 或 是 在 把 被 对 并 等 个 一 将 为 我 你 他 她 它 们 吗 呢 吧 啊 么 这 那 有 就 也 都 而 之 于 从 以 及 其 此'.split(' '),
);

/**
 * Groups of interchangeable words. The analyzer folds every member of a group to the group's
 * first word (after stemming), at index and at query time alike, so "fetch the file" finds
 * `read_file` and "remove a branch" finds `delete_branch`. Only generic tool vocabulary belongs
 * here: the verbs of CRUD-style APIs and common abbreviations.
 */
export const SYNONYM_GROUPS: ReadonlyArray<readonly string[]> = [
  ['get', 'fetch', 'retrieve', 'obtain', 'read'],
  ['list', 'enumerate'],
  ['delete', 'remove', 'erase'],
  ['create', 'add', 'new'],
  ['search', 'find', 'query', 'lookup'],
  ['update', 'modify', 'edit'],
  ['run', 'execute', 'invoke'],
  ['calculate', 'compute'],
  ['image', 'picture', 'photo', 'img'],
  ['document', 'doc', 'docs'],
  ['repository', 'repo', 'repos'],
  ['message', 'msg'],
  ['directory', 'folder', 'dir'],
  ['database', 'db'],
  ['configuration', 'config'],
  ['email', 'mail'],
];
