import { natsPermissions } from '@toolhub/bus';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { cliRunner } from './support/run-cli';

const SHIPPED = join(__dirname, '..', '..', '..', 'deploy', 'nats', 'toolhub-auth.conf');

describe('toolhub nats add-provider', () => {
  const cli = cliRunner({});
  let base: string;
  beforeEach(() => (base = mkdtempSync(join(tmpdir(), 'nats-add-provider-'))));
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it("prints the provider's users entry, nats-server's password variable and the adapter's environment", async () => {
    const r = await cli(['nats', 'add-provider', 'weather']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    const entry = lines[1]!;
    expect(entry).toMatch(/^ {4}\{ user: "adapter_weather", password: \$NATS_ADAPTER_WEATHER_PASSWORD, permissions: /);
    // The permissions are the adapter role's, for this provider only.
    const perms = natsPermissions({ user: 'adapter_weather', password: 'x', role: 'adapter', provider: 'weather' });
    for (const subject of [...perms.publish.allow, ...perms.subscribe.allow]) expect(entry).toContain(JSON.stringify(subject));
    expect(entry).toContain('"toolhub.v1.adapter.weather.>"');
    expect(entry).not.toContain('"toolhub.v1.adapter.local.>"');
    const env = Object.fromEntries(lines.filter((l) => /^[A-Z_]+=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    expect(env).toMatchObject({ NATS_USER: 'adapter_weather', NATS_INBOX_PREFIX: '_INBOX_adapter_weather' });
    // A letter first: nats-server parses the variable's value, and a leading digit makes it a number.
    expect(env['NATS_PASSWORD']).toMatch(/^p[0-9a-f]{32}$/);
    expect(env['NATS_ADAPTER_WEATHER_PASSWORD']).toBe(env['NATS_PASSWORD']);
  });

  it('issues a different password each time', async () => {
    const a = (await cli(['nats', 'add-provider', 'weather', '--json'])).json<{ password: string }>();
    const b = (await cli(['nats', 'add-provider', 'weather', '--json'])).json<{ password: string }>();
    expect(a.password).not.toBe(b.password);
  });

  it('refuses a given password nats-server would not read back as it is (a leading digit), and takes one it would', async () => {
    const digit = await cli(['nats', 'add-provider', 'weather', '--password', '2abcdefghijklmn']);
    expect(digit.code).toBe(2);
    expect(digit.stderr).toContain('--password must start with a letter');
    const ok = (await cli(['nats', 'add-provider', 'weather', '--password', 'weather-Secret_2026', '--json'])).json<{ password: string }>();
    expect(ok.password).toBe('weather-Secret_2026');
  });

  it('adds the user to a copy of the shipped config, keeping the other users, and refuses to add it twice', async () => {
    const conf = join(base, 'toolhub-auth.conf');
    copyFileSync(SHIPPED, conf);
    const before = readFileSync(conf, 'utf8');
    const r = await cli(['nats', 'add-provider', 'weather', '--conf', conf, '--json']);
    expect(r.code).toBe(0);
    const after = readFileSync(conf, 'utf8');
    const { entry } = r.json<{ entry: string }>();
    expect(after).toContain(`,\n${entry}\n  ]\n}`);
    expect(after.replace(`,\n${entry}`, '')).toBe(before);
    const again = await cli(['nats', 'add-provider', 'weather', '--conf', conf]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already has a user "adapter_weather"');
    expect(readFileSync(conf, 'utf8')).toBe(after);
  });

  it('refuses a bad provider name and a config without a users list, changing nothing', async () => {
    const bad = await cli(['nats', 'add-provider', 'Bad Name']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('Provider name "Bad Name" must match');
    const missing = await cli(['nats', 'add-provider', 'weather', '--conf', join(base, 'nope.conf')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no such file');
  });
});
