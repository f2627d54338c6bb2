/** deploy/nats/toolhub-auth.conf (used by docker-compose and services.sh --nats-auth) is what natsAuthorizationConfig generates. */
import { natsAuthorizationConfig, type NatsServiceUser } from '@toolhub/bus';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

it('deploy/nats/toolhub-auth.conf matches the permissions in libs/bus', () => {
  const env = (u: string) => `$NATS_${u.toUpperCase()}_PASSWORD`;
  const users: NatsServiceUser[] = [
    { user: 'dispatcher', password: env('dispatcher'), role: 'dispatcher' },
    { user: 'registry', password: env('registry'), role: 'registry' },
    ...['local', 'mcp', 'cloud'].map((p) => ({ user: `adapter_${p}`, password: env(`adapter_${p}`), role: 'adapter' as const, provider: p })),
    { user: 'admin', password: env('admin'), role: 'admin' },
  ];
  expect(readFileSync(join(__dirname, '..', 'deploy', 'nats', 'toolhub-auth.conf'), 'utf8')).toContain(natsAuthorizationConfig(users));
});
