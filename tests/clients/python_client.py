"""Drives outl with the official MCP Python SDK and checks what a host would see.

Each connection runs on a fresh copy of examples/demo:

- stdio, initialize handshake: `outl mcp` spawned by the SDK's own stdio client;
- stdio, 2026-07-28: the same, with `server/discover` and per-request `_meta` instead;
- Streamable HTTP, initialize handshake: `outl serve` on a free port.

Then the reading-list server of examples/bookmarks over stdio, another server on the same
registry runtime: its tools listed and called as a host would.

Prints one PASS/FAIL line per check and ends with `N passed, M failed`; exits 1 on failure.

usage: $OUTL_CLIENTS_DIR/py/bin/python python_client.py [--outl PATH] [--demo DIR] [--bookmarks PATH]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import anyio
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client
from mcp_types.version import LATEST_HANDSHAKE_VERSION, LATEST_MODERN_VERSION

REPO = Path(__file__).resolve().parents[2]
# Generous: a debug build on a loaded 2-core machine; a hang must still end the run.
SESSION_TIMEOUT_SECONDS = 120
SERVE_START_SECONDS = 20
JSONRPC_INVALID_PARAMS = -32602

# The demo page and task the read/write/search checks use (examples/demo/pages/Shakshuka.md).
PAGE_SLUG = "shakshuka"
PAGE_FILE = Path("pages") / "Shakshuka.md"
TASK_TEXT = "Buy a bigger pan"


class Checks:
    """Tallies checks and prints one line per check."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def record(self, name: str, ok: bool, detail: str = "") -> None:
        if ok:
            self.passed += 1
            print(f"PASS {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {name}", flush=True)
            for line in detail.splitlines():
                print(f"    {line}", flush=True)


@dataclass
class Connection:
    label: str
    session: ClientSession
    workspace: Path
    # 2026-07-28: server/discover and per-request _meta instead of the initialize handshake.
    modern: bool

    @property
    def expected_version(self) -> str:
        return LATEST_MODERN_VERSION if self.modern else LATEST_HANDSHAKE_VERSION


@dataclass
class Expected:
    """What the checks compare against, read from the binary rather than written down."""

    tool_names: list[str]
    annotations: dict[str, dict[str, Any]]
    outl_version: str


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def walk_outline(nodes: list[list[Any]]) -> list[dict[str, Any]]:
    """Every node of an outline, depth first, each read from its wire array
    `[id, text, fields, children]` (fields and children left out when empty) as a dict."""
    found = []
    for node in nodes:
        node_id, text, *rest = node
        fields = next((part for part in rest if isinstance(part, dict)), {})
        children = next((part for part in rest if isinstance(part, list)), [])
        found.append({"id": node_id, "text": text, **fields})
        found.extend(walk_outline(children))
    return found


def success_payload(result: Any) -> Any:
    """The JSON payload of a successful tools/call, after checking its RFC 0276 shape."""
    if result.is_error:
        raise AssertionError(f"tool failed: {text_of(result)}")
    if result.structured_content is not None:
        raise AssertionError("a success carries structuredContent")
    if len(result.content) != 1 or result.content[0].type != "text":
        raise AssertionError(f"expected one text content, got {result.content!r}")
    text = result.content[0].text
    payload = json.loads(text)
    if compact(payload) != text:
        raise AssertionError(f"text is not compact JSON: {text[:200]}")
    return payload


def text_of(result: Any) -> str:
    return " ".join(getattr(item, "text", "") for item in result.content)


def error_envelope(result: Any) -> dict[str, Any]:
    """The error of a failed tools/call, after checking its RFC 0276 shape."""
    if not result.is_error:
        raise AssertionError(f"expected isError, got {text_of(result)[:200]}")
    envelope = result.structured_content
    if not isinstance(envelope, dict) or envelope.get("ok") is not False:
        raise AssertionError(f"structuredContent is not an error envelope: {envelope!r}")
    error = envelope["error"]
    summary = text_of(result)
    if summary != f"{error['code']}: {error['message']}" or "\n" in summary:
        raise AssertionError(f"text is not the one-line `CODE: message` summary: {summary!r}")
    return error


