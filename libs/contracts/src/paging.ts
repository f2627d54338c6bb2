/**
 * Paging of list replies that can outgrow one gRPC message (ListRegisteredTools, ListTools): page
 * sizes, the byte budget of one reply and the opaque page token. A token is a keyset cursor (the
 * sort key of the last item sent), bound to the listing it came from (its filters) and valid for
 * {@link PAGE_TOKEN_TTL_MS}: while the list is unchanged, pages neither repeat nor skip an item, and
 * a changed list never makes a page repeat one either. Any replica can continue any token.
 */
import { createHash } from 'node:crypto';

import { ToolHubError } from './errors';

/** Items per page when a request sends a `page_token` but no `page_size`. */
export const DEFAULT_PAGE_SIZE = 500;

/** Most items per page; a larger `page_size` is read as this. */
export const MAX_PAGE_SIZE = 2000;

/**
 * Largest encoded reply a list RPC sends (3 MiB): safely below gRPC's default 4 MiB receive limit
 * of every client, with room for the envelope. A page that would grow past it ends early.
 */
export const LIST_REPLY_BUDGET_BYTES = 3 * 1024 * 1024;

/** How long a page token stays valid (1 hour). */
export const PAGE_TOKEN_TTL_MS = 60 * 60 * 1000;

/** Bytes of each reply kept for the fields around the items (token, total, hint). */
const ENVELOPE_BYTES = 4 * 1024;
const TOKEN_VERSION = 1;

/** The paging fields of a list request. */
export interface PageRequest {
  /** 0: the default (or, without a token either, the whole list when it fits). */
  pageSize: number;
  pageToken: string;
}

/** One page of a sorted list. */
export interface Page<T> {
  items: T[];
  /** Empty on the last page. */
  nextPageToken: string;
  /** Items of the whole list. */
  total: number;
  /** Index of the page's first item in the whole list. */
  start: number;
}

/** How to page one listing. */
export interface PagingSpec<T> {
  /** The RPC, for error messages, e.g. `ListRegisteredTools`. */
  rpc: string;
  /** The request's filters, e.g. `provider=local path=file`: a token of another listing is refused. */
  scope: string;
  /** The item's sort key (unique in the list); the list is sorted ascending by `compare`. */
  key(item: T): string[];
  compare(a: readonly string[], b: readonly string[]): number;
  /** Encoded bytes of the item as a message (its field framing is added here). */
  size(item: T): number;
  /** Names the item in an error, e.g. its tool id. */
  label(item: T): string;
  /** Encoded bytes of the first page's other fields (e.g. categories). @default 0 */
  firstPageBytes?: number;
  /** @default LIST_REPLY_BUDGET_BYTES */
  budgetBytes?: number;
  /** @default Date.now() */
  now?: number;
}

interface TokenBody {
  v: number;
  /** Hash of the scope. */
  s: string;
  /** Key of the last item sent. */
  k: string[];
  /** Issued, Unix ms. */
  t: number;
}

/** Bytes of a length-delimited field holding `len` bytes (tag of a field number below 16). */
export function fieldBytes(len: number): number {
  let varint = 1;
  for (let n = len; n >= 0x80; n = Math.floor(n / 0x80)) varint++;
  return 1 + varint + len;
}

function scopeHash(scope: string): string {
  return createHash('sha256').update(scope).digest('base64url').slice(0, 16);
}

function badToken(rpc: string, problem: string): ToolHubError {
  return ToolHubError.invalidArgument(
    `${rpc}: page_token ${problem}. Send the next_page_token of the previous reply unchanged with the same filters, or no page_token to start again from the first page.`,
    [{ field: 'page_token', message: problem, expected: 'the next_page_token of the previous reply, or empty' }],
  );
}

