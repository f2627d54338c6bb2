/**
 * One implementation of {@link RunStore} over a minimal document collection, which the embedded
 * (NeDB) and MongoDB entries each provide with a few lines: filters use only equality, `$in` and
 * `$lt`, which both (and FerretDB 1.x) treat alike.
 */
import { type ListRunsQuery, type RunRecord, type RunRecordState, type RunStore, TERMINAL_RUN_STATES } from './run-store';

/** A stored run: the record with `id` as `_id`. */
export type RunDoc = Omit<RunRecord, 'id'> & { _id: string };

/** What {@link DocumentRunStore} needs of a collection. */
export interface RunCollection {
  findOne(filter: Record<string, unknown>): Promise<RunDoc | undefined>;
  find(filter: Record<string, unknown>, sort: Record<string, 1 | -1>, limit: number): Promise<RunDoc[]>;
  /** False when the `_id` is taken. */
  insert(doc: RunDoc): Promise<boolean>;
  /** True when one document matched `filter` and was replaced. */
  replace(filter: Record<string, unknown>, doc: RunDoc): Promise<boolean>;
  deleteMany(filter: Record<string, unknown>): Promise<number>;
  /** Documents matching `filter`, counted up to `limit`. */
  count(filter: Record<string, unknown>, limit: number): Promise<number>;
  close(): Promise<void>;
}

const toDoc = ({ id, ...rest }: RunRecord): RunDoc => ({ _id: id, ...rest });
const fromDoc = ({ _id, ...rest }: RunDoc): RunRecord => ({ id: _id, ...rest });

export class DocumentRunStore implements RunStore {
  private closing: Promise<void> | undefined;

  constructor(private readonly runs: RunCollection) {}

  create(run: RunRecord): Promise<boolean> {
    return this.runs.insert(toDoc(run));
  }

  async get(id: string): Promise<RunRecord | undefined> {
    const doc = await this.runs.findOne({ _id: id });
    return doc ? fromDoc(doc) : undefined;
  }

  async replace(run: RunRecord): Promise<RunRecord | undefined> {
    const next = { ...run, rev: run.rev + 1 };
    return (await this.runs.replace({ _id: run.id, rev: run.rev }, toDoc(next))) ? next : undefined;
  }

  async list(principalId: string, query: ListRunsQuery): Promise<RunRecord[]> {
    const filter: Record<string, unknown> = { principalId };
    if (query.beforeId) filter['_id'] = { $lt: query.beforeId };
    if (query.state) filter['state'] = query.state;
    return (await this.runs.find(filter, { _id: -1 }, query.limit)).map(fromDoc);
  }

  async findByIdempotencyKey(principalId: string, key: string): Promise<RunRecord | undefined> {
    const [doc] = await this.runs.find({ principalId, idempotencyKey: key }, { _id: -1 }, 1);
    return doc ? fromDoc(doc) : undefined;
  }

  async listInStates(states: readonly RunRecordState[], limit: number): Promise<RunRecord[]> {
    return (await this.runs.find({ state: { $in: [...states] } }, { _id: 1 }, limit)).map(fromDoc);
  }

  countInStates(states: readonly RunRecordState[], query: { principalId?: string; limit: number }): Promise<number> {
    const filter: Record<string, unknown> = { state: { $in: [...states] } };
    if (query.principalId !== undefined) filter['principalId'] = query.principalId;
    return this.runs.count(filter, query.limit);
  }

  deleteExpired(nowUnixMs: number): Promise<number> {
    return this.runs.deleteMany({ state: { $in: [...TERMINAL_RUN_STATES] }, expiresUnixMs: { $lt: nowUnixMs } });
  }

  close(): Promise<void> {
    this.closing ??= this.runs.close();
    return this.closing;
  }
}
