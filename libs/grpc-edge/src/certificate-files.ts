/**
 * TLS certificates of a gRPC server from PEM files, re-read when they change, that never serve a
 * broken set. grpc-js's own FileWatcherCertificateProvider hands whatever it read to the server;
 * a rotation caught half-way (new certificate, old key) or a file missing for a moment makes
 * grpc-js refuse every new connection until the next read, a minute later. Here a new set is
 * checked first (the key matches the certificate, every PEM parses) and a bad one keeps the
 * certificates in force, reported through `onReloadError`; the next read picks up the finished
 * rotation.
 */
import type { experimental } from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';

type CaListener = experimental.CaCertificateUpdateListener;
type IdentityListener = experimental.IdentityCertificateUpdateListener;

/** Where the PEM files are and how closely they are watched. */
export interface CertificateFilesOptions {
  certFile: string;
  keyFile: string;
  /** CA of client certificates (mTLS). */
  caFile?: string;
  /** How often the files are read for changes. @default 60000 */
  refreshIntervalMs?: number;
  /** Told after new certificates were taken into use. @default no-op */
  onReload?: () => void;
  /** Told when changed files could not be used; the certificates in force stay. @default no-op */
  onReloadError?: (err: Error) => void;
}

interface Loaded {
  text: string;
  cert: Buffer;
  key: Buffer;
  ca?: Buffer;
}

/** A grpc-js certificate provider (identity and client CA) over PEM files. */
export class CertificateFiles implements experimental.CertificateProvider {
  private current: Loaded;
  private readonly caListeners = new Set<CaListener>();
  private readonly identityListeners = new Set<IdentityListener>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * Reads and checks the files now.
   * @throws Error naming the file that cannot be read (also as its `file` property), or saying the set does not fit together
   */
  constructor(private readonly options: CertificateFilesOptions) {
    this.current = this.read();
  }

  /** Reads the files now; true when a changed, valid set was taken into use. */
  reload(): boolean {
    let next: Loaded;
    try {
      next = this.read();
    } catch (err) {
      this.options.onReloadError?.(err as Error);
      return false;
    }
    if (next.text === this.current.text) return false;
    this.current = next;
    for (const l of this.identityListeners) l({ certificate: next.cert, privateKey: next.key });
    if (next.ca) for (const l of this.caListeners) l({ caCertificate: next.ca });
    this.options.onReload?.();
    return true;
  }

  addCaCertificateListener(listener: CaListener): void {
    this.caListeners.add(listener);
    const ca = this.current.ca;
    process.nextTick(() => listener(ca ? { caCertificate: ca } : null));
    this.watch();
  }

  removeCaCertificateListener(listener: CaListener): void {
    this.caListeners.delete(listener);
    this.unwatch();
  }

  addIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.add(listener);
    const { cert, key } = this.current;
    process.nextTick(() => listener({ certificate: cert, privateKey: key }));
    this.watch();
  }

  removeIdentityCertificateListener(listener: IdentityListener): void {
    this.identityListeners.delete(listener);
    this.unwatch();
  }

  private read(): Loaded {
    const { certFile, keyFile, caFile } = this.options;
    const file = (path: string): Buffer => {
      try {
        return readFileSync(path);
      } catch (err) {
        throw Object.assign(new Error(`cannot read TLS file ${path}: ${(err as Error).message}`, { cause: err }), { file: path });
      }
    };
    const cert = file(certFile);
    const key = file(keyFile);
    const ca = caFile ? file(caFile) : undefined;
    try {
      // Throws for a key that does not belong to the certificate and for PEM that does not parse.
      createSecureContext({ cert, key, ca });
    } catch (err) {
      throw new Error(`TLS files ${certFile}, ${keyFile}${caFile ? `, ${caFile}` : ''} do not fit together: ${(err as Error).message}`, { cause: err });
    }
    return { text: `${cert.toString('base64')}|${key.toString('base64')}|${ca?.toString('base64') ?? ''}`, cert, key, ca };
  }

  private watch(): void {
    if (this.timer) return;
    // Polling, not fs.watch: a Kubernetes Secret update swaps a symlink, which inotify watches miss.
    this.timer = setInterval(() => this.reload(), this.options.refreshIntervalMs ?? 60_000);
    this.timer.unref();
  }

  private unwatch(): void {
    if (this.caListeners.size > 0 || this.identityListeners.size > 0) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
