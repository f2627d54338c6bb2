"""What both interop scripts share (interop.py over Streamable HTTP, sse_interop.py over HTTP+SSE)."""
import sys

import anyio


def text_of(result):
    return "\n".join(getattr(b, "text", "") or "" for b in result.content)


def list_changed_handler(event: anyio.Event):
    """A ClientSession message handler that sets `event` on notifications/tools/list_changed."""

    async def on_message(message):
        if "list_changed" in repr(message) or "ToolListChanged" in type(message).__name__:
            event.set()

    return on_message


def check(cond, what):
    if not cond:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)
    print(f"ok: {what}", flush=True)
