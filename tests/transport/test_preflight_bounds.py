"""The preflight reads an OCPI versions answer as sent, bounded in bytes: a small gzip body that would unpack to
gigabytes (a compression bomb) is never unpacked (issue 25 item 10: it took pytest to 5.6 GB)."""

import gzip
import ssl
import threading
import tracemalloc
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.preflight import _http_unreachable

UNPACKED = 200 * 2 ** 20   # 200 MiB of zeros: about 200 KB once compressed


@pytest.fixture
def bomb_url():
    body = gzip.compress(bytes(UNPACKED), compresslevel=9)

    class Bomb(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Bomb)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/ocpi/versions"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_a_compression_bomb_is_read_as_sent_never_unpacked(bomb_url):
    tracemalloc.start()
    try:
        _http_unreachable(bomb_url, 5.0, ssl.create_default_context())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2 ** 20, f"the preflight held {peak:,} bytes: it unpacked the body"
