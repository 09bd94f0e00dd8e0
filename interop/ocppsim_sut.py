"""ocppsim (npm, JCloudYu: an OCPP 1.6-J charge point simulator in TypeScript) under test as a charging station.
The harness plays the central system; this adapter starts ``node _dist/simulator.mjs <csms url> -s <identity>
-c <connectors>`` (the simulator forces the URL's path to its serial: ws://host:port/<identity>) and has an
actuator with no action: the simulator has no local input (no card reader, no cable, no DataTransfer), so every
action is answered 501 and its tests are not applicable.

    python interop/npm_install.py
    python interop/ocppsim_sut.py cs --csms-url ws://127.0.0.1:9000/ --actuator-port 9101 \
        --profile profiles/interop-ocppsim-16.toml

The simulator exits when its connection closes or cannot open (it never reconnects by itself); the adapter is
its supervisor, as a service manager is a station's: it starts the process again 0.2 s after it exited, and the
new process boots. Nothing of OCPP is done here: every frame is the simulator's.
"""

from __future__ import annotations

import asyncio
import shutil
from urllib.parse import urlsplit, urlunsplit

from common import run
from npm_install import package_dir

RESTART_AFTER = 0.2    # seconds between the simulator's exit and its next start


class Ocppsim:
    ACTIONS: tuple[str, ...] = ()

    def __init__(self, profile: dict):
        self.identity = profile["station"]["identity"]
        self.connectors = len(profile["station"].get("evse", [{}]))
        self.simulator = package_dir("ocppsim") / "_dist" / "simulator.mjs"
        self.node = shutil.which("node") or "node"

    async def run(self, csms_url: str) -> None:
        scheme, host, *_ = urlsplit(csms_url)
        url = urlunsplit((scheme, host, "/", "", ""))
        while True:
            process = await asyncio.create_subprocess_exec(
                self.node, str(self.simulator), url, "-s", self.identity, "-c", str(self.connectors))
            try:
                code = await process.wait()
            except asyncio.CancelledError:
                if process.returncode is None:
                    process.terminate()
                    try:
                        await asyncio.wait_for(process.wait(), 5)
                    except asyncio.TimeoutError:
                        process.kill()
                raise
            print(f"ocppsim exited with {code}; starting it again", flush=True)
            await asyncio.sleep(RESTART_AFTER)


if __name__ == "__main__":
    run(Ocppsim, __doc__)
