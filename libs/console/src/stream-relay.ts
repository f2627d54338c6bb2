/**
 * Relays a server-streaming RPC (WatchRun, RunToolStream) to the browser as Server-Sent Events on
 * the POST that asked for it, so the stream keeps the JSON layer's origin and CSRF checks (the page
 * reads it with fetch; EventSource cannot POST or send the CSRF header).
 *
 * An error before the first message is answered as the usual JSON error with its HTTP status, so
 * a wrong run id reads like any other failed call. Afterwards each message is one `data:` event
 * (proto JSON), an error is an `event: error` with the same JSON error body, and the stream always
 * closes with `event: end`. The gRPC call is cancelled when the page goes away.
 */
import type { ServerResponse } from 'node:http';

import type { JsonAnswer, StreamHandlers } from './grpc-bridge';

/** A comment line every this often keeps proxies from closing a quiet stream. */
const HEARTBEAT_MS = 15_000;

export type OpenStream = (on: StreamHandlers) => { error: JsonAnswer } | { cancel(): void };

/**
 * Opens the stream and writes it to `res`; `sendJson` answers a JSON error instead when it fails
 * before its first message. Resolves when the response is finished.
 */
export function relayStream(res: ServerResponse, open: OpenStream, sendJson: (answer: JsonAnswer) => void): Promise<void> {
  return new Promise((resolve) => {
    let started = false;
    let finished = false;
    let heartbeat: NodeJS.Timeout | undefined;
    const call: { cancel?: () => void } = {};
    // The page closed or navigated away: stop the gRPC call (WatchRun holds a watcher on the dispatcher).
    const gone = () => {
      if (finished) return;
      call.cancel?.();
      finish();
    };
    const start = () => {
      if (started) return;
      started = true;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        // nginx (an Ingress) would otherwise hold events back in its buffer.
        'x-accel-buffering': 'no',
      });
      heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      clearInterval(heartbeat);
      res.off('close', gone);
      resolve();
    };
    const opened = open({
      message(json) {
        if (finished) return;
        start();
        res.write(`data: ${JSON.stringify(json)}\n\n`);
      },
      end(error) {
        if (finished) return;
        if (!started && error) {
          sendJson(error);
          return finish();
        }
        start();
        if (error) res.write(`event: error\ndata: ${JSON.stringify(error.body)}\n\n`);
        res.end('event: end\ndata: {}\n\n');
        finish();
      },
    });
    if ('error' in opened) {
      sendJson(opened.error);
      return finish();
    }
    call.cancel = opened.cancel;
    if (!finished) res.on('close', gone);
  });
}
