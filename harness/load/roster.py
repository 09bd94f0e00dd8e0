"""The simulated stations' identities: who they are, what they say at boot, which card they carry.

A roster is drawn from ``faker`` seeded with ``seed``: the same seed and size give the same stations,
in the same order, in every process (the load, each Locust worker, the CSMS that must know them). A
real CSMS under test is provisioned from ``python -m harness.load roster`` (CSV) before the run.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from faker import Faker

from harness.ocpp.v16 import KEY_BYTES
from harness.ocpp.versions import OcppVersion

LETTERS = "ABCDEFGHJKLMNPRSTUVWXYZ"   # no I, O, Q: identities read aloud without doubt


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
    """``size`` stations drawn from faker seeded with ``seed``."""

    def __init__(self, seed: int, size: int):
        fake = Faker()
        fake.seed_instance(seed)
        self.cards = [Card(i, fake.unique.bothify("CS-????-#####", letters=LETTERS),
                           fake.password(length=24, special_chars=False),
                           fake.unique.bothify("SN-########"), fake.unique.hexify("^" * 14, upper=True))
                      for i in range(size)]
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
