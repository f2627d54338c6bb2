/** Connection events are logged by weight: a refused publish or subscription is an error, never info. */
import { natsStatusLogger } from '@toolhub/bus';
import { PermissionViolationError } from '@nats-io/nats-core';

function recorder() {
  const lines: Array<{ level: string; obj: object; msg?: string }> = [];
  const at = (level: string) => (obj: object, msg?: string) => void lines.push({ level, obj, msg });
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('natsStatusLogger', () => {
  it('logs a permission violation at error, naming the operation, subject, user and where the permissions come from', () => {
    const { lines, log } = recorder();
    natsStatusLogger(log, 'registry')({ type: 'error', error: new PermissionViolationError('Permissions Violation for Publish to "_INBOX_dispatcher.x"', 'publish', '_INBOX_dispatcher.x') });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.level).toBe('error');
    expect(lines[0]!.obj).toEqual({ nats: { operation: 'publish', subject: '_INBOX_dispatcher.x', user: 'registry' } });
    expect(lines[0]!.msg).toMatch(/NATS refused publish on "_INBOX_dispatcher\.x" for user "registry".*toolhub-auth\.conf/);
  });

  it('logs other errors and disconnects at warn, reconnects at info', () => {
    const { lines, log } = recorder();
    const onStatus = natsStatusLogger(log, undefined);
    onStatus({ type: 'disconnect', server: 'nats://x:4222' });
    onStatus({ type: 'error', error: new Error('boom') });
    onStatus({ type: 'reconnect', server: 'nats://x:4222' });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', 'nats disconnect'],
      ['warn', 'nats error'],
      ['info', 'nats reconnect'],
    ]);
  });
});
