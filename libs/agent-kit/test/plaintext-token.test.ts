/** A credential is not sent in plaintext off this machine unless the caller says so. */
import { AgentKitError, clientOptionsFromEnv, isLoopbackHost, targetHost, ToolHubAgentClient } from '../src/index';

describe('plaintext token guard', () => {
  it.each([
    ['127.0.0.1:50051', '127.0.0.1'],
    ['localhost:50051', 'localhost'],
    ['toolhub.prod.svc:443', 'toolhub.prod.svc'],
    ['dns:///toolhub.example.com:50051', 'toolhub.example.com'],
    ['dns://8.8.8.8/toolhub.example.com:50051', 'toolhub.example.com'],
    ['ipv4:10.0.0.7:50051', '10.0.0.7'],
    ['[::1]:50051', '::1'],
    ['ipv6:[2001:db8::7]:50051', '2001:db8::7'],
    ['unix:/run/toolhub.sock', undefined],
  ])('targetHost(%s) is %s', (address, host) => {
    expect(targetHost(address)).toBe(host);
  });

  it.each([
    ['localhost', true],
    ['api.localhost', true],
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    [undefined, true],
    ['10.0.0.7', false],
    ['128.0.0.1', false],
    ['toolhub.example.com', false],
    ['localhost.example.com', false],
    ['2001:db8::1', false],
  ])('isLoopbackHost(%s) is %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });

  it('connect() refuses a token over plaintext to another machine, naming the fixes', async () => {
    const err = await ToolHubAgentClient.connect('toolhub.example.com:50051', { token: 'k-0123456789' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentKitError);
    expect(err).toMatchObject({ code: 'invalid_options' });
    expect((err as Error).message).toMatch(/plaintext to toolhub\.example\.com.*tls: true.*allowPlaintextToken: true.*TOOLHUB_ALLOW_PLAINTEXT_TOKEN=1/s);
    expect((err as Error).message).not.toContain('k-0123456789');
  });

  it('connect() allows the token with TLS, on loopback, with the opt-out, and without a token', async () => {
    const clients = await Promise.all([
      ToolHubAgentClient.connect('toolhub.example.com:50051', { token: 'k', tls: true }),
      ToolHubAgentClient.connect('127.0.0.1:50051', { token: 'k' }),
      ToolHubAgentClient.connect('toolhub.example.com:50051', { token: 'k', allowPlaintextToken: true }),
      ToolHubAgentClient.connect('toolhub.example.com:50051', {}),
    ]);
    for (const c of clients) c.close();
    expect(clients).toHaveLength(4);
  });

  it('TOOLHUB_ALLOW_PLAINTEXT_TOKEN=1 turns the opt-out on through clientOptionsFromEnv', () => {
    expect(clientOptionsFromEnv({ TOOLHUB_TOKEN: 'k', TOOLHUB_ALLOW_PLAINTEXT_TOKEN: '1' })).toEqual({ token: 'k', allowPlaintextToken: true });
    expect(clientOptionsFromEnv({ TOOLHUB_TOKEN: 'k' })).toEqual({ token: 'k' });
  });
});
