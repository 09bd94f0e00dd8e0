"""The run's OCSP responder over HTTP on loopback (RFC 6960 Appendix A), and the client a CSMS asks it with.

``OcspResponder`` serves ``answer(request DER) -> response DER`` (``ContractPki.ocsp_response``) at
127.0.0.1 on the port the contract certificates name: a POST with an ``application/ocsp-request``
body, or a GET with the request base64-encoded in the path. A test starts it and stops it; nothing
is fetched from outside. ``ask`` posts one request with httpx and returns the DER answer (None when
the responder cannot be reached: the verifier's to judge).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from collections.abc import Callable
from urllib.parse import unquote, urlsplit

import httpx

from harness.transport.http import default_trust

MAX_REQUEST = 64 * 1024      # bytes: an OCSP request for one certificate is a few hundred
ASK_TIMEOUT = 5.0            # seconds a CSMS waits for the responder


class OcspResponder:
    def __init__(self, answer: Callable[[bytes], bytes], port: int) -> None:
        self.answer = answer
        self.port = port
        self.server: asyncio.base_events.Server | None = None

    async def start(self) -> "OcspResponder":
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", self.port, reuse_address=True)
        return self

    async def stop(self) -> None:
        if self.server is not None:
            self.server.close()
            await self.server.wait_closed()
            self.server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            method, target, _ = head.split("\r\n", 1)[0].split(" ", 2)
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in head.split("\r\n")[1:] if line)}
            if method == "POST":
                length = int(headers.get("content-length", "0"))
                body = await reader.readexactly(length) if 0 < length <= MAX_REQUEST else b""
            else:
                body = base64.b64decode(unquote(urlsplit(target).path.rsplit("/", 1)[-1]) + "==")
            status, payload = (b"200 OK", self.answer(body)) if body else (b"400 Bad Request", b"")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError):
            status, payload = b"400 Bad Request", b""
        writer.write(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/ocsp-response\r\nContent-Length: "
                     + str(len(payload)).encode() + b"\r\nConnection: close\r\n\r\n" + payload)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
            writer.close()


async def ask(url: str, request: bytes) -> bytes | None:
    """POST ``request`` to the responder at ``url``; its DER answer, or None when it cannot be reached or
    answers other than 200."""
    try:
        async with httpx.AsyncClient(timeout=ASK_TIMEOUT, verify=default_trust(), trust_env=False) as client:
            answer = await client.post(url, content=request, headers={"Content-Type": "application/ocsp-request"})
    except httpx.HTTPError:
        return None
    return answer.content if answer.status_code == 200 else None
