import { execFile } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** Runs the fixture in a real Node process (with tsx) against a fake OTLP/HTTP collector. */
describe('OTLP export', () => {
  it('sends finished spans to OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces when the service shuts down', async () => {
    const received: { url: string | undefined; type: string | undefined; body: string }[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ url: req.url, type: req.headers['content-type'], body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      await new Promise<void>((resolve, reject) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', join(__dirname, 'fixtures', 'otlp-child.ts')],
          { env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, timeout: 20_000 },
          (err) => (err ? reject(err) : resolve()),
        );
      });
      expect(received).toHaveLength(1);
      expect(received[0]?.url).toBe('/v1/traces');
      expect(received[0]?.type).toBe('application/json');
      const body = received[0]?.body ?? '';
      expect(body).toContain('"shipped"');
      expect(body).toContain('"otlp-child"');
      expect(body).toContain('"9.9.9"');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 30_000);
});
