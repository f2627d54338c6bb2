/**
 * The operator console's HTTP server: the built browser bundle, sign-in, and the JSON layer
 * `POST /api/<service>/<Method>` over ToolHub's gRPC APIs (see grpc-bridge.ts); server-streaming
 * RPCs (WatchRun) answer as Server-Sent Events (stream-relay.ts).
 *
 * Protections: a strict Content-Security-Policy (scripts and styles from this origin only), the
 * Host header checked against the names this server answers to (DNS rebinding), every POST checked
 * for a same-origin `Origin` and, once signed in, for the session's CSRF token; the credential stays
 * on the server.
 */
import { type Authenticator } from '@toolhub/auth';
import { ToolHubError } from '@toolhub/contracts';
import { assertSafeBind, isLoopbackHost } from '@toolhub/grpc-edge';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { ConsoleError } from './errors';
import { errorBody, GrpcBridge, type GrpcBridgeOptions, type JsonAnswer } from './grpc-bridge';
import { type ConsoleSession, sameToken, SessionStore, type SessionStoreOptions } from './sessions';
import { serveStatic } from './static-files';
import { relayStream } from './stream-relay';
import { ensureUiBundle } from './ui-bundle';

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
const COOKIE = 'toolhub_console';
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** Live streams one session may hold open (a run page holds one). */
const MAX_STREAMS_PER_SESSION = 8;

export interface ConsoleLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ConsoleServerOptions extends GrpcBridgeOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 50056 */
  port?: number;
  /**
   * The same authenticator the gRPC APIs use: tells local mode (disabled: the console opens without
   * sign-in) from signed-in mode, and names who signed in. The gRPC APIs still check every call.
   * @default local mode
   */
  authenticator?: Authenticator;
  /** Serve a non-loopback host without auth (only behind a proxy that authenticates). @default false */
  allowUnauthenticated?: boolean;
  /**
   * Host names (with or without port) the console answers to besides the address it listens on.
   * @default loopback names on a loopback bind; any name on another bind (auth is required there)
   */
  allowedHosts?: readonly string[];
  sessions?: SessionStoreOptions;
  /** Directory of the built bundle. @default found or built by ensureUiBundle */
  uiDir?: string;
  logger?: ConsoleLogger;
}

export interface RunningConsole {
  readonly port: number;
  readonly url: string;
  /** Milliseconds spent building the browser bundle at start (0 when it was already built). */
  readonly uiBuiltMs: number;
  close(): Promise<void>;
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function send(res: ServerResponse, answer: JsonAnswer, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(body);
}

function consoleError(code: ConstructorParameters<typeof ConsoleError>[0], grpc: number, message: string): JsonAnswer {
  return errorBody(grpc, new ConsoleError(code, message).toToolHubError());
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw ToolHubError.invalidArgument(`The request body is over ${MAX_BODY_BYTES} bytes.`, [{ field: '/', message: 'too large' }]);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw ToolHubError.invalidArgument(`The request body is not JSON: ${(err as Error).message}.`, [{ field: '/', message: 'not JSON' }]);
  }
}