function decodeToken(token: string, spec: PagingSpec<unknown>, now: number): string[] {
  let body: Partial<TokenBody>;
  try {
    body = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<TokenBody>;
  } catch {
    throw badToken(spec.rpc, 'is not a token this API issued');
  }
  if (body === null || typeof body !== 'object' || body.v !== TOKEN_VERSION || typeof body.s !== 'string' || typeof body.t !== 'number' || !Array.isArray(body.k) || !body.k.every((k) => typeof k === 'string')) {
    throw badToken(spec.rpc, 'is not a token this API issued');
  }
  if (body.s !== scopeHash(spec.scope)) throw badToken(spec.rpc, `belongs to another listing than ${spec.scope}`);
  if (now - body.t > PAGE_TOKEN_TTL_MS) throw badToken(spec.rpc, `expired (a token is valid for ${PAGE_TOKEN_TTL_MS / 60_000} minutes)`);
  return body.k;
}

function encodeToken(key: string[], spec: PagingSpec<unknown>, now: number): string {
  const body: TokenBody = { v: TOKEN_VERSION, s: scopeHash(spec.scope), k: key, t: now };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

/**
 * One page of `sorted` (ascending by `spec.compare` of `spec.key`).
 *
 * A request with neither `pageSize` nor `pageToken` (a client older than paging) gets the whole
 * list when it fits the byte budget. Otherwise a page holds at most `pageSize` items (default
 * {@link DEFAULT_PAGE_SIZE}, at most {@link MAX_PAGE_SIZE}) and ends early at the byte budget.
 *
 * @throws ToolHubError invalid_argument for a malformed, foreign or expired token;
 *   failed_precondition when an unpaged request's list is over the budget (the message names the
 *   limit and asks for `page_size`) or when one item alone is.
 */
export function paginate<T>(sorted: readonly T[], req: PageRequest, spec: PagingSpec<T>): Page<T> {
  const now = spec.now ?? Date.now();
  const budget = (spec.budgetBytes ?? LIST_REPLY_BUDGET_BYTES) - ENVELOPE_BYTES;
  const legacy = req.pageSize === 0 && req.pageToken === '';
  let start = 0;
  if (req.pageToken !== '') {
    const after = decodeToken(req.pageToken, spec as PagingSpec<unknown>, now);
    while (start < sorted.length && spec.compare(spec.key(sorted[start]!), after) <= 0) start++;
  }
  const limit = legacy ? sorted.length : Math.min(req.pageSize || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  let bytes = start === 0 ? (spec.firstPageBytes ?? 0) : 0;
  let end = start;
  while (end < sorted.length && end - start < limit) {
    const item = sorted[end]!;
    const size = fieldBytes(spec.size(item));
    if (bytes + size > budget) {
      if (legacy) {
        let all = bytes;
        for (let i = end; i < sorted.length; i++) all += fieldBytes(spec.size(sorted[i]!));
        throw new ToolHubError(
          'failed_precondition',
          `${spec.rpc} without page_size would answer ${sorted.length} items in ${all} bytes, more than one reply carries (${spec.budgetBytes ?? LIST_REPLY_BUDGET_BYTES} bytes, below gRPC's 4 MiB default receive limit). Send page_size (1 to ${MAX_PAGE_SIZE}) and ask again with each reply's next_page_token until it is empty.`,
          { violations: [{ field: 'page_size', message: 'required for a list this large', expected: `1 to ${MAX_PAGE_SIZE}`, example: String(DEFAULT_PAGE_SIZE) }] },
        );
      }
      if (end === start) {
        throw new ToolHubError('failed_precondition', `${spec.rpc}: ${spec.label(item)} alone encodes to ${size} bytes, more than one reply carries (${spec.budgetBytes ?? LIST_REPLY_BUDGET_BYTES} bytes); narrow the listing's filters to skip it.`);
      }
      break;
    }
    bytes += size;
    end++;
  }
  const items = sorted.slice(start, end);
  const nextPageToken = end < sorted.length && items.length > 0 ? encodeToken(spec.key(items[items.length - 1]!), spec as PagingSpec<unknown>, now) : '';
  return { items, nextPageToken, total: sorted.length, start };
}

/** Compares keys element by element in UTF-16 code units (a total order, unlike localeCompare). */
export function compareKeys(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? '';
    const y = b[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
