/**
 * The adapter replicas' heartbeat interval, one field every adapter app spreads into its own
 * `defineConfig`: a dispatcher forgets a replica silent for longer than its TOOLHUB_PROVIDER_TTL,
 * so each adapter must be able to beat faster than the TTL it is deployed with.
 */
import { zDuration } from '@toolhub/config';

/** Config field `heartbeatIntervalMs` (env TOOLHUB_HEARTBEAT_INTERVAL, default 5 s). */
export function heartbeatConfigFields() {
  return {
    heartbeatIntervalMs: {
      env: 'TOOLHUB_HEARTBEAT_INTERVAL',
      schema: zDuration({ min: '50ms', max: '5m' }).default(5000),
      description: 'How often this replica announces itself to dispatchers ("5s"); keep it well under their TOOLHUB_PROVIDER_TTL',
    },
  };
}
