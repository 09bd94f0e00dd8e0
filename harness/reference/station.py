"""Run the reference charging station on its own, as a SUT:

    python -m harness.reference.station --version ocpp1.6 --csms-url ws://127.0.0.1:9000/ocpp --actuator-port 9101

It connects to ``--csms-url`` (the harness's ``--listen`` address, where the harness plays the CSMS)
as ``<URL>/<identity>``, boots, and connects again after every close, as a station under test must
(the harness opens its CSMS per test); it serves the http actuator and prints ``actuator URL:
http://HOST:PORT/actuator`` (``--actuator-url``), and stops on SIGINT or SIGTERM. Identity, password
and EVSEs come from the profile (``builtin:standalone`` unless ``--profile`` is given).
"""

from __future__ import annotations

import asyncio
import sys

from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.reference.base import StationBase
from harness.reference.compose import references_for
from harness.reference.standalone import arguments, load_profile, run, serve, set_up_tls

RECONNECT_DELAY = 1.0   # seconds; longer than a 1.6 charge point's own delay, so that one reconnects first


async def stay_connected(station: StationBase, csms_url: str) -> None:
    """Connect, and again after every close. The CSMS is there only while a test runs, so a refused
    attempt is tried again. A 1.6 charge point reconnects by itself once connected (its provisioning
    block, ``reconnects``): then only its first connection is made here."""
    while True:
        connection = station.connection
        if connection is None or connection.closed:
            try:
                await station.connect(csms_url)
            except HarnessError:
                pass   # nobody listens yet
            if "reconnects" in station.configurable and station.connection is not None \
                    and not station.connection.closed:
                return
        else:
            await connection.wait_closed(3600)
        await asyncio.sleep(RECONNECT_DELAY)


def main(argv: list[str] | None = None) -> int:
    parser = arguments("python -m harness.reference.station", __doc__)
    parser.add_argument("--csms-url", required=True, help="the CSMS to connect to, e.g. ws://127.0.0.1:9000/ocpp")
    args = parser.parse_args(argv)

    async def station() -> None:
        version = OcppVersion.parse(args.version)
        profile = load_profile(args.profile)
        reference = references_for(version)[1](profile, version)
        set_up_tls(reference, profile)
        await serve(reference, args.host, args.actuator_port, {"CSMS URL": args.csms_url}, stop=reference.stop,
                    keep=lambda: stay_connected(reference, args.csms_url))

    return run(station)


if __name__ == "__main__":
    sys.exit(main())
