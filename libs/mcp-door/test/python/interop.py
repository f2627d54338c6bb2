"""The interop scenario through the Python `mcp` client (PyPI) over Streamable HTTP.

Env: DOOR_URL, DOOR_KEY. Prints one line per step; exits non-zero on the first failure.
"""
import os

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from interop_support import check, list_changed_handler, text_of

URL = os.environ["DOOR_URL"]
KEY = os.environ["DOOR_KEY"]
changed = anyio.Event()


def attr(obj, *names):
    for n in names:
        if hasattr(obj, n):
            return getattr(obj, n)
    return None


async def main():
    async with httpx2.AsyncClient(headers={"authorization": f"Bearer {KEY}"}) as http:
        async with streamable_http_client(URL, http_client=http) as streams:
            async with ClientSession(streams[0], streams[1], message_handler=list_changed_handler(changed)) as s:
                await s.initialize()
                found = ""
                for _ in range(50):
                    found = text_of(await s.call_tool("tool_search", {"queries": ["add two numbers"]}))
                    if "local:add_numbers" in found:
                        break
                    await anyio.sleep(0.2)
                check("local:add_numbers" in found, "tool_search finds local:add_numbers")
                await s.call_tool("tool_info", {"name": "local:add_numbers"})
                with anyio.fail_after(20):
                    await changed.wait()
                check(True, "notifications/tools/list_changed after tool_info")
                names = [t.name for t in (await s.list_tools()).tools]
                check("local__add_numbers" in names, "tools/list holds local__add_numbers")
                typed = await s.call_tool("local__add_numbers", {"a": 20, "b": 22})
                check(attr(typed, "structured_content", "structuredContent") == {"sum": 42}, "typed call returns structured {sum: 42}")
                hidden = await s.call_tool("tool_run", {"name": "local:launch_codes", "arguments": {}})
                check(attr(hidden, "is_error", "isError") is True and text_of(hidden).startswith("error not_found"), "hidden tool refused")
                try:
                    await s.call_tool("tool_run", {"name": "local:slow_wait", "arguments": {}}, read_timeout_seconds=1.5)
                    check(False, "slow call cancelled")
                except Exception as err:  # the SDK raises on its timeout and sends notifications/cancelled
                    print(f"ok: slow call abandoned ({type(err).__name__}); cancelled sent", flush=True)
    print("DONE", flush=True)


anyio.run(main)
