"""C04 — Authorization using a PIN code (idToken type KeyCode).

The CSMS looks the code up and answers Accepted or Invalid; the PIN value SHALL NOT be written to
any log (spec 001 Authorization rule 1) — the harness redacts it from every wire log and report it
produces.
"""

import secrets

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.profile import Token
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks, needs
from harness.usecases.authorization import Authorization, authorize, check_presented_token
from harness.verdict import check_equal
from harness.wire import REDACTOR


class C04(RuleTable):
    """The rules of C04 (spec 001 Authorization rule 1, IdTokenType)."""
    keycode = must("spec 001 IdTokenType (type values: KeyCode); Events: AuthorizeRequest",
                   "a station asks about an entered PIN as it was entered, as an idToken of type KeyCode", by=CS)
    lookup = must("spec 001 Authorization rule 1 (C04.FR.01)",
                  "the CSMS answers a PIN it knows for this station Accepted and any other Invalid", by=CSMS)


pytestmark = case("C04", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)


def _pin(profile, status):
    tokens = [t for t in profile.tokens.values() if t.type == "KeyCode" and t.status == status]
    if not tokens:
        raise NotApplicable(f"the profile declares no KeyCode idToken with status {status}")
    return tokens[0]


@checks(C04.lookup, Authorization.sent, C04.keycode)
@needs(lambda given: _pin(given.profile, "Accepted"))
async def test_valid_pin_is_accepted(ocpp, profile):
    """A valid PIN is answered Accepted; a station sends it as type KeyCode."""
    pin = _pin(profile, "Accepted")
    exchange = await authorize(ocpp, pin)
    if ocpp.is_sut(CS):
        check_presented_token(exchange, pin, C04.keycode)
    else:
        check_equal(C04.lookup, "idTokenInfo.status for a valid PIN", "Accepted",
                    exchange.result["idTokenInfo"]["status"])


@checks(C04.lookup)
@pytest.mark.sut_roles("csms")
async def test_unknown_pin_is_invalid(ocpp, profile):
    """A PIN the CSMS does not know is answered Invalid (C04.FR.01)."""
    known = {t.id for t in profile.tokens.values() if t.type == "KeyCode"}
    code = next(c for c in (f"{secrets.randbelow(10**6):06d}" for _ in range(100)) if c not in known)
    REDACTOR.register(code)
    unknown = Token(name="unknown_pin", id=code, type="KeyCode", status="Invalid", secret=True)
    exchange = await authorize(ocpp, unknown)
    check_equal(C04.lookup, "idTokenInfo.status for an unknown PIN", "Invalid",
                exchange.result["idTokenInfo"]["status"])
