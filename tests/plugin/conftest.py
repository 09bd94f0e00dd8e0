"""What the plugin tests share: a CSMS that upgrades any station, so that a run against a real SUT passes its
session-start probe (a WebSocket upgrade); the demo suites never speak OCPP to it."""

import threading

import pytest
from websockets.sync.server import serve


@pytest.fixture
def sut_port():
    with serve(lambda ws: None, "127.0.0.1", 0, subprotocols=["ocpp2.0.1", "ocpp2.1", "ocpp1.6"]) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        yield server.socket.getsockname()[1]
        server.shutdown()
        thread.join(timeout=10)
