/** Environment settings of the console, shared by the registry app and the one-process mode. */
import { zBoolean } from '@toolhub/config';
import { z } from 'zod';

import type { ConsoleApiTls } from './api-tls';

export function consoleConfigFields() {
  return {
    console: { env: 'TOOLHUB_CONSOLE', schema: zBoolean().default(true), description: 'Serve the operator console (web UI + JSON layer over the gRPC APIs)' },
    consoleHost: { env: 'TOOLHUB_CONSOLE_HOST', schema: z.string().min(1).default('127.0.0.1'), description: 'Interface of the operator console (0.0.0.0 in containers; needs auth then)' },
    consolePort: { env: 'TOOLHUB_CONSOLE_PORT', schema: z.coerce.number().int().min(0).max(65535).default(50056), description: 'Port of the operator console (HTTP)' },
    consoleAllowedHosts: {
      env: 'TOOLHUB_CONSOLE_ALLOWED_HOSTS',
      schema: z.string().optional(),
      description: 'Comma-separated host names the console answers to besides its own address (e.g. the Ingress host); default: loopback names on a loopback bind, any on another',
    },
    consoleApiCa: { env: 'TOOLHUB_CONSOLE_API_CA', schema: z.string().optional(), description: "CA (PEM) of the gRPC APIs' certificate, for the console's calls when they serve TLS; default: the system's roots" },
    consoleApiServerName: { env: 'TOOLHUB_CONSOLE_API_SERVER_NAME', schema: z.string().optional(), description: "Name the console checks in the APIs' certificate instead of the address it dials (e.g. the Service name)" },
    consoleApiCert: { env: 'TOOLHUB_CONSOLE_API_CERT', schema: z.string().optional(), description: 'Client certificate (PEM) the console presents when the APIs require mTLS (TOOLHUB_TLS_CLIENT_CA)' },
    consoleApiKey: { env: 'TOOLHUB_CONSOLE_API_KEY', schema: z.string().optional(), description: "Private key (PEM) of the console's client certificate", secret: true },
    consoleAgentUrl: {
      env: 'TOOLHUB_CONSOLE_AGENT_URL',
      schema: z.string().optional(),
      description: "host:port of the dispatcher's agent gRPC API, for the console's search playground, try-it and preload view (registry app; one-process mode uses its own)",
    },
  };
}

export interface ConsoleSettings {
  console: boolean;
  consoleHost: string;
  consolePort: number;
  consoleAllowedHosts?: string;
  consoleAgentUrl?: string;
  consoleApiCa?: string;
  consoleApiServerName?: string;
  consoleApiCert?: string;
  consoleApiKey?: string;
}

/** The console's TLS towards the APIs: on when they serve TLS (`apisUseTls`) or a CA is given. */
export function consoleApiTls(s: ConsoleSettings, apisUseTls: boolean): ConsoleApiTls {
  return { enabled: apisUseTls, caFile: s.consoleApiCa, serverName: s.consoleApiServerName, certFile: s.consoleApiCert, keyFile: s.consoleApiKey };
}
