/**
 * The registry's side of catalog sync. Inline announcements (small catalogs) and paged ones (any
 * size: the registry pulls each page from the announcing replica, re-asks for a lost page, checks
 * the checksum) end the same way: every tool is screened on its own — a tool that breaks a rule is
 * quarantined with its reason, never its neighbours — and the provider switches to the new
 * catalog in one step, after every page has arrived (search never sees half a catalog). Per
 * provider, syncs run one at a time; a newer announcement supersedes one still being pulled.
 */
import { catalogChecksum, readPage, readReply, type SdkLogger } from '@toolhub/adapter-sdk';
import type { Bus, BusMessage } from '@toolhub/bus';
import {
  adapterCatalogSubject,
  bindAnnouncementProvider,
  CatalogAnnouncement,
  CatalogPageRequest,
  type CatalogSyncStatus,
  isToolHubError,
  isValidToolName,
  jsonDepth,
  MAX_ANNOUNCED_QUARANTINE,
  MAX_SCHEMA_DEPTH,
  PROVIDER_NAME_PATTERN,
  ProviderBindingGuard,
  type QuarantinedItem,
  ToolInfo,
} from '@toolhub/contracts';
import { MAX_SYNC_TOOLS, normalizeToolInfo } from '@toolhub/store';

export interface CatalogSyncOptions {
  /** Wait for one page before asking again. @default 10000 */
  pageTimeoutMs?: number;
  /** Extra attempts per page after a lost one. @default 3 */
  pageRetries?: number;
}

/** Switches a provider to a screened catalog (store, events, search index). */
export type ApplyCatalog = (provider: string, catalogVersion: string, tools: ToolInfo[]) => Promise<void>;