/** Starts the console; resolves once it listens. @throws ToolHubError failed_precondition for an unsafe bind. */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<RunningConsole> {
  const host = options.host ?? '127.0.0.1';
  const authEnabled = options.authenticator?.enabled ?? false;
  assertSafeBind('The operator console', host, authEnabled, options.allowUnauthenticated);
  const bundle = options.uiDir ? { dir: options.uiDir, builtMs: 0, problem: undefined } : ensureUiBundle();
  if (!bundle.dir) options.logger?.warn({ problem: bundle.problem }, 'console bundle missing: the console API works, its pages do not');
  const bridge = new GrpcBridge(options);
  const sessions = new SessionStore(options.sessions);
  /** Live streams (WatchRun) per session. */
  const openStreams = new Map<string, number>();
  let port = options.port ?? 50056;
  const loopbackBind = isLoopbackHost(host);
  const allowedHosts = new Set((options.allowedHosts ?? []).map((h) => h.toLowerCase()));

  const hostAllowed = (req: IncomingMessage): boolean => {
    const h = (req.headers.host ?? '').toLowerCase();
    if (allowedHosts.has(h) || allowedHosts.has(h.replace(/:\d+$/, ''))) return true;
    if (!loopbackBind) return allowedHosts.size === 0;
    // Loopback: only loopback names, so a page on another site cannot reach it through DNS rebinding.
    return isLoopbackHost(h.replace(/:\d+$/, ''));
  };
  const sameOrigin = (req: IncomingMessage): boolean => {
    const origin = req.headers.origin;
    if (!origin) return req.headers['sec-fetch-site'] === 'same-origin';
    try {
      return new URL(origin).host.toLowerCase() === (req.headers.host ?? '').toLowerCase();
    } catch {
      return false;
    }
  };
  const cookieHeader = (req: IncomingMessage, value: string, maxAgeS: number) =>
    `${COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : ''}`;
  const sessionView = (s: ConsoleSession) => ({ signedIn: true, localMode: !authEnabled, principal: s.principal, roles: s.roles, csrfToken: s.csrfToken });

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = (await readJson(req)) as { credential?: unknown };
    const credential = typeof body.credential === 'string' ? body.credential.trim() : '';
    if (!authEnabled) {
      const s = sessions.create(undefined, 'local', ['admin']);
      return send(res, { status: 200, body: sessionView(s) }, { 'set-cookie': cookieHeader(req, s.id, 43_200) });
    }
    if (!credential) return send(res, consoleError('invalid_argument', GrpcStatus.INVALID_ARGUMENT, 'Paste an API key or a bearer token (JWT) of an operator or admin.'));
    // The registry decides: RegistryAdmin needs the operator or admin role, as for every other client.
    const check = await bridge.call('toolhub.v1.RegistryAdmin', 'GetRegistryStatus', {}, credential, randomUUID());
    if (check.status !== 200) return send(res, check);
    let principal = 'signed in';
    let roles: readonly string[] = [];
    try {
      const p = await options.authenticator!.authenticate({ authorization: `Bearer ${credential}` });
      principal = p.id;
      roles = p.roles;
    } catch {
      // The registry accepted it; a name for display is not worth refusing the sign-in over.
    }
    const s = sessions.create(credential, principal, roles);
    options.logger?.info({ principal }, 'console sign-in');
    send(res, { status: 200, body: sessionView(s) }, { 'set-cookie': cookieHeader(req, s.id, 43_200) });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('content-security-policy', CONTENT_SECURITY_POLICY);
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    res.setHeader('x-frame-options', 'DENY');
    res.setHeader('cross-origin-opener-policy', 'same-origin');
    res.setHeader('cross-origin-resource-policy', 'same-origin');
    if (!hostAllowed(req)) return send(res, consoleError('permission_denied', GrpcStatus.PERMISSION_DENIED, `Host ${req.headers.host ?? '(none)'} is not a name this console answers to; set TOOLHUB_CONSOLE_ALLOWED_HOSTS.`));
    const url = new URL(req.url ?? '/', 'http://console');
    const path = url.pathname;
    if (req.method === 'GET' && path === '/healthz') return send(res, { status: 200, body: { ok: true } });
    if (!path.startsWith('/api/')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, consoleError('invalid_argument', GrpcStatus.INVALID_ARGUMENT, `${req.method} is not served here.`));
      return serveStatic(res, bundle.dir, path, bundle.problem);
    }
    const session = sessions.get(cookieOf(req, COOKIE));
    if (req.method === 'GET' && path === '/api/session') {
      if (session) return send(res, { status: 200, body: sessionView(session) });
      if (!authEnabled) {
        // Local mode opens without sign-in, as the gRPC APIs do on loopback.
        const s = sessions.create(undefined, 'local', ['admin']);
        return send(res, { status: 200, body: sessionView(s) }, { 'set-cookie': cookieHeader(req, s.id, 43_200) });
      }
      return send(res, { status: 200, body: { signedIn: false, localMode: false } });
    }
    if (req.method !== 'POST') return send(res, consoleError('invalid_argument', GrpcStatus.INVALID_ARGUMENT, `Use POST for ${path}.`));
    // Every POST must come from a page of this console (fetch always sends Origin on POST).
    if (!sameOrigin(req)) return send(res, consoleError('permission_denied', GrpcStatus.PERMISSION_DENIED, 'Cross-origin request refused: the console API answers only its own pages.'));
    if (path === '/api/session') return signIn(req, res);
    if (!session) return send(res, consoleError('unauthenticated', GrpcStatus.UNAUTHENTICATED, 'Not signed in (or the session expired): sign in with an API key or bearer token of an operator or admin.'));
    const csrf = req.headers['x-csrf-token'];
    if (!sameToken(typeof csrf === 'string' ? csrf : undefined, session.csrfToken)) {
      return send(res, consoleError('permission_denied', GrpcStatus.PERMISSION_DENIED, 'Missing or wrong x-csrf-token header: reload the console page.'));
    }
    if (path === '/api/session/end') {
      sessions.delete(session.id);
      return send(res, { status: 200, body: { signedIn: false } }, { 'set-cookie': cookieHeader(req, '', 0) });
    }
    const m = path.match(/^\/api\/([A-Za-z0-9_.]+)\/([A-Za-z0-9_]+)$/);
    if (!m) return send(res, consoleError('not_found', GrpcStatus.NOT_FOUND, `${path} is not an API path; use /api/toolhub.v1.RegistryAdmin/<Method> or /api/toolhub.v1.ToolHub/<Method>.`));
    const body = await readJson(req);
    if (bridge.isStream(m[1]!, m[2]!)) {
      // WatchRun (and RunToolStream) as Server-Sent Events; a page cannot hold more than a few open.
      const open = openStreams.get(session.id) ?? 0;
      if (open >= MAX_STREAMS_PER_SESSION) {
        return send(res, consoleError('rate_limited', GrpcStatus.RESOURCE_EXHAUSTED, `This session already has ${open} live streams open (at most ${MAX_STREAMS_PER_SESSION}); close other run pages of this console, then reload.`));
      }
      openStreams.set(session.id, open + 1);
      try {
        return await relayStream(res, (on) => bridge.openStream(m[1]!, m[2]!, body, session.credential, randomUUID(), on), (answer) => send(res, answer));
      } finally {
        const left = (openStreams.get(session.id) ?? 1) - 1;
        if (left > 0) openStreams.set(session.id, left);
        else openStreams.delete(session.id);
      }
    }
    send(res, await bridge.call(m[1]!, m[2]!, body, session.credential, randomUUID()));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      const e = err instanceof ToolHubError ? err : ToolHubError.internal(`The console failed to answer: ${(err as Error).message}`);
      if (!res.headersSent) send(res, errorBody(e.grpcStatus, e));
      else res.destroy();
    });
  });
  server.headersTimeout = 20_000;
  server.requestTimeout = 120_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolveListen());
  });
  port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    port,
    url: `http://${shownHost}:${port}/`,
    uiBuiltMs: bundle.builtMs,
    close: () =>
      new Promise<void>((resolveClose) => {
        bridge.close();
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}