class Scenario:
    """The checks one connection runs, in order; a step that raises fails its check only."""

    def __init__(self, checks: Checks, conn: Connection, expected: Expected) -> None:
        self.checks = checks
        self.conn = conn
        self.expected = expected
        self.session = conn.session

    async def step(self, name: str, body: Callable[[], Any]) -> Any:
        full = f"{self.conn.label}: {name}"
        try:
            value = await body()
        except Exception as exc:  # a failed step is reported and the next one still runs
            detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            self.checks.record(full, False, detail)
            return None
        self.checks.record(full, True)
        return value

    async def run(self) -> None:
        await self.step("connects and negotiates the protocol", self.negotiates)
        await self.step("tools/list lists the registry, host-ready", self.lists_tools)
        page = await self.step("outl_page_get reads a page with block ids, pruned", self.reads_page)
        await self.step("outl_block_todo ticks a task read from the page", lambda: self.ticks_task(page))
        await self.step("outl_search finds the ticked task by its text", lambda: self.searches(page))
        await self.step("an unknown page is PAGE_NOT_FOUND in the error envelope", self.page_not_found)
        await self.step("bad arguments are INVALID_ARGUMENTS listing every problem", self.invalid_arguments)
        await self.step("an unknown tool is JSON-RPC -32602", self.unknown_tool)

    async def negotiates(self) -> None:
        session = self.session
        assert session.protocol_version == self.conn.expected_version, (
            f"negotiated {session.protocol_version}, expected {self.conn.expected_version}"
        )
        info = session.server_info
        assert info is not None, "the server did not identify itself"
        assert (info.name, info.version) == ("outl", self.expected.outl_version), (
            f"serverInfo {info.name} {info.version}"
        )
        capabilities = session.server_capabilities
        assert capabilities is not None and capabilities.tools is not None, "no tools capability"
        assert session.instructions, "no instructions for the model"
        if not self.conn.modern:  # 2026-07-28 removed ping
            await session.send_ping()

    async def lists_tools(self) -> None:
        tools = []
        cursor = None
        while True:
            params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
            listed = await self.session.list_tools(params=params)
            tools.extend(listed.tools)
            cursor = listed.next_cursor
            if cursor is None:
                break
        names = [tool.name for tool in tools]
        assert names == self.expected.tool_names, (
            f"{len(names)} tools listed, `outl tools` has {len(self.expected.tool_names)}: "
            f"missing {sorted(set(self.expected.tool_names) - set(names))}, "
            f"extra {sorted(set(names) - set(self.expected.tool_names))}"
        )
        for tool in tools:
            assert tool.output_schema is None, f"{tool.name} declares an outputSchema"
            assert tool.title is None, f"{tool.name} sends a title, which `outl tools` does not"
            assert tool.description, f"{tool.name} has no description"
            assert tool.input_schema.get("type") == "object", f"{tool.name} inputSchema is not an object"
            assert tool.annotations is not None, f"{tool.name} has no annotations"
            hints = tool.annotations.model_dump(by_alias=True, exclude_none=True)
            assert hints == self.expected.annotations[tool.name], (
                f"{tool.name} annotations {hints}, `outl tools` has {self.expected.annotations[tool.name]}"
            )
            assert hints.get("openWorldHint") is False, f"{tool.name} claims an open world"
            assert not hints.get("readOnlyHint") or not {"destructiveHint", "idempotentHint"} & hints.keys(), (
                f"{tool.name} is read-only and still sends destructiveHint or idempotentHint"
            )

    async def reads_page(self) -> dict[str, Any]:
        result = await self.session.call_tool("outl_page_get", {"slug": PAGE_SLUG})
        page = success_payload(result)
        assert page["slug"] == PAGE_SLUG, f"slug {page['slug']!r}"
        nodes = walk_outline(page["outline"])
        assert nodes and all(isinstance(node.get("id"), str) and node["id"] for node in nodes), (
            "a block without an id"
        )
        for node in nodes:
            assert "tokens" not in node, f"block {node['id']} carries tokens"
            assert node.get("collapsed", True) is not False, f"block {node['id']} carries collapsed: false"
            assert "todo" not in node or node["todo"] is not None, f"block {node['id']} carries todo: null"
            assert node.get("properties", None) != {}, f"block {node['id']} carries empty properties"
        tasks = [node for node in nodes if node["text"] == TASK_TEXT]
        assert len(tasks) == 1 and tasks[0].get("todo") == "TODO", f"no single TODO {TASK_TEXT!r}"
        return page

    async def ticks_task(self, page: dict[str, Any] | None) -> None:
        assert page is not None, "no page was read to take a block id from"
        task = next(node for node in walk_outline(page["outline"]) if node["text"] == TASK_TEXT)
        result = await self.session.call_tool("outl_block_todo", {"id": task["id"], "state": "DONE"})
        written = success_payload(result)
        assert written["id"] == task["id"] and written["todo"] == "DONE", f"reply {written!r}"
        markdown = (self.conn.workspace / PAGE_FILE).read_text(encoding="utf-8")
        assert f"- DONE {TASK_TEXT}\n" in markdown, f"{PAGE_FILE} does not hold the DONE task"
        assert f"- TODO {TASK_TEXT}" not in markdown, f"{PAGE_FILE} still holds the TODO task"
        reread = success_payload(await self.session.call_tool("outl_page_get", {"slug": PAGE_SLUG}))
        again = [node for node in walk_outline(reread["outline"]) if node["id"] == task["id"]]
        assert len(again) == 1 and again[0].get("todo") == "DONE", "the page does not read back DONE"

    async def searches(self, page: dict[str, Any] | None) -> None:
        assert page is not None, "no page was read to take the task's id from"
        task = next(node for node in walk_outline(page["outline"]) if node["text"] == TASK_TEXT)
        found = success_payload(await self.session.call_tool("outl_search", {"query": TASK_TEXT}))
        hits = [(hit["page"], hit.get("id")) for hit in found["hits"]]
        assert (PAGE_SLUG, task["id"]) in hits, f"no hit on block {task['id']}: {compact(found)[:300]}"

    async def page_not_found(self) -> None:
        result = await self.session.call_tool("outl_page_get", {"slug": "no such page"})
        error = error_envelope(result)
        assert error["code"] == "PAGE_NOT_FOUND", f"code {error['code']}"

    async def invalid_arguments(self) -> None:
        result = await self.session.call_tool("outl_page_get", {"slug": 42, "colour": "blue"})
        error = error_envelope(result)
        assert error["code"] == "INVALID_ARGUMENTS", f"code {error['code']}"
        pointers = sorted(problem["pointer"] for problem in error["data"]["problems"])
        assert pointers == ["/colour", "/slug"], f"problems at {pointers}"

    async def unknown_tool(self) -> None:
        try:
            result = await self.session.call_tool("outl_no_such_tool", {})
        except MCPError as err:
            assert err.code == JSONRPC_INVALID_PARAMS, f"code {err.code}: {err.message}"
            assert "outl_no_such_tool" in err.message, f"message {err.message!r}"
        else:
            raise AssertionError(f"no JSON-RPC error; got a result: {text_of(result)[:200]}")
        # The session goes on after the error.
        listed = await self.session.list_tools()
        assert listed.tools, "tools/list after the error lists nothing"


