/**
 * The adapter's catalog as replicas announce it: screened against the catalog rules (a tool past a
 * limit is quarantined, never announced) and encoded, cached per catalog version — so heartbeats,
 * discovery pings and health requests do not re-screen and re-encode the whole catalog each time.
 */
import { type QuarantineEntry, type ScreenedCatalog, screenCatalog } from './quarantine';
import { catalogVersion } from './catalog-version';
import type { AdapterDefinition } from './types';

/** The catalog at one moment: what is announced and what is quarantined. */
export interface CatalogSnapshot {
  screened: ScreenedCatalog;
  quarantined: QuarantineEntry[];
  /** catalogVersion() of the screened tools. */
  version: string;
}

export class CatalogScreen {
  private cached: { rawVersion: string; screened: ScreenedCatalog; version: string } | undefined;

  constructor(
    private readonly adapter: Pick<AdapterDefinition, 'catalog' | 'quarantined'>,
    private readonly maxToolBytes: number,
    private readonly redact: (text: string) => string,
  ) {}

  /** The screened catalog; screened again only when the adapter's catalog changed (another version). */
  async snapshot(): Promise<CatalogSnapshot> {
    const raw = await this.adapter.catalog();
    // Hashing names and versions is cheap next to screening (which encodes every tool); an adapter
    // may change its array in place, so identity alone is not trusted.
    const rawVersion = catalogVersion(raw);
    let c = this.cached;
    if (c?.rawVersion !== rawVersion) {
      const screened = screenCatalog(raw, this.maxToolBytes);
      c = this.cached = { rawVersion, screened, version: catalogVersion(screened.tools) };
    }
    const own = this.adapter.quarantined ? await this.adapter.quarantined() : [];
    const quarantined = [...own, ...c.screened.quarantined].map((q) => ({ ...q, reason: this.redact(q.reason) }));
    return { screened: c.screened, quarantined, version: c.version };
  }
}
