import { adapterHeartbeatSubject, AdapterHealthResponse, bindAnnouncementProvider, catalogSubject, ProviderBindingGuard, readHeartbeat, registrySubject } from '../src';

describe('provider binding: the subject’s provider against the payload’s', () => {
  it('binds announcements on either kind of per-provider subject; the shared legacy subjects have nothing to bind', () => {
    expect(bindAnnouncementProvider(catalogSubject('sync', 'local'), 'local')).toEqual({ kind: 'bound' });
    expect(bindAnnouncementProvider(catalogSubject('catalog', 'local'), 'local')).toEqual({ kind: 'bound' });
    expect(bindAnnouncementProvider(catalogSubject('catalog', 'mcp'), 'local')).toEqual({ kind: 'mismatch', subjectProvider: 'mcp' });
    expect(bindAnnouncementProvider(registrySubject('sync'), 'local')).toEqual({ kind: 'legacy' });
    expect(bindAnnouncementProvider(registrySubject('catalog'), 'local')).toEqual({ kind: 'legacy' });
  });

  it('reads a heartbeat with its binding; a malformed one is undefined', () => {
    const data = AdapterHealthResponse.encode({ provider: 'local', instanceId: 'a', healthy: true, detail: 'ok', toolCount: 0, startedUnixMs: 0, catalogVersion: '', quarantinedCount: 0, contractVersion: '', sdkVersion: '' }).finish();
    expect(readHeartbeat(adapterHeartbeatSubject('mcp'), data)).toMatchObject({ health: { provider: 'local' }, binding: { kind: 'mismatch', subjectProvider: 'mcp' } });
    expect(readHeartbeat(adapterHeartbeatSubject('local'), data)?.binding).toEqual({ kind: 'bound' });
    expect(readHeartbeat(adapterHeartbeatSubject('local'), new Uint8Array([0xff, 0xff, 0xff]))).toBeUndefined();
  });

  it('counts every refusal but logs a repeated pair once a minute, and a legacy sender once', () => {
    const lines: object[] = [];
    const guard = new ProviderBindingGuard({ warn: (obj) => void lines.push(obj) });
    const mismatch = { kind: 'mismatch' as const, subjectProvider: 'mcp' };
    const t0 = 1_000_000;
    expect(guard.accept('heartbeat', mismatch, 'local', 'toolhub.v1.discovery.heartbeat.mcp', t0)).toBe(false);
    expect(guard.accept('heartbeat', mismatch, 'local', 'toolhub.v1.discovery.heartbeat.mcp', t0 + 1000)).toBe(false);
    expect(lines).toHaveLength(1);
    expect(guard.accept('heartbeat', mismatch, 'local', 'toolhub.v1.discovery.heartbeat.mcp', t0 + 60_000)).toBe(false);
    expect(lines).toHaveLength(2);
    expect(guard.refused).toEqual({ catalog: 0, heartbeat: 3 });
    expect(guard.accept('catalog', { kind: 'legacy' }, 'old', 'toolhub.v1.registry.sync')).toBe(true);
    expect(guard.accept('catalog', { kind: 'legacy' }, 'old', 'toolhub.v1.registry.sync')).toBe(true);
    expect(guard.legacy.catalog).toBe(2);
    expect(lines).toHaveLength(3);
    expect(guard.accept('catalog', { kind: 'bound' }, 'local', 'toolhub.v1.registry.sync.local')).toBe(true);
    expect(lines).toHaveLength(3);
  });
});
