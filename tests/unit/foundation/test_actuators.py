"""Actuators against a real HTTP server on loopback, and the python kind (the manual one:
test_manual_actuator.py)."""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness.actuators import ActionUnsupported, ActuatorFailed, HttpActuator, PythonActuator, build
from harness.errors import ConfigError


class _Recorder(BaseHTTPRequestHandler):
    seen: list = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Recorder.seen.append((self.path, body))
        status = {"plug_in": 204, "press_start_button": 501}.get(self.path.rsplit("/", 1)[-1], 500)
        self.send_response(status)
        payload = b"boom" if status == 500 else b""
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def actuator_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Recorder.seen = []
    yield f"http://127.0.0.1:{server.server_address[1]}/act"
    server.shutdown()
    server.server_close()


async def test_http_actuator_posts_the_body_and_reads_2xx_as_done(actuator_server):
    await HttpActuator(actuator_server).perform("plug_in", {"evse_id": 1})
    assert _Recorder.seen == [("/act/plug_in", {"evse_id": 1})]


async def test_http_501_means_not_applicable(actuator_server):
    with pytest.raises(ActionUnsupported, match="501 for 'press_start_button'"):
        await HttpActuator(actuator_server).perform("press_start_button", {})


async def test_http_other_status_is_broken_and_shows_the_answer(actuator_server):
    with pytest.raises(ActuatorFailed, match="answered HTTP 500: boom"):
        await HttpActuator(actuator_server).perform("unplug", {"evse_id": 1})


async def test_unreachable_http_actuator_is_broken():
    with pytest.raises(ActuatorFailed, match="unreachable"):
        await HttpActuator("http://127.0.0.1:9", timeout=2).perform("plug_in", {})


class Bench:
    def __init__(self):
        self.calls = []

    async def plug_in(self, evse_id):
        self.calls.append(("plug_in", evse_id))

    def unplug(self, evse_id):
        raise RuntimeError("relay stuck")


async def test_python_actuator_calls_one_method_per_action():
    actuator = PythonActuator(f"{__name__}:Bench")
    await actuator.perform("plug_in", {"evse_id": 2})
    assert actuator.target.calls == [("plug_in", 2)]
    with pytest.raises(ActionUnsupported, match="no method 'present_id_token'"):
        await actuator.perform("present_id_token", {})
    with pytest.raises(ActuatorFailed, match="relay stuck"):
        await actuator.perform("unplug", {"evse_id": 1})


def test_python_actuator_class_that_does_not_load_is_a_config_error():
    with pytest.raises(ConfigError, match="cannot be loaded"):
        PythonActuator("no.such.module:Bench")


def test_build_explains_what_is_missing():
    with pytest.raises(ConfigError, match="--actuator http needs a base URL"):
        build("http")
    with pytest.raises(ConfigError, match="use manual, http or python"):
        build("robot")
    with pytest.raises(ConfigError, match="manual needs the operator's terminal"):
        build("manual")
