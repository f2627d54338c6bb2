/** When the harness runs MongoDB in a container (testcontainers) instead of FerretDB. */
import { containersWanted, startMongoContainer } from '../src';

describe('containersWanted', () => {
  it('follows TOOLHUB_TESTCONTAINERS when it is set', () => {
    expect(containersWanted({ TOOLHUB_TESTCONTAINERS: '1' }, false)).toBe(true);
    expect(containersWanted({ TOOLHUB_TESTCONTAINERS: 'true' }, false)).toBe(true);
    expect(containersWanted({ TOOLHUB_TESTCONTAINERS: '0', DOCKER_HOST: 'tcp://x:2375' }, true)).toBe(false);
  });

  it('otherwise uses containers when a Docker engine is configured or its socket exists', () => {
    expect(containersWanted({}, false)).toBe(false);
    expect(containersWanted({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' }, false)).toBe(true);
    expect(containersWanted({}, true)).toBe(true);
  });
});

describe('startMongoContainer without a Docker engine', () => {
  it('fails with an error that says how to do without Docker', async () => {
    const saved = process.env['DOCKER_HOST'];
    // A port nothing listens on: testcontainers cannot reach an engine there.
    process.env['DOCKER_HOST'] = 'tcp://127.0.0.1:9';
    try {
      await expect(startMongoContainer('mongo:7')).rejects.toThrow(/did not start: .*TOOLHUB_TESTCONTAINERS=0 to use FerretDB, or MONGO_URL/s);
    } finally {
      if (saved === undefined) delete process.env['DOCKER_HOST'];
      else process.env['DOCKER_HOST'] = saved;
    }
  }, 30_000);
});
