"""Files over HTTP on loopback, for 1.6 Firmware Management: firmware the harness offers for download
(UpdateFirmware.location) and the diagnostics a charge point uploads (GetDiagnostics.location).

``FileDepot`` serves ``GET /files/<name>`` (200 with the content, 404 for a name it does not offer)
and takes ``PUT`` or ``POST /uploads/<name>`` (201, the body kept by name); anything else is 405.
Only http URLs: the 1.6 text gives no scheme for either location, FTP is what many charge points use,
and an FTP server is more than a test harness needs to prove the dialogue (see the README).
"""

from __future__ import annotations

from harness import clock
from harness.transport.http import HttpRequest, HttpResponse, HttpServer, asgi_app
from harness.wire import WireLog

FILES, UPLOADS = "/files/", "/uploads/"


class FileDepot:
    def __init__(self, wirelog: WireLog | None = None, host: str = "127.0.0.1"):
        self.offered: dict[str, bytes] = {}
        self.fetched: list[str] = []            # the names downloaded, in order
        self.requested: list[tuple[str, float]] = []   # every GET of a file, offered or not, and when (clock.now())
        self.uploads: dict[str, bytes] = {}
        self._server = HttpServer(asgi_app(self._handle, wirelog=lambda: wirelog, channel="files"), host=host)

    async def start(self) -> "FileDepot":
        await self._server.start()
        return self

    async def stop(self) -> None:
        await self._server.stop()

    def offer(self, name: str, content: bytes) -> str:
        """The URL at which ``content`` is downloaded as ``name``."""
        self.offered[name] = content
        return self.url_of(name)

    def url_of(self, name: str) -> str:
        """The download URL of ``name`` (404 while it is not offered)."""
        return f"{self._server.url}{FILES}{name}"

    @property
    def upload_url(self) -> str:
        """Where a file is uploaded: this directory URL, then its name."""
        return f"{self._server.url}{UPLOADS}"

    async def _handle(self, request: HttpRequest) -> HttpResponse:
        if request.method == "GET" and request.path.startswith(FILES):
            name = request.path.removeprefix(FILES)
            self.requested.append((name, clock.now()))
            if name not in self.offered:
                return HttpResponse(404, b"no such file")
            self.fetched.append(name)
            return HttpResponse(200, self.offered[name])
        if request.method in ("PUT", "POST") and request.path.startswith(UPLOADS) and request.path != UPLOADS:
            self.uploads[request.path.removeprefix(UPLOADS)] = request.body
            return HttpResponse(201)
        return HttpResponse(405, b"GET /files/<name>, PUT or POST /uploads/<name>")