def demo_copy(demo: Path) -> Path:
    workspace = Path(tempfile.mkdtemp(prefix="outl-python-client."))
    shutil.copytree(demo, workspace, dirs_exist_ok=True)
    return workspace


@asynccontextmanager
async def over_stdio(outl: str, workspace: Path) -> AsyncIterator[ClientSession]:
    server = StdioServerParameters(command=outl, args=["mcp", "--workspace", str(workspace)])
    with open(os.devnull, "w") as quiet:
        async with stdio_client(server, errlog=quiet) as (read, write):
            async with ClientSession(read, write) as session:
                yield session


@asynccontextmanager
async def over_http(outl: str, workspace: Path) -> AsyncIterator[ClientSession]:
    with tempfile.TemporaryFile("w+") as log:
        server = subprocess.Popen(
            [outl, "serve", "--workspace", str(workspace), "--port", "0"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        try:
            url = await serving_url(server, log)
            async with streamable_http_client(url) as (read, write):
                async with ClientSession(read, write) as session:
                    yield session
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


async def serving_url(server: subprocess.Popen[bytes], log: Any) -> str:
    """The URL `outl serve --port 0` names on stderr once it listens."""
    deadline = time.monotonic() + SERVE_START_SECONDS
    while time.monotonic() < deadline:
        log.seek(0)
        # Only a whole line: the server may be midway through writing it.
        match = re.search(r"serving MCP at (http://\S+)\n", log.read())
        if match:
            return match.group(1)
        if server.poll() is not None:
            break
        await anyio.sleep(0.05)
    log.seek(0)
    raise RuntimeError(f"outl serve did not start: {log.read()}")


class SdkWarnings(logging.Handler):
    """Collects what the SDK logs at WARNING and above: its complaints about the server."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


async def run_all(outl: str, demo: Path, checks: Checks) -> None:
    registry = json.loads(subprocess.run([outl, "tools"], check=True, capture_output=True).stdout)
    version = subprocess.run([outl, "--version"], check=True, capture_output=True, text=True).stdout
    expected = Expected(
        tool_names=[tool["name"] for tool in registry["tools"]],
        annotations={tool["name"]: tool["annotations"] for tool in registry["tools"]},
        outl_version=version.split()[-1],
    )
    connections = [
        ("python stdio", over_stdio, False),
        ("python stdio 2026", over_stdio, True),
        ("python http", over_http, False),
    ]
    sdk_logger = logging.getLogger("mcp")
    for label, transport, modern in connections:
        workspace = demo_copy(demo)
        warnings = SdkWarnings()
        sdk_logger.addHandler(warnings)
        try:
            with anyio.fail_after(SESSION_TIMEOUT_SECONDS):
                async with transport(outl, workspace) as session:
                    if modern:
                        await session.discover()
                    else:
                        await session.initialize()
                    conn = Connection(label, session, workspace, modern)
                    await Scenario(checks, conn, expected).run()
        except Exception as exc:  # the connection itself failed: one failed check, go on
            detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            checks.record(f"{label}: the session runs to its end", False, detail)
        finally:
            sdk_logger.removeHandler(warnings)
            shutil.rmtree(workspace, ignore_errors=True)
        checks.record(
            f"{label}: the SDK logged no warning about the server, closing included",
            not warnings.messages,
            "\n".join(warnings.messages),
        )


BOOKMARKS_TOOLS = [
    "bookmark_add",
    "bookmark_list",
    "bookmark_mark_read",
    "bookmark_remove",
    "reading_list_markdown",
]


async def bookmarks_checks(bookmarks: str, checks: Checks) -> None:
    """The examples/bookmarks server over stdio: RFC 0276's replies from a server that is not outl."""
    label = "python bookmarks"
    folder = Path(tempfile.mkdtemp(prefix="bookmarks-python-client."))
    server = StdioServerParameters(command=bookmarks, args=[str(folder / "bookmarks.json")])
    try:
        with anyio.fail_after(SESSION_TIMEOUT_SECONDS), open(os.devnull, "w") as quiet:
            async with stdio_client(server, errlog=quiet) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    tools = (await session.list_tools()).tools
                    checks.record(
                        f"{label}: lists its five tools, none with an outputSchema",
                        [tool.name for tool in tools] == BOOKMARKS_TOOLS
                        and all(tool.output_schema is None for tool in tools),
                        compact([tool.name for tool in tools]),
                    )
                    added = success_payload(
                        await session.call_tool(
                            "bookmark_add",
                            {"url": "https://modelcontextprotocol.io", "title": "MCP", "tags": ["mcp"]},
                        )
                    )
                    checks.record(f"{label}: a json payload is compact JSON", added.get("id") == 1, compact(added))
                    listed = await session.call_tool("reading_list_markdown", {"tag": "mcp"})
                    checks.record(
                        f"{label}: a markdown payload is the markdown alone",
                        not listed.is_error
                        and listed.structured_content is None
                        and text_of(listed) == "- [MCP](https://modelcontextprotocol.io) (#1)\n",
                        text_of(listed),
                    )
                    error = error_envelope(await session.call_tool("bookmark_mark_read", {"id": "one"}))
                    checks.record(
                        f"{label}: invalid arguments are an error listing each problem",
                        error["code"] == "INVALID_ARGUMENTS"
                        and [p["pointer"] for p in error["data"]["problems"]] == ["/id"],
                        compact(error),
                    )
    except Exception as exc:  # the connection itself failed: one failed check, go on
        detail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        checks.record(f"{label}: the session runs to its end", False, detail)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--outl",
        default=os.environ.get("OUTL_BIN", str(REPO / "target" / "debug" / "outl")),
        help="the outl binary (default: $OUTL_BIN, else target/debug/outl)",
    )
    parser.add_argument("--demo", default=str(REPO / "examples" / "demo"), help="the workspace to copy")
    parser.add_argument(
        "--bookmarks",
        default=os.environ.get("BOOKMARKS_BIN", str(REPO / "target" / "debug" / "bookmarks")),
        help="the examples/bookmarks server (default: $BOOKMARKS_BIN, else target/debug/bookmarks)",
    )
    args = parser.parse_args()
    if not __debug__:
        parser.error("the checks are assert statements: run without -O")
    checks = Checks()
    anyio.run(run_all, args.outl, Path(args.demo), checks)
    anyio.run(bookmarks_checks, args.bookmarks, checks)
    print(f"{checks.passed} passed, {checks.failed} failed", flush=True)
    return 0 if checks.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