class Superseded extends Error {}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Screens decoded tools one by one: the store's rules, depth, duplicate names, the catalog size. */
export function screenForStore(provider: string, tools: ReadonlyArray<ToolInfo>): { tools: ToolInfo[]; quarantined: QuarantinedItem[] } {
  const ok: ToolInfo[] = [];
  const quarantined: QuarantinedItem[] = [];
  const seen = new Set<string>();
  const out = (tool: string, rule: string, reason: string) => quarantined.push({ source: '', tool: tool.slice(0, 200), rule, reason: reason.slice(0, 300) });
  for (const t of tools) {
    const name = typeof t.name === 'string' ? t.name : '';
    if (!isValidToolName(name)) out(name, 'name', `the name does not match ^[a-z][a-z0-9_]{0,63}$`);
    else if (seen.has(name)) out(name, 'duplicate_name', `another tool of this provider is already named ${JSON.stringify(name)}`);
    else if (jsonDepth(t.inputSchema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) out(name, 'schema_depth', `the input schema nests more than ${MAX_SCHEMA_DEPTH} levels (limit MAX_SCHEMA_DEPTH)`);
    else if (ok.length >= MAX_SYNC_TOOLS) out(name, 'catalog_size', `the provider announced more than ${MAX_SYNC_TOOLS} tools (limit MAX_SYNC_TOOLS); the rest are left out`);
    else {
      try {
        normalizeToolInfo(t, 'tool', provider);
        seen.add(name);
        ok.push(t);
      } catch (err) {
        out(name, 'store', (err as Error).message);
      }
    }
  }
  return { tools: ok, quarantined };
}

export class CatalogSync {
  private readonly status = new Map<string, CatalogSyncStatus>();
  private readonly latest = new Map<string, CatalogAnnouncement>();
  private readonly chains = new Map<string, Promise<void>>();
  /** When this replica last took an announcement of each provider (its own clock). */
  private readonly heardAt = new Map<string, number>();
  private readonly pageTimeoutMs: number;
  private readonly pageRetries: number;

  constructor(
    private readonly bus: Bus,
    private readonly apply: ApplyCatalog,
    private readonly log: SdkLogger,
    options: CatalogSyncOptions = {},
    /** Refuses an announcement whose subject names another provider than its payload (counted). */
    readonly binding: ProviderBindingGuard = new ProviderBindingGuard(log),
  ) {
    this.pageTimeoutMs = options.pageTimeoutMs ?? 10_000;
    this.pageRetries = options.pageRetries ?? 3;
  }

  /**
   * Handles an announcement from `toolhub.v1.registry.sync.<provider>` (inline) or
   * `.catalog.<provider>` (paged), or the legacy shared `…sync` / `…catalog` (logged). One whose
   * subject names another provider than its payload is refused: NATS permissions bind the
   * subject's provider to the sender, the payload could be anyone's.
   */
  onAnnouncement(msg: BusMessage): Promise<void> {
    let ann: CatalogAnnouncement;
    try {
      ann = CatalogAnnouncement.decode(msg.data);
    } catch (err) {
      this.log.warn({ err, bytes: msg.data.byteLength }, 'malformed catalog announcement ignored');
      return Promise.resolve();
    }
    if (!PROVIDER_NAME_PATTERN.test(ann.provider)) {
      this.log.warn({ provider: ann.provider.slice(0, 80) }, 'catalog announcement with an invalid provider name ignored');
      return Promise.resolve();
    }
    if (!this.binding.accept('catalog', bindAnnouncementProvider(msg.subject, ann.provider), ann.provider, msg.subject)) return Promise.resolve();
    const provider = ann.provider;
    this.heardAt.set(provider, Date.now());
    const current = this.status.get(provider);
    if (current?.state === 'synced' && current.catalogVersion === ann.catalogVersion && current.quarantinedTotal === (ann.quarantinedTotal ?? ann.quarantined.length)) {
      return Promise.resolve(); // another replica, or a re-announcement, of the catalog in place
    }
    this.latest.set(provider, ann);
    const run = (this.chains.get(provider) ?? Promise.resolve()).then(() => this.sync(ann));
    this.chains.set(provider, run);
    return run;
  }

  /**
   * The store no longer holds the catalog this replica last synced of `provider` (another registry
   * replica retired it): forget that sync, so the adapter's next announcement of the same catalog
   * is applied instead of skipped as already in place.
   */
  forgetIfEmptied(provider: string, storedAdapterTools: number): void {
    const current = this.status.get(provider);
    if (current?.state === 'synced' && current.toolCount > 0 && storedAdapterTools === 0) this.status.delete(provider);
  }

  /** Whether the provider's adapter tools were retired (see {@link retire}) and nothing synced since. */
  isRetired(provider: string): boolean {
    return this.status.get(provider)?.state === 'retired';
  }

  /**
   * Retires a provider's stored adapter tools (an empty catalog: see ResyncGrace), after any sync
   * of it still queued, unless an announcement of it arrived at or after `unlessHeardSince`.
   * Resolves whether it retired them; state `retired` in the status.
   * @throws what `apply` throws (the store is down); the status then says `failed`.
   */
  retire(provider: string, unlessHeardSince: number, reason: string): Promise<boolean> {
    const run = (this.chains.get(provider) ?? Promise.resolve()).then(async () => {
      if ((this.heardAt.get(provider) ?? -Infinity) >= unlessHeardSince) return false;
      const status: CatalogSyncStatus = {
        provider,
        state: 'retired',
        catalogVersion: '',
        pagesReceived: 0,
        pageCount: 0,
        toolCount: 0,
        error: reason,
        updatedUnixMs: Date.now(),
        instanceId: '',
        quarantined: [],
        quarantinedTotal: 0,
        syncMs: 0,
      };
      try {
        await this.apply(provider, '', []);
      } catch (err) {
        this.status.set(provider, { ...status, state: 'failed', error: `retiring the stored catalog failed: ${(err as Error).message}` });
        throw err;
      }
      this.status.set(provider, status);
      return true;
    });
    this.chains.set(provider, run.then(() => undefined, () => undefined));
    return run;
  }

  /** The state of each provider's last sync (one provider, or every one when `provider` is ''). */
  statuses(provider = ''): CatalogSyncStatus[] {
    const all = [...this.status.values()].filter((s) => !provider || s.provider === provider);
    return all.sort((a, b) => a.provider.localeCompare(b.provider));
  }

  /** Quarantined items per provider (as last announced and screened). */
  quarantined(provider: string): QuarantinedItem[] {
    return this.status.get(provider)?.quarantined ?? [];
  }

  private async sync(ann: CatalogAnnouncement): Promise<void> {
    const provider = ann.provider;
    if (this.latest.get(provider) !== ann) return; // a newer announcement came while this one waited
    const started = Date.now();
    const pageCount = ann.pageCount ?? 0;
    const status: CatalogSyncStatus = {
      provider,
      state: 'receiving',
      catalogVersion: ann.catalogVersion,
      pagesReceived: 0,
      pageCount,
      toolCount: ann.toolCount ?? ann.tools.length,
      error: '',
      updatedUnixMs: started,
      instanceId: ann.instanceId,
      quarantined: ann.quarantined,
      quarantinedTotal: ann.quarantinedTotal ?? ann.quarantined.length,
      syncMs: 0,
    };
    const previous = this.status.get(provider);
    this.status.set(provider, status);
    try {
      const received = pageCount > 0 ? await this.pull(ann, status) : ann.tools;
      const screened = screenForStore(provider, received);
      for (const q of screened.quarantined) this.log.warn({ provider, tool: q.tool, rule: q.rule, reason: q.reason }, 'tool quarantined by the registry');
      await this.apply(provider, ann.catalogVersion, screened.tools);
      status.quarantined = [...ann.quarantined, ...screened.quarantined].slice(0, MAX_ANNOUNCED_QUARANTINE + screened.quarantined.length);
      status.quarantinedTotal = (ann.quarantinedTotal ?? ann.quarantined.length) + screened.quarantined.length;
      status.toolCount = screened.tools.length;
      status.state = 'synced';
      status.syncMs = Date.now() - started;
      status.updatedUnixMs = Date.now();
      if (pageCount > 0) this.log.info({ provider, tools: screened.tools.length, pages: pageCount, ms: status.syncMs }, 'paged catalog synced');
    } catch (err) {
      if (err instanceof Superseded) {
        // Keep showing what is in place; the newer announcement reports its own progress.
        if (previous) this.status.set(provider, previous);
        else this.status.delete(provider);
        return;
      }
      status.state = 'failed';
      status.error = (err as Error).message;
      status.updatedUnixMs = Date.now();
      this.log.error({ err, provider, catalogVersion: ann.catalogVersion }, 'catalog sync failed; the previous catalog stays in place');
    }
  }

  /** Pulls every page of a paged catalog, re-asking for lost ones, and checks the checksum. */
  private async pull(ann: CatalogAnnouncement, status: CatalogSyncStatus): Promise<ToolInfo[]> {
    const subject = adapterCatalogSubject(ann.provider, ann.instanceId);
    const pageCount = ann.pageCount ?? 0;
    const encoded: Uint8Array[] = [];
    let nextLog = 0.25;
    for (let page = 0; page < pageCount; page++) {
      for (let attempt = 0; ; attempt++) {
        if (this.latest.get(ann.provider) !== ann) throw new Superseded();
        try {
          const reply = await this.bus.request(subject, CatalogPageRequest.encode({ catalogVersion: ann.catalogVersion, page }).finish(), { timeoutMs: this.pageTimeoutMs });
          const got = readReply(reply, readPage);
          if (got.catalogVersion !== ann.catalogVersion || got.page !== page) throw new Error(`asked for page ${page} of ${ann.catalogVersion}, got page ${got.page} of ${got.catalogVersion}`);
          encoded.push(...got.encoded);
          break;
        } catch (err) {
          if (isToolHubError(err) && err.code === 'failed_precondition') throw new Superseded();
          if (attempt >= this.pageRetries) throw new Error(`page ${page + 1} of ${pageCount} was lost ${attempt + 1} times: ${(err as Error).message}`, { cause: err });
          this.log.warn({ provider: ann.provider, page, attempt: attempt + 1, err: (err as Error).message }, 'catalog page lost; asking again');
          await sleep(200 * 2 ** attempt);
        }
      }
      status.pagesReceived = page + 1;
      status.updatedUnixMs = Date.now();
      if ((page + 1) / pageCount >= nextLog && page + 1 < pageCount) {
        this.log.info({ provider: ann.provider, pages: `${page + 1}/${pageCount}` }, 'catalog sync progress');
        nextLog += 0.25;
      }
    }
    const checksum = catalogChecksum(encoded);
    if (ann.checksum && checksum !== ann.checksum) throw new Error(`checksum mismatch over ${pageCount} pages: announced ${ann.checksum}, received ${checksum}`);
    const tools: ToolInfo[] = [];
    for (const bytes of encoded) {
      try {
        tools.push(ToolInfo.decode(bytes));
      } catch (err) {
        status.quarantined.push({ source: '', tool: '', rule: 'malformed', reason: `a tool definition could not be decoded: ${(err as Error).message}`.slice(0, 300) });
      }
    }
    return tools;
  }
}
