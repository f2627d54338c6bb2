/**
 * Publishes the registry's durable change events. Only real changes produce events (the store
 * reports an identical re-announcement as unchanged), so each event gets a fresh id: two operator
 * changes within the same second must both evict.
 */
import type { Bus } from '@toolhub/bus';
import { CatalogChanged, eventSubject, parseToolId, ToolInvalidated } from '@toolhub/contracts';
import { randomUUID } from 'node:crypto';

export class ChangeEvents {
  constructor(private readonly bus: Bus) {}

  /** `tool.invalidated` for each tool id; `newVersion` '' means removed. */
  async invalidated(changes: Array<{ toolId: string; newVersion: string; reason: string }>): Promise<void> {
    const now = Date.now();
    await Promise.all(
      changes.map(({ toolId, newVersion, reason }) => {
        const ref = parseToolId(toolId);
        if (!ref) return Promise.resolve();
        const eventId = randomUUID();
        const event: ToolInvalidated = { eventId, toolId, provider: ref.provider, name: ref.name, newVersion, reason, timestampUnixMs: now };
        return this.bus.publishEvent(eventSubject('tool.invalidated', ref.provider), ToolInvalidated.encode(event).finish(), { msgId: eventId });
      }),
    );
  }

  async catalogChanged(provider: string, catalogVersion: string, added: string[], removed: string[], changed: string[]): Promise<void> {
    const eventId = randomUUID();
    const event: CatalogChanged = { eventId, provider, catalogVersion, added, removed, changed, timestampUnixMs: Date.now() };
    await this.bus.publishEvent(eventSubject('catalog.changed', provider), CatalogChanged.encode(event).finish(), { msgId: eventId });
  }
}
