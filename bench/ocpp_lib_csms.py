"""The `ocpp` library's CSMS (examples/ocpp_lib_sut.py, OCPP 2.0.1) serving a load roster: the CSMS the
reference's memory per connection is compared with (bench/load_numbers.py memory).

    python bench/ocpp_lib_csms.py --stations 5000 --port 9400 --seconds 600

Everything but who may connect is the example's: one ``ocpp.v201.ChargePoint`` per station, answering
BootNotification, Heartbeat, StatusNotification, Authorize and TransactionEvent; the roster's identities
and Basic-auth passwords are checked at the upgrade (404 / 401), its idTokens are Accepted.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from http import HTTPStatus
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import ocpp_lib_sut as lib

from harness.load.fleet import raise_file_limit
from harness.load.roster import Roster


class RosterCsms(lib.Csms):
    def __init__(self, roster: Roster):
        super().__init__({"station": {"identity": roster[0].identity},
                          "tokens": {c.identity: {"id": c.id_token, "type": "ISO14443", "status": "Accepted"}
                                     for c in roster.cards}})
        self.roster = roster

    def check_upgrade(self, connection, request):
        card = self.roster.get(lib.identity_of(request.path))
        if card is None:
            return connection.respond(HTTPStatus.NOT_FOUND, "unknown charging station\n")
        if not lib.basic_auth_ok(request.headers.get("Authorization"), card.identity, card.password.encode()):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "wrong or missing credentials\n")
        return None


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stations", type=int, required=True)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--port", type=int, default=9400)
    parser.add_argument("--seconds", type=float, default=600.0, help="stop after this many seconds")
    args = parser.parse_args()
    raise_file_limit(args.stations + 256)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(sig, stop.set)
    asyncio.get_running_loop().call_later(args.seconds, stop.set)
    await lib.listening(RosterCsms(Roster(args.seed, args.stations)), args.port, lib.SUBPROTOCOL, stop)


if __name__ == "__main__":
    asyncio.run(main())
