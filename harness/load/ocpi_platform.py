"""The reference OCPI platform (a CPO) for a load of many eMSP peers: every party of the roster may
register with it by its own token A (``harness.reference.ocpi.parties``). Served on 127.0.0.1 by
``python -m harness.load ocpi-platform --peers N``; in-process by ``platform`` (the tests)."""

from __future__ import annotations

import asyncio
import signal
import sys

from harness.load.ocpi_roster import OcpiRoster
from harness.reference.ocpi import CPO, EMSP, OcpiPeer, sut_identity
from harness.reference.ocpi.parties import Parties
from harness.reference.standalone import load_profile
from harness.transport.http import HttpClient, HttpServer

ROLES = {"cpo": CPO, "emsp": EMSP}


def platform(peers: int, seed: int = 1, *, page_limit: int = 50, call_timeout: float = 10.0,
             role: str = CPO) -> Parties:
    """A CPO (or an eMSP: ``role``) of the built-in standalone profile, once per party of the roster, sharing one HTTP client
    (the connect-backs' pool) and one stock of locations and sessions."""
    profile = load_profile(None)
    identity = sut_identity(profile, role)
    http = HttpClient()
    stock = {module.handler.module: module.handler.stock(identity, profile, from_profile=True)
             for module in OcpiPeer.modules.for_role(role)}
    return Parties([OcpiPeer(identity, http=http, stock=stock, page_limit=page_limit, call_timeout=call_timeout)
                    for _ in range(peers)], http)


async def serve(peers: int, seed: int, port: int, seconds: float, page_limit: int, role: str = CPO) -> int:
    parties = platform(peers, seed, page_limit=page_limit, role=role)
    server = await HttpServer(parties.app, "127.0.0.1", port).start()
    parties.bind(server.url, (party.token_a for party in OcpiRoster(seed, peers).parties))
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    print(f"reference OCPI platform ({role}) for {peers:,} parties (seed {seed}); versions URL: {parties.versions_url}",
          flush=True)
    try:
        await asyncio.wait_for(stop.wait(), seconds)
    except TimeoutError:
        pass
    await server.stop()
    print(f"{parties.registered:,} of {peers:,} parties registered; {parties.violations():,} violations "
          "recorded against the peers' requests", file=sys.stderr, flush=True)
    await parties.stop()
    return 0
