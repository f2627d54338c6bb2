/**
 * How the console reaches ToolHub's gRPC APIs when they serve TLS: the console is a client like
 * grpcurl or the CLI, so it verifies the APIs' certificate (a CA bundle, else the system's roots),
 * may check another name than the address it dials (a certificate issued for the Service name,
 * dialled on 127.0.0.1), and presents a client certificate where the APIs require mTLS.
 */
import { type ChannelCredentials, type ChannelOptions, credentials } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';

import { ConsoleError } from './errors';

/** The console's TLS settings towards the APIs (TOOLHUB_CONSOLE_API_*). */
export interface ConsoleApiTls {
  /** The APIs serve TLS (TOOLHUB_TLS_CERT is set), or a CA was given. */
  enabled: boolean;
  /** PEM file of the CA(s) that signed the APIs' certificate. @default the system's roots */
  caFile?: string;
  /** Name to check in the certificate instead of the dialled host. */
  serverName?: string;
  /** Client certificate and key (PEM) when the APIs require one (TOOLHUB_TLS_CLIENT_CA). */
  certFile?: string;
  keyFile?: string;
}

/**
 * Channel credentials and options for the bridge; undefined for plaintext (no TLS on the APIs).
 * @throws ConsoleError failed_precondition when a file cannot be read or only one of cert/key is given.
 */
export function apiChannel(tls: ConsoleApiTls): { channelCredentials: ChannelCredentials; channelOptions: ChannelOptions } | undefined {
  if (!tls.enabled && !tls.caFile) return undefined;
  if (Boolean(tls.certFile) !== Boolean(tls.keyFile)) {
    throw new ConsoleError('failed_precondition', 'The console needs both TOOLHUB_CONSOLE_API_CERT and TOOLHUB_CONSOLE_API_KEY to present a client certificate (or neither).');
  }
  const read = (file: string | undefined, what: string) => {
    if (!file) return null;
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ConsoleError('failed_precondition', `The console cannot read ${what} ${file}: ${(err as Error).message}.`);
    }
  };
  return {
    channelCredentials: credentials.createSsl(read(tls.caFile, 'the APIs’ CA (TOOLHUB_CONSOLE_API_CA)'), read(tls.keyFile, 'its client key (TOOLHUB_CONSOLE_API_KEY)'), read(tls.certFile, 'its client certificate (TOOLHUB_CONSOLE_API_CERT)')),
    channelOptions: tls.serverName ? { 'grpc.ssl_target_name_override': tls.serverName, 'grpc.default_authority': tls.serverName } : {},
  };
}
