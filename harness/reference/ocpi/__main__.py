"""Run the reference OCPI peer on its own, as a SUT on a real port:

    python -m harness.reference.ocpi --role cpo --port 8080 --token-a <token A>

It prints ``versions URL: http://HOST:PORT/ocpi/versions`` once it listens (port 0 picks a free
port), serves the http actuator contract at ``http://HOST:PORT/actuator/<action>`` (see
docs/actuators.md), and stops on SIGINT or SIGTERM. Its identity and locations come from the
profile's ``[ocpi]`` section (the built-in standalone profile unless ``--profile`` is given).
"""

from __future__ import annotations

import argparse
import sys

from harness.errors import ConfigError
from harness.reference.ocpi import CPO, EMSP, build_peer, sut_identity
from harness.reference.standalone import load_profile, run, until_stopped
from harness.transport.http import HttpClient, HttpServer


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m harness.reference.ocpi", description=__doc__.split("\n\n")[0])
    parser.add_argument("--role", choices=("cpo", "emsp"), required=True, help="the platform to play")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default 0: any free port)")
    parser.add_argument("--token-a", help="token A a platform may register with (default: the profile's)")
    parser.add_argument("--profile", help="TOML profile whose [ocpi] section describes this platform")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    profile = load_profile(args.profile)
    token_a = args.token_a or profile.get("ocpi.token_a")
    if not token_a:
        raise ConfigError("give --token-a, or [ocpi] token_a in the profile")
    role = CPO if args.role == "cpo" else EMSP
    peer = build_peer(sut_identity(profile, role), profile, http=HttpClient(), from_profile=True,
                      actuator_endpoint=True)
    server = await HttpServer(peer.app, args.host, args.port).start()
    peer.bind(server.url, token_a=token_a)
    print(f"versions URL: {peer.versions_url}", flush=True)
    try:
        await until_stopped()
    finally:
        await peer.stop()
        await server.stop()


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    return run(lambda: serve(args))


if __name__ == "__main__":
    sys.exit(main())
