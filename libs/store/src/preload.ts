/**
 * The versioned preload list. Every change is one immutable revision document whose `_id` is
 * derived from its number, so saving a revision is a single insert: two operators saving on the
 * same revision race for the same `_id`, and the loser gets failed_precondition. The current list
 * is the highest revision; the history is the revisions themselves.
 */
import { ToolHubError } from '@toolhub/contracts';

import type { BaseDoc, DocCollection } from './backend';
import { StoreError } from './errors';
import type { PreloadList, PreloadRevision, SetPreloadListInput } from './store';
import { assertText, assertToolIdList, invalid } from './validation';

/** Most tools in the preload list. */
export const MAX_PRELOAD_TOOLS = 500;
/** Most revisions returned by one history call. */
export const MAX_HISTORY = 1000;
const SAVE_ATTEMPTS = 20;

/** One stored revision. */
export interface PreloadDoc extends BaseDoc {
  revision: number;
  toolIds: string[];
  added: string[];
  removed: string[];
  changedBy: string;
  changedUnixMs: number;
  comment: string;
}

const INITIAL: PreloadRevision = { toolIds: [], revision: 0, changedBy: '', changedUnixMs: 0, comment: '', added: [], removed: [] };

/** Preload list operations of the store. */
export class PreloadLists {
  constructor(
    private readonly revisions: DocCollection<PreloadDoc>,
    private readonly clock: () => number,
  ) {}

  async current(): Promise<PreloadRevision> {
    const [latest] = await this.revisions.find({}, { sort: { revision: -1 }, limit: 1 });
    return latest ? fromDoc(latest) : INITIAL;
  }

  async set(input: SetPreloadListInput): Promise<PreloadRevision> {
    if (input === null || typeof input !== 'object') invalid('input', 'is not an object', 'a SetPreloadListInput', '{"toolIds": [], "changedBy": "alice"}');
    const toolIds = assertToolIdList(input.toolIds, 'toolIds', MAX_PRELOAD_TOOLS);
    assertText(input.changedBy, 'changedBy', 200, true);
    const comment = input.comment ?? '';
    assertText(comment, 'comment', 2000);
    const expected = input.expectedRevision ?? 0;
    if (!Number.isInteger(expected) || expected < 0) invalid('expectedRevision', `is ${JSON.stringify(expected)}`, 'the revision the change was made on (an integer >= 0; 0 skips the check)', '3');

    for (let attempt = 0; attempt < SAVE_ATTEMPTS; attempt++) {
      const current = await this.current();
      if (expected !== 0 && expected !== current.revision) throw conflict(expected, current);
      if (sameList(current.toolIds, toolIds)) return current;
      const before = new Set(current.toolIds);
      const after = new Set(toolIds);
      const doc: PreloadDoc = {
        _id: revisionId(current.revision + 1),
        revision: current.revision + 1,
        toolIds,
        added: toolIds.filter((id) => !before.has(id)),
        removed: current.toolIds.filter((id) => !after.has(id)),
        changedBy: input.changedBy,
        changedUnixMs: this.clock(),
        comment,
      };
      if (await this.revisions.insert(doc)) return fromDoc(doc);
      // Someone saved that revision first: with a check that is a conflict, without one we retry.
      if (expected !== 0) throw conflict(expected, await this.current());
    }
    throw new StoreError('contention', 'The preload list is being changed by others too often; try again.');
  }

  async history(limit = 20): Promise<PreloadRevision[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY) invalid('limit', `is ${JSON.stringify(limit)}`, `an integer from 1 to ${MAX_HISTORY}`, '20');
    return (await this.revisions.find({}, { sort: { revision: -1 }, limit })).map(fromDoc);
  }
}

/** `_id` of a revision: zero-padded so ids sort like numbers. */
function revisionId(revision: number): string {
  return `rev-${String(revision).padStart(10, '0')}`;
}

function fromDoc(doc: PreloadDoc): PreloadRevision {
  return {
    toolIds: doc.toolIds,
    revision: doc.revision,
    changedBy: doc.changedBy,
    changedUnixMs: doc.changedUnixMs,
    comment: doc.comment,
    added: doc.added,
    removed: doc.removed,
  };
}

/** The current list without the change details. */
export function toPreloadList(revision: PreloadRevision): PreloadList {
  const { toolIds, revision: rev, changedBy, changedUnixMs, comment } = revision;
  return { toolIds, revision: rev, changedBy, changedUnixMs, comment };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function conflict(expected: number, current: PreloadRevision): ToolHubError {
  const when = current.changedUnixMs ? new Date(current.changedUnixMs).toISOString() : 'never';
  return new ToolHubError(
    'failed_precondition',
    `The preload list changed since you read it: your change was made on revision ${expected}, but it is now at revision ${current.revision} ` +
      `(by ${current.changedBy || 'nobody'} at ${when}${current.comment ? `: ${JSON.stringify(current.comment)}` : ''}). ` +
      `Reload the list, reapply your change and send expectedRevision ${current.revision}.`,
  );
}
