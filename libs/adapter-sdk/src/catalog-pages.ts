/**
 * Cuts an encoded catalog into pages that each fit one bus message, and the checksum the registry
 * verifies after pulling them. No bus message ever carries a whole large catalog.
 */
import { CatalogPageResponse } from '@toolhub/contracts';
import { createHash } from 'node:crypto';

/** A catalog cut into pages of encoded ToolInfo messages. */
export interface CatalogPages {
  catalogVersion: string;
  /** Each page: the encoded ToolInfo messages it carries. */
  pages: Uint8Array[][];
  /** SHA-256 (hex) over every encoded tool, in page order. */
  checksum: string;
  totalBytes: number;
  toolCount: number;
}

/** Bytes a length-delimited field adds around its payload (tag + varint length), at most. */
const FIELD_OVERHEAD = 6;

/** Groups encoded tools into pages of at most `pageBytes` bytes each (every tool must fit one). */
export function cutPages(catalogVersion: string, encoded: ReadonlyArray<Uint8Array>, pageBytes: number): CatalogPages {
  const pages: Uint8Array[][] = [];
  const hash = createHash('sha256');
  let page: Uint8Array[] = [];
  let size = 0;
  let total = 0;
  for (const bytes of encoded) {
    const need = bytes.byteLength + FIELD_OVERHEAD;
    if (page.length > 0 && size + need > pageBytes) {
      pages.push(page);
      page = [];
      size = 0;
    }
    page.push(bytes);
    size += need;
    total += bytes.byteLength;
    hash.update(bytes);
  }
  if (page.length > 0 || pages.length === 0) pages.push(page);
  return { catalogVersion, pages, checksum: hash.digest('hex'), totalBytes: total, toolCount: encoded.length };
}

/** SHA-256 (hex) over encoded tools, as the registry recomputes it from the pages it pulled. */
export function catalogChecksum(encoded: Iterable<Uint8Array>): string {
  const hash = createHash('sha256');
  for (const b of encoded) hash.update(b);
  return hash.digest('hex');
}

/** Encodes one page reply, reusing the already-encoded tools (no second encoding of each schema). */
export function encodePage(pages: CatalogPages, index: number): Uint8Array {
  const writer = CatalogPageResponse.encode({ catalogVersion: pages.catalogVersion, page: index, pageCount: pages.pages.length, tools: [] });
  // Field 4 (tools), wire type 2: tag 34, then the length-prefixed encoded ToolInfo.
  for (const bytes of pages.pages[index] ?? []) writer.uint32(34).bytes(bytes);
  return writer.finish();
}

/** A decoded page reply, with each tool's encoded bytes kept for the checksum. */
export interface DecodedPage {
  catalogVersion: string;
  page: number;
  pageCount: number;
  /** Encoded ToolInfo messages, in order. */
  encoded: Uint8Array[];
}

/**
 * Reads a CatalogPageResponse without decoding its tools, so the registry can check the checksum
 * over the exact bytes the adapter hashed (a minimal reader of the envelope's four fields).
 * @throws Error when the bytes are not a well-formed page.
 */
export function readPage(data: Uint8Array): DecodedPage {
  let pos = 0;
  const varint = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      if (pos >= data.length) throw new Error('truncated catalog page');
      const b = data[pos++]!;
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) return result;
      shift += 7;
      if (shift > 49) throw new Error('malformed varint in catalog page');
    }
  };
  const chunk = (): Uint8Array => {
    const len = varint();
    if (pos + len > data.length) throw new Error('truncated catalog page');
    const out = data.subarray(pos, pos + len);
    pos += len;
    return out;
  };
  const out: DecodedPage = { catalogVersion: '', page: 0, pageCount: 0, encoded: [] };
  while (pos < data.length) {
    const tag = varint();
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 2) {
      const bytes = chunk();
      if (field === 1) out.catalogVersion = new TextDecoder().decode(bytes);
      else if (field === 4) out.encoded.push(bytes);
    } else if (wire === 0) {
      const v = varint();
      if (field === 2) out.page = v;
      else if (field === 3) out.pageCount = v;
    } else if (wire === 5) pos += 4;
    else if (wire === 1) pos += 8;
    else throw new Error(`unexpected wire type ${wire} in catalog page`);
  }
  return out;
}
