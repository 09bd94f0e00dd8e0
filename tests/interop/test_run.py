"""interop/run.py: a SUT whose port was taken between its pick and its bind is started again on other ports."""

import socket
import sys
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "interop"))

import run as interop_run

# an adapter that binds its ports as uvicorn does: on a taken one it says so and exits with code 3
ADAPTER = """
import socket, sys, time
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
held = []
for port in (args["--port"], args["--actuator-port"]):
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", int(port)))
    except OSError:
        print(f"ERROR: [Errno 98] error while attempting to bind on address ('127.0.0.1', {port}): "
              "address already in use", flush=True)
        sys.exit(3)
    s.listen()
    held.append(s)
time.sleep(60)
"""


def test_a_taken_port_starts_the_sut_again_on_other_ports(tmp_path, monkeypatch):
    adapter = tmp_path / "adapter.py"
    adapter.write_text(ADAPTER)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    picks = [[taken.getsockname()[1], *interop_run.free_ports(2)]]   # the first pick: its SUT port taken meanwhile
    real_free_ports = interop_run.free_ports
    monkeypatch.setattr(interop_run, "free_ports", lambda count: picks.pop() if picks else real_free_ports(count))
    target = SimpleNamespace(role="csms", adapter=str(adapter), ocpi=False, path="/ocpp")
    try:
        process, log, sut, actuator, _ = interop_run.start_sut(target, tmp_path, tmp_path / "profile.toml")
        try:
            assert process.poll() is None
            assert str(taken.getsockname()[1]) not in sut[1]
            with socket.create_connection(("127.0.0.1", actuator), timeout=5):
                pass
        finally:
            interop_run.stop(process)
            log.close()
    finally:
        taken.close()
