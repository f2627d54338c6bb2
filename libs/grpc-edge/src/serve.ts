/** Binding and graceful shutdown shared by ToolHub's gRPC servers. */
import { experimental, type Server, ServerCredentials } from '@grpc/grpc-js';
import { ToolHubError } from '@toolhub/contracts';
import type { HealthImplementation } from 'grpc-health-check';

import { CertificateFiles } from './certificate-files';

/** TLS for a gRPC server, from PEM files that are re-read when they change (certificate rotation). */
export interface ServerTlsOptions {
  certFile: string;
  keyFile: string;
  /**
   * CA of client certificates. When set, every client must present a certificate signed by it
   * (mTLS); its subject CN can then be a principal (TOOLHUB_AUTH_MTLS_SUBJECTS).
   */
  clientCaFile?: string;
  /** How often the files are checked for changes. @default 60000 */
  refreshIntervalMs?: number;
  /** Told after changed certificates were taken into use (new handshakes get them). @default no-op */
  onReload?: () => void;
  /**
   * Told when changed files cannot be used (unreadable, or a key that does not match the
   * certificate: a rotation caught half-way); the certificates in force stay. @default no-op
   */
  onReloadError?: (err: Error) => void;
}

/**
 * Server credentials: insecure without `tls`; otherwise TLS whose certificates reload from disk
 * ({@link CertificateFiles}: a changed set is used only once it fits together).
 * `ready` resolves once grpc-js has the certificates (it takes them asynchronously, and a
 * handshake before that would be dropped).
 * @throws ToolHubError invalid_argument naming a file that cannot be read or a set that does not fit together
 */
export function serverCredentials(tls?: ServerTlsOptions): { credentials: ServerCredentials; ready: Promise<void> } {
  if (!tls) return { credentials: ServerCredentials.createInsecure(), ready: Promise.resolve() };
  let files: CertificateFiles;
  try {
    files = new CertificateFiles({
      certFile: tls.certFile,
      keyFile: tls.keyFile,
      caFile: tls.clientCaFile,
      refreshIntervalMs: tls.refreshIntervalMs,
      onReload: tls.onReload,
      onReloadError: tls.onReloadError,
    });
  } catch (err) {
    // The file that cannot be read, or (for a set that does not fit together) the certificate.
    throw ToolHubError.invalidArgument((err as Error).message, [{ field: (err as { file?: string }).file ?? tls.certFile, message: 'unusable' }]);
  }
  const ca = tls.clientCaFile ? files : null;
  const loaded = (add: (l: (u: unknown) => void) => void, remove: (l: (u: unknown) => void) => void) =>
    new Promise<void>((resolve) => {
      const listener = (u: unknown) => {
        if (u) {
          remove(listener);
          resolve();
        }
      };
      add(listener);
    });
  const ready = Promise.all([
    loaded((l) => files.addIdentityCertificateListener(l), (l) => files.removeIdentityCertificateListener(l)),
    ca ? loaded((l) => ca.addCaCertificateListener(l), (l) => ca.removeCaCertificateListener(l)) : undefined,
  ]).then(() => undefined);
  // grpc-js names the parameters (ca, identity) but hands them on as (identity, ca): identity goes first.
  return { credentials: experimental.createCertificateProviderServerCredentials(files, ca, ca !== null), ready };
}

/** True for addresses only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/**
 * Fail closed: a server reachable from other machines must check credentials. Throws, naming the
 * settings to use, when `host` is not loopback and auth is off (unless `allowInsecure`, for a
 * service mesh that authenticates in front of ToolHub).
 */
export function assertSafeBind(service: string, host: string, authEnabled: boolean, allowInsecure = false): void {
  if (authEnabled || allowInsecure || isLoopbackHost(host)) return;
  throw new ToolHubError(
    'failed_precondition',
    `${service} refuses to listen on ${host} without authentication: anyone who reaches that address could use it. ` +
      'Set TOOLHUB_AUTH_API_KEYS (a key file or Secret directory), or TOOLHUB_AUTH_JWT_ISSUER + TOOLHUB_AUTH_JWT_AUDIENCE + TOOLHUB_AUTH_JWT_JWKS, ' +
      'or TOOLHUB_AUTH_MTLS_SUBJECTS with TOOLHUB_TLS_CLIENT_CA; or listen on 127.0.0.1 (local mode); or, only behind a proxy that authenticates, TOOLHUB_ALLOW_UNAUTHENTICATED=1.',
  );
}

/** Binds `server` to `host:port` (0 = any free port) with `tls` when given, and resolves with the bound port. */
export async function bindServer(server: Server, host: string, port: number, tls?: ServerTlsOptions): Promise<number> {
  const { credentials, ready } = serverCredentials(tls);
  const bound = await new Promise<number>((resolve, reject) => server.bindAsync(`${host}:${port}`, credentials, (err, p) => (err ? reject(err) : resolve(p))));
  await ready;
  return bound;
}

/**
 * Stops a server the way SIGTERM should: health turns NOT_SERVING (so load balancers drain it),
 * new calls are refused, in-flight calls get `graceMs` to finish, then the rest are cut.
 */
export function closeServer(server: Server, health: HealthImplementation, services: string[], graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const s of ['', ...services]) health.setStatus(s, 'NOT_SERVING');
    const force = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(force);
      resolve();
    });
  });
}
