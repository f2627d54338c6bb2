"""The Python `mcp` client (PyPI) over HTTP+SSE (2024-11-05, `sse_client`) against the door.

Env: DOOR_SSE_URL (…/sse), DOOR_KEY, TOOL_ID (provider:name of an echo tool taking `message`).
Loads the tool with tool_info (list_changed), calls it typed by its listed name.
Prints one line per step; exits non-zero on the first failure.
"""
import os

import anyio
from mcp.client.session import ClientSession
from mcp.client.sse import sse_client

from interop_support import check, list_changed_handler, text_of

URL = os.environ["DOOR_SSE_URL"]
KEY = os.environ["DOOR_KEY"]
TOOL_ID = os.environ["TOOL_ID"]
LISTED = TOOL_ID.replace(":", "__")
changed = anyio.Event()


async def main():
    async with sse_client(URL, headers={"authorization": f"Bearer {KEY}"}) as streams:
        async with ClientSession(streams[0], streams[1], message_handler=list_changed_handler(changed)) as s:
            init = await s.initialize()
            check(init.server_info.name == "toolhub" if hasattr(init, "server_info") else init.serverInfo.name == "toolhub", "initialized over HTTP+SSE")
            info = await s.call_tool("tool_info", {"name": TOOL_ID})
            check(TOOL_ID in text_of(info), f"tool_info {TOOL_ID}")
            with anyio.fail_after(20):
                await changed.wait()
            check(True, "notifications/tools/list_changed after tool_info")
            names = [t.name for t in (await s.list_tools()).tools]
            check(LISTED in names, f"tools/list holds {LISTED}")
            echo = await s.call_tool(LISTED, {"message": "hello from python over sse"})
            check("hello from python over sse" in text_of(echo), "typed call echoes the message")
    print("DONE", flush=True)


anyio.run(main)
