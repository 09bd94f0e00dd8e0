"""The simulated OCPI peers' identities: country code, party id and token A of each.

Drawn from a ``random.Random`` seeded with ``seed`` (not faker: the load process stays lean, see
bench/LEAN.md): the same seed and size give the same parties in every process, the platform that must
accept their tokens A (``python -m harness.load ocpi-platform``) and the load that plays them. A real
platform under test is provisioned from ``python -m harness.load ocpi-roster`` (CSV, tokens included: keep
it out of logs).
"""

from __future__ import annotations

import csv
import io
import random
import string
from dataclasses import dataclass

from harness.load.roster import _unique

COUNTRIES = ("NL", "DE", "BE", "FR", "AT", "CH", "DK", "SE", "NO", "FI", "IT", "ES", "PT", "GB", "IE", "PL")
PARTY = string.ascii_uppercase + string.digits
TOKEN = string.ascii_letters + string.digits + "-_"


@dataclass(frozen=True)
class OcpiParty:
    """One simulated peer: its party and the token A it registers with (never printed)."""
    index: int
    country_code: str
    party_id: str
    token_a: str = ""

    def __repr__(self) -> str:   # the token stays out of tracebacks and logs
        return f"OcpiParty({self.index}, {self.country_code}/{self.party_id})"


class OcpiRoster:
    """``size`` parties drawn from a generator seeded with ``seed``; (country, party id) and tokens A unique."""

    def __init__(self, seed: int, size: int):
        rng = random.Random(seed)
        party = _unique(lambda: f"{rng.choice(COUNTRIES)}/{''.join(rng.choices(PARTY, k=3))}")
        token = _unique(lambda: "".join(rng.choices(TOKEN, k=40)))
        self.parties = [OcpiParty(i, *party().split("/"), token_a=token()) for i in range(size)]

    def __len__(self) -> int:
        return len(self.parties)

    def __getitem__(self, index: int) -> OcpiParty:
        return self.parties[index]

    def csv(self) -> str:
        """What a platform under test must know per peer: country code, party id, token A."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["country_code", "party_id", "token_a"])
        writer.writerows((p.country_code, p.party_id, p.token_a) for p in self.parties)
        return out.getvalue()
