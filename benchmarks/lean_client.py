"""A lean HTTP/1.1 client for the load generators: one keep-alive connection, JSON in and out.

The benchmarks run their load generator on the same two cores as the server, and
httpx spends more CPU on a request than the server's own framework does (its
transport layers, header models, anyio and stdlib JSON), so the generator competes
with the server it measures and sends open-loop actions late. This client speaks just
the HTTP the generators need (a request; a response with a Content-Length, a chunked
body or one ended by the connection's close, and none to a HEAD or in a 204 or 304)
over asyncio streams, with msgspec's JSON. It keeps the part of httpx's
interface the generators use (``post``, ``get``, ``aclose``; ``status_code``,
``json()``, ``raise_for_status()``), and its errors are httpx's kinds (a transport
error is an ``httpx.TransportError``, an error status an ``httpx.HTTPError`` that is
not one), so a generator takes either (``--client``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import urlsplit

import httpx
import msgspec


class LeanTransportError(httpx.TransportError):
    """The connection failed, or closed before a whole response arrived."""


class LeanStatusError(httpx.HTTPError):
    """The server answered with an error status (4xx or 5xx): the connection is fine."""


class LeanResponse:
    """Status and body of one answered request."""

    __slots__ = ("content", "status_code")

    def __init__(self, status_code: int, content: bytes):
        self.status_code, self.content = status_code, content

    @property
    def text(self) -> str:
        return self.content.decode()

    def json(self) -> Any:
        return msgspec.json.decode(self.content)

    def raise_for_status(self) -> None:
        if self.status_code >= 400:
            raise LeanStatusError(f"HTTP {self.status_code}: {self.content[:200]!r}")


class LeanClient:
    """Requests one at a time on one connection, reopened when the server has closed it."""

    def __init__(self, base_url: str, timeout: float = 60):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self._host_line = f"Host: {parts.netloc}\r\n".encode()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def post(
        self, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> LeanResponse:
        return await self.request("POST", path, json, headers)

    async def get(self, path: str, headers: dict[str, str] | None = None) -> LeanResponse:
        return await self.request("GET", path, None, headers)

    async def request(
        self, method: str, path: str, json: Any = None, headers: dict[str, str] | None = None
    ) -> LeanResponse:
        body = b"" if json is None else msgspec.json.encode(json)
        head = [f"{method} {path} HTTP/1.1\r\n".encode(), self._host_line]
        for name, value in (headers or {}).items():
            head.append(f"{name}: {value}\r\n".encode())
        if json is not None:
            head.append(b"Content-Type: application/json\r\n")
        head.append(f"Content-Length: {len(body)}\r\n\r\n".encode())
        try:
            async with asyncio.timeout(self.timeout):
                return await self._exchange(method, b"".join(head) + body)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
            await self.aclose()
            raise LeanTransportError(f"{method} {path}: {exc!r}") from exc

    async def _exchange(self, method: str, request: bytes) -> LeanResponse:
        if self._reader is None or self._writer is None or self._reader.at_eof():
            await self.aclose()
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        reader = self._reader
        self._writer.write(request)
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(head[0].split(" ", 2)[1])
        fields = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            fields[name.strip().lower()] = value.strip().lower()
        if method == "HEAD" or status in (204, 304):
            content = b""  # no body, whatever Content-Length says (RFC 9112, 6.3)
        elif "content-length" in fields:
            content = await reader.readexactly(int(fields["content-length"]))
        elif fields.get("transfer-encoding") == "chunked":
            content = await _chunked(reader)
        elif fields.get("connection") == "close":
            content = await reader.read()  # the body ends where the connection does
        else:
            content = b""
        if fields.get("connection") == "close":
            await self.aclose()
        return LeanResponse(status, content)

    async def aclose(self) -> None:
        writer, self._reader, self._writer = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def _chunked(reader: asyncio.StreamReader) -> bytes:
    parts = []
    while size := int((await reader.readuntil(b"\r\n")).split(b";")[0], 16):
        parts.append(await reader.readexactly(size))
        await reader.readexactly(2)
    await reader.readuntil(b"\r\n")  # the last chunk's line end (no trailers are sent)
    return b"".join(parts)


Client = httpx.AsyncClient | LeanClient


def make_client(kind: str, base_url: str, timeout: float = 60) -> Client:
    """The generator's client: ``lean`` (this module) or ``httpx``."""
    if kind == "httpx":
        return httpx.AsyncClient(base_url=base_url, timeout=timeout)
    if kind == "lean":
        return LeanClient(base_url, timeout)
    raise ValueError(f"unknown client {kind!r}: lean or httpx")
