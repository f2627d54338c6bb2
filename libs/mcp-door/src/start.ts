/** Starts the MCP door from app settings: what the dispatcher app and the one-process mode share. */
import type { AuthSettings } from '@toolhub/auth';
import type { Registry } from 'prom-client';

import { mcpAuthenticator, mcpResourceUrl } from './auth';
import type { DoorBackend } from './backend';
import { McpDoor } from './http-door';
import { registerMcpMetrics } from './metrics';
import { ENVELOPE_NODES, mcpOptionsFrom, type McpSettings } from './options';

export interface RunningMcpDoor {
  readonly door: McpDoor;
  /** e.g. `http://127.0.0.1:50055/mcp` */
  readonly address: string;
  registerMetrics(registry: Registry): void;
  close(): Promise<void>;
}

/**
 * The door on `backend` (the dispatcher), or undefined when TOOLHUB_MCP_DOOR is off.
 * @throws ToolHubError failed_precondition for a non-loopback TOOLHUB_MCP_HOST without auth
 */
export async function startMcpDoor(
  backend: DoorBackend,
  settings: AuthSettings & McpSettings & { maxArgumentNodes?: number },
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void },
): Promise<RunningMcpDoor | undefined> {
  if (!settings.mcpDoor) return undefined;
  const authenticator = mcpAuthenticator(settings);
  const door = await McpDoor.start(
    backend,
    {
      ...mcpOptionsFrom(settings),
      // The dispatcher's argument limit, counted on the body before it is parsed.
      ...(settings.maxArgumentNodes ? { maxBodyNodes: settings.maxArgumentNodes + ENVELOPE_NODES } : {}),
      resourceUrl: settings.mcpResourceUrl ?? (settings.mcpPort === 0 ? undefined : mcpResourceUrl(settings)), authorizationServers: settings.authJwtIssuer ? [settings.authJwtIssuer] : [] },
    { authenticator, logger: log, allowUnauthenticated: settings.allowUnauthenticated },
  );
  const sse = door.options.stateless ? '' : `; HTTP+SSE (older hosts) at ${door.sseAddress}`;
  log?.info({ address: door.address, sseAddress: door.sseAddress, view: door.options.view, stateless: door.options.stateless, auth: authenticator.methods }, `MCP door listening on ${door.address}${sse}`);
  return { door, address: door.address, registerMetrics: (r) => registerMcpMetrics(r, door), close: () => door.close() };
}
