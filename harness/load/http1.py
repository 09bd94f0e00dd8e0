"""A lean HTTP/1.1 client for the OCPI load: keep-alive connections to one origin, one pool per process.

httpx costs the load process ~3.2 ms of CPU per request on this project's machine (bench/LOAD.md, "OCPI
load"), three times what the platform spends answering it, so the load measured its own client. This
pool writes a request in one ``write`` and reads the answer by its Content-Length (or chunks) on
``asyncio`` streams: no request or response objects, no header validation beyond what the load reads.
It speaks only what the load sends (http://, one host, bodies of JSON) and is no general client.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit


class HttpFailure(Exception):
    """No answer: refused, closed, timed out, or not HTTP/1.1."""


class _Stale(Exception):
    """A kept connection was closed by the server before it answered: the request goes on another."""


class Pool:
    """Up to ``size`` keep-alive connections to the origin of ``url``; ``request`` takes a free one or opens one."""

    def __init__(self, url: str, size: int):
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"{url}: the lean client speaks http:// to one host only")
        self.host, self.port = parts.hostname, parts.port or 80
        self.authority = f"{self.host}:{self.port}".encode()
        self.free: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self.gate = asyncio.Semaphore(size)

    async def request(self, method: str, target: str, headers: dict[str, str], body: bytes = b"", *,
                      timeout: float) -> tuple[int, dict[str, str], bytes]:
        """(status, headers by lower-case name, body) of one request to ``target`` (a path with its query)."""
        async with self.gate:
            while self.free:   # a kept connection the server closed while idle (its keep-alive timeout)
                connection = self.free.pop()
                try:
                    return await self._on(connection, method, target, headers, body, timeout)
                except _Stale:
                    continue
            return await self._on(None, method, target, headers, body, timeout)

    async def _on(self, connection, method: str, target: str, headers: dict[str, str], body: bytes,
                  timeout: float) -> tuple[int, dict[str, str], bytes]:
        """One exchange on ``connection`` (None: a new one); _Stale when a kept one was closed before it answered."""
        reused = connection is not None
        try:
            async with asyncio.timeout(timeout):
                if connection is None:
                    connection = await asyncio.open_connection(self.host, self.port)
                answer = await self._exchange(connection, method, target, headers, body)
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as error:
            if connection is not None:
                connection[1].close()
            if reused and (isinstance(error, ConnectionError) or
                           isinstance(error, asyncio.IncompleteReadError) and not error.partial):
                raise _Stale() from None
            raise HttpFailure(type(error).__name__) from None
        except TimeoutError:
            if connection is not None:
                connection[1].close()
            raise
        if answer[1].get("connection", "").lower() == "close":
            connection[1].close()
        else:
            self.free.append(connection)
        return answer

    async def _exchange(self, connection, method: str, target: str, headers: dict[str, str],
                        body: bytes) -> tuple[int, dict[str, str], bytes]:
        reader, writer = connection
        head = [f"{method} {target} HTTP/1.1".encode(), b"Host: " + self.authority,
                b"Content-Length: " + str(len(body)).encode()]
        head += [f"{name}: {value}".encode("latin-1") for name, value in headers.items()]
        writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        status_line, *lines = (await reader.readuntil(b"\r\n\r\n"))[:-4].decode("latin-1").split("\r\n")
        version, status, _ = status_line.split(" ", 2)
        if not version.startswith("HTTP/1."):
            raise ValueError("not HTTP/1.x")
        answer = {}
        for line in lines:
            name, _, value = line.partition(":")
            answer[name.strip().lower()] = value.strip()
        if "content-length" in answer:
            content = await reader.readexactly(int(answer["content-length"]))
        elif answer.get("transfer-encoding", "").lower() == "chunked":
            content = b""
            while size := int((await reader.readuntil(b"\r\n"))[:-2].split(b";")[0], 16):
                content += (await reader.readexactly(size + 2))[:-2]
            await reader.readuntil(b"\r\n")
        else:
            raise ValueError("an answer without its length")
        return int(status), answer, content

    async def close(self) -> None:
        for _, writer in self.free:
            writer.close()
        self.free = []
