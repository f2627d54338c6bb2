import { failureAuditor } from '../src/audit';

describe('failureAuditor', () => {
  it('audits at most entriesPerMinute failures a minute and logs how many it left out', async () => {
    const appended: Array<{ action: string; principal: string; comment: string }> = [];
    const store = { appendAudit: async (e: { action: string; principal: string; comment: string }) => (appended.push(e), e) };
    const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    let now = 1_000_000;
    const observe = failureAuditor(store as never, { entriesPerMinute: 5, log: { warn: (obj, msg) => warnings.push({ obj: obj as Record<string, unknown>, msg }) }, now: () => now });
    for (let i = 0; i < 12; i++) observe({ method: '/toolhub.v1.RegistryAdmin/SetEnabled', error: { code: 'unauthenticated', message: 'no credentials' }, principal: undefined, requestId: `r${i}` });
    await Promise.resolve();
    expect(appended).toHaveLength(5);
    expect(appended[0]).toMatchObject({ action: 'refused:SetEnabled', principal: '(unauthenticated)', comment: 'unauthenticated: no credentials' });
    expect(observe.stats).toEqual({ audited: 5, skipped: 7 });
    now += 60_000;
    observe({ method: '/toolhub.v1.RegistryAdmin/SetEnabled', error: { code: 'not_found', message: 'no such tool' }, principal: { id: 'key:ops', roles: ['operator'], method: 'api_key' } as never, requestId: 'late' });
    await Promise.resolve();
    expect(warnings.filter((w) => w.obj['notAudited'] === 7)).toHaveLength(1);
    expect(appended[5]).toMatchObject({ action: 'failed:SetEnabled', principal: 'key:ops' });
  });
});
