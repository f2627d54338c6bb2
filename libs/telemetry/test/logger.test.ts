import { Writable } from 'node:stream';
import { createLogger, getTracer, REDACTED, withSpan, type LoggerOptions } from '@toolhub/telemetry';
import { setupTestTracing, type TestTracing } from '@toolhub/telemetry/testing';

/** A logger writing into an array of parsed JSON lines. */
function capture(options: Partial<LoggerOptions> = {}) {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const logger = createLogger({ name: 'test', env: {}, destination, ...options });
  return { logger, lines };
}

describe('createLogger', () => {
  let tracing: TestTracing;
  beforeAll(() => {
    tracing = setupTestTracing();
  });
  afterAll(() => tracing.shutdown());

  it('writes JSON lines with level, time, name and message', () => {
    const { logger, lines } = capture();
    logger.info({ tool: 'file_read' }, 'ran');
    expect(lines[0]).toMatchObject({ level: 'info', name: 'test', tool: 'file_read', msg: 'ran' });
    expect(new Date(lines[0]?.['time'] as string).toString()).not.toBe('Invalid Date');
  });

  it('adds the trace id and span id of the active span to each line', () => {
    const { logger, lines } = capture();
    const span = withSpan(getTracer('logger-test'), 'work', {}, (s) => {
      logger.info('inside');
      logger.child({ step: 2 }).warn('child inside');
      return s;
    });
    logger.info('outside');
    const { traceId, spanId } = span.spanContext();
    expect(lines[0]).toMatchObject({ trace_id: traceId, span_id: spanId, trace_flags: '01' });
    expect(lines[1]).toMatchObject({ trace_id: traceId, span_id: spanId, step: 2 });
    expect(lines[2]).not.toHaveProperty('trace_id');
  });

  it('redacts secrets at the top level, one level down and in headers', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        authorization: 'Bearer abc',
        password: 'hunter2',
        apiKey: 'k-123',
        env: { AWS_SECRET_ACCESS_KEY: 'x' },
        headers: { authorization: 'Bearer abc', 'x-api-key': 'k', accept: 'json' },
        request: { token: 't', headers: { authorization: 'Basic z' }, tool: 'search' },
      },
      'call',
    );
    expect(lines[0]).toMatchObject({
      authorization: REDACTED,
      password: REDACTED,
      apiKey: REDACTED,
      env: REDACTED,
      headers: { authorization: REDACTED, 'x-api-key': REDACTED, accept: 'json' },
      request: { token: REDACTED, headers: { authorization: REDACTED }, tool: 'search' },
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/hunter2|abc|k-123|Basic z/);
  });

  it('redacts extra paths the caller names', () => {
    const { logger, lines } = capture({ redact: ['connection.dsn'] });
    logger.info({ connection: { dsn: 'mongodb://u:p@h', db: 'toolhub' } });
    expect(lines[0]).toMatchObject({ connection: { dsn: REDACTED, db: 'toolhub' } });
  });

  it('takes the level from LOG_LEVEL unless the option sets it', () => {
    const fromEnv = capture({ env: { LOG_LEVEL: 'WARN' } });
    fromEnv.logger.info('dropped');
    fromEnv.logger.warn('kept');
    expect(fromEnv.lines.map((l) => l['msg'])).toEqual(['kept']);

    const explicit = capture({ env: { LOG_LEVEL: 'warn' }, level: 'debug' });
    explicit.logger.debug('kept');
    expect(explicit.lines).toHaveLength(1);

    expect(capture().logger.level).toBe('info');
  });

  it('rejects an unknown level naming where it came from', () => {
    expect(() => capture({ env: { LOG_LEVEL: 'verbose' } })).toThrow(/LOG_LEVEL="verbose" is not a log level/);
    expect(() => capture({ level: 'loud' as never })).toThrow(
      expect.objectContaining({ name: 'TelemetryError', code: 'invalid_option' }),
    );
  });
});
