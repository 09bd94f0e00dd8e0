"""The simulated stations' identities: who they are, what they say at boot, which card they carry.

A roster is drawn from a ``random.Random`` seeded with ``seed``: the same seed and size give the same
stations, in the same order, in every process (the load, each Locust worker, the CSMS that must know them).
A real CSMS under test is provisioned from ``python -m harness.load roster`` (CSV) before the run. The
fields are patterns of letters and digits, which ``faker`` gave no better than ``random`` and cost every
load process ~13 MB at start (its locale tables), a quarter of the client's start-up memory.
"""

from __future__ import annotations

import csv
import io
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from harness.ocpp.v16 import KEY_BYTES
from harness.ocpp.versions import OcppVersion

LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"   # no I, O, Q: identities read aloud without doubt
PASSWORD = string.ascii_letters + string.digits


@dataclass(frozen=True)
class Card:
    """One simulated station: its identity, Basic-auth password, serial number and the idToken of its driver."""
    index: int
    identity: str
    password: str
    serial: str
    id_token: str        # ISO 14443 UID, 7 bytes in hex: a 2.x idToken of type ISO14443, a 1.6 idTag

    def token(self) -> dict[str, str]:
        """The 2.x IdTokenType."""
        return {"idToken": self.id_token, "type": "ISO14443"}

    @property
    def authorization_key(self) -> bytes:
        """The 1.6 Basic-auth password: a 20-byte AuthorizationKey (spec 002 Authentication 3), the
        password's first 20 characters."""
        return self.password.encode()[:KEY_BYTES]

    def basic_auth(self, version: OcppVersion) -> str | bytes:
        return self.password if version.is_2x else self.authorization_key


class Roster:
    """``size`` stations drawn from a generator seeded with ``seed``; identities, serials and idTokens
    unique within the roster."""

    def __init__(self, seed: int, size: int):
        rng = random.Random(seed)

        def text(alphabet: str, length: int) -> str:
            return "".join(rng.choices(alphabet, k=length))

        identity = _unique(lambda: f"CS-{text(LETTERS, 4)}-{text(string.digits, 5)}")
        serial = _unique(lambda: f"SN-{text(string.digits, 8)}")
        id_token = _unique(lambda: text("0123456789ABCDEF", 14))
        self.cards = [Card(i, identity(), text(PASSWORD, 24), serial(), id_token()) for i in range(size)]
        self._by_identity = {card.identity: card for card in self.cards}

    def __len__(self) -> int:
        return len(self.cards)

    def __getitem__(self, index: int) -> Card:
        return self.cards[index]

    def get(self, identity: str) -> Card | None:
        return self._by_identity.get(identity)

    def csv(self) -> str:
        """What a CSMS under test must know per station: identity, Basic-auth password (2.x; 1.6: the
        AuthorizationKey in hex), serial number, idToken."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["identity", "password", "authorization_key_16", "serial_number", "id_token"])
        writer.writerows((c.identity, c.password, c.authorization_key.hex(), c.serial, c.id_token) for c in self.cards)
        return out.getvalue()


def _unique(draw: Callable[[], str]) -> Callable[[], str]:
    """``draw``, drawn again until it gives a value it has not given before."""
    seen: set[str] = set()

    def fresh() -> str:
        value = draw()
        while value in seen:
            value = draw()
        seen.add(value)
        return value
    return fresh
