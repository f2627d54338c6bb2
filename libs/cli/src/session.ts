/**
 * The connections of one CLI invocation, opened on first use (a command needing only the admin
 * API never dials the agent API) and closed when the command ends, so the process can exit.
 */
import { ToolHubAgentClient } from '@toolhub/agent-kit';

import { RegistryAdminApi } from './admin-client';
import { DEFAULT_TIMEOUT_MS, type Settings } from './settings';

/** Who calls, in RunToolRequest.caller and the statistics. */
export const CLI_CALLER = 'toolhub-cli';

/** Lazily opened clients for the agent and admin APIs. */
export class Session {
  private agentClient?: ToolHubAgentClient;
  private adminClient?: RegistryAdminApi;

  constructor(readonly settings: Settings) {}

  /** The agent API client (ToolHubAgentClient), connected on the first call. */
  async agent(): Promise<ToolHubAgentClient> {
    this.agentClient ??= await ToolHubAgentClient.connect(this.settings.address, {
      caller: CLI_CALLER,
      deadlineMs: this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      // One quick retry: a person is waiting, and a server that is down stays down for a while.
      retry: { maxAttempts: 2, initialBackoffMs: 100, maxBackoffMs: 500 },
      token: this.settings.token,
      tls: this.settings.tls ?? false,
      allowPlaintextToken: this.settings.allowPlaintextToken,
    });
    return this.agentClient;
  }

  /** The registry admin API client. */
  admin(): RegistryAdminApi {
    this.adminClient ??= new RegistryAdminApi(this.settings.adminAddress, this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS, { token: this.settings.token, tls: this.settings.tls, allowPlaintextToken: this.settings.allowPlaintextToken });
    return this.adminClient;
  }

  /** Closes whatever was opened. Idempotent. */
  close(): void {
    this.agentClient?.close();
    this.adminClient?.close();
  }
}
