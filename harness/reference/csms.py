"""Run the reference CSMS (central system) on its own, as a SUT on real ports:

    python -m harness.reference.csms --version ocpp2.0.1 --port 9000 --actuator-port 9100

Once it listens (port 0 picks a free port) it prints ``OCPP URL: ws://HOST:PORT`` (give it to the
harness as ``--sut-url``; stations connect at ``<URL>/<identity>``) and ``actuator URL:
http://HOST:PORT/actuator`` (``--actuator-url``, with ``--actuator http``), and stops on SIGINT or
SIGTERM. It accepts the profile's station with the profile's password: run the harness with the
same profile (``builtin:standalone`` unless ``--profile`` is given). At [station]
security_profile 2 or 3 it serves wss (``OCPP URL: wss://...``) with a certificate from [tls] harness_pki.
"""

from __future__ import annotations

import sys

from harness.ocpp.versions import OcppVersion
from harness.reference.compose import references_for
from harness.reference.standalone import arguments, load_profile, run, serve, set_up_tls


def main(argv: list[str] | None = None) -> int:
    parser = arguments("python -m harness.reference.csms", __doc__)
    parser.add_argument("--port", type=int, default=0, help="OCPP WebSocket port (default 0: any free port)")
    args = parser.parse_args(argv)

    async def csms() -> None:
        version = OcppVersion.parse(args.version)
        profile = load_profile(args.profile)
        reference = references_for(version)[0](profile, [version])
        set_up_tls(reference, profile, server_names=tuple(dict.fromkeys((args.host, "localhost", "127.0.0.1"))))
        await reference.start(args.host, args.port)
        await serve(reference, args.host, args.actuator_port, {"OCPP URL": reference.url}, stop=reference.stop)

    return run(csms)


if __name__ == "__main__":
    sys.exit(main())
