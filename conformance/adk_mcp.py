"""Checks that Evalstudio records an MCP tool's result exactly as ADK 2.13 does.

ADK's McpTool records the whole CallToolResult as the function response, dumped by
`_dump_mcp_model` (camelCase wire names, `_meta` as `meta`, no `resultType`). For a set of
calls to the official reference server (@modelcontextprotocol/server-everything, over stdio),
this calls each tool with the Python SDK and dumps it as ADK does, calls it through
`evalstudio mcp call`, and compares the two JSON texts: values and key order.

Usage: python adk_mcp.py EVALSTUDIO_BIN SERVER_EVERYTHING_BIN
"""

import asyncio
import base64
import json
import pathlib
import re
import subprocess
import sys
import tempfile

from google.adk.tools.mcp_tool.mcp_tool import _dump_mcp_model
from mcp import Client, StdioServerParameters

CALLS = [
    ("echo", {"message": "héllo 🌤️"}),
    ("get-sum", {"a": 2, "b": 3.25}),
    ("get-tiny-image", {}),
    ("get-structured-content", {"location": "Chicago"}),
    ("get-annotated-message", {"messageType": "error", "includeImage": True}),
    ("get-annotated-message", {"messageType": "debug", "includeImage": False}),
    ("get-resource-links", {"count": 2}),
    ("get-resource-reference", {"resourceType": "Blob", "resourceId": 2}),
    ("get-resource-reference", {"resourceType": "Text", "resourceId": 3}),
]


# The reference server writes the time into its dynamic resources; two calls a second apart differ.
CLOCK = re.compile(r"\d{1,2}:\d\d:\d\d [AP]M")


def without_clock(response: dict) -> str:
    """The response's JSON text with clock times blanked, blobs decoded to blank them too."""
    for block in response.get("content", []):
        resource = block.get("resource", {})
        if "blob" in resource:
            resource["blob"] = CLOCK.sub("T", base64.b64decode(resource["blob"]).decode())
    return CLOCK.sub("T", json.dumps(response))


def adk_response(result) -> dict:
    """What McpTool.run_async returns for `result`."""
    dumped = _dump_mcp_model(result)
    dumped.pop("resultType", None)
    return dumped


async def adk_responses(server_bin: str) -> list:
    params = StdioServerParameters(command=server_bin, args=["stdio"])
    async with Client(params) as client:
        return [adk_response(await client.call_tool(name, args)) for name, args in CALLS]


def evalstudio_response(bin_path: str, config: pathlib.Path, name: str, args: dict) -> dict:
    out = subprocess.run(
        [bin_path, "mcp", "--profiles", str(config), "call", "everything", name, json.dumps(args)],
        capture_output=True, text=True, check=True,
    )
    return json.loads(out.stdout)


def main() -> int:
    bin_path, server_bin = sys.argv[1], sys.argv[2]
    expected = asyncio.run(adk_responses(server_bin))
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        config = pathlib.Path(tmp) / "evalstudio.toml"
        config.write_text(
            f'[[mcp_servers]]\nname = "everything"\ncommand = {json.dumps(server_bin)}\nargs = ["stdio"]\n'
        )
        for (name, args), adk in zip(CALLS, expected):
            ours = evalstudio_response(bin_path, config, name, args)
            if without_clock(ours) != without_clock(adk):
                failures += 1
                print(f"MISMATCH {name} {json.dumps(args)}\n  adk:        {json.dumps(adk)[:600]}\n"
                      f"  evalstudio: {json.dumps(ours)[:600]}")
    print(f"MCP results as ADK records them: {len(CALLS) - failures}/{len(CALLS)} identical")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
