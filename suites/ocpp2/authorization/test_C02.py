"""C02 — Authorization with a start button (no identification).

The driver presses the station's start button: the station asks nobody (no AuthorizeRequest) and its
transaction carries an empty idToken of type NoAuthorization, which the CSMS answers Accepted
(spec 001 Authorization rule 2). A TransactionEventResponse without idTokenInfo refuses nothing, so a
CSMS that leaves it out is not failed; any status but Accepted is. NoAuthorization tokens are not
cached either (rule 2): nothing on the wire shows a station's cache here, so that part is judged by
C10 only where a cache entry shows (the harness does not claim it).
"""

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks, needs
from harness.verdict import check_equal, dig


class C02(RuleTable):
    """The rules of C02 (spec 001 Authorization rule 2)."""
    no_authorize = must("spec 001 Authorization rule 2", "a start-button transaction sends no AuthorizeRequest",
                        by=CS)
    token = must("spec 001 Authorization rule 2; IdTokenType (type NoAuthorization)",
                 "a start-button transaction's TransactionEvent carries idToken type NoAuthorization with an empty "
                 "idToken", by=CS)
    accepted = must("spec 001 Authorization rule 2",
                    "the CSMS answers a TransactionEvent with a NoAuthorization idToken Accepted", by=CSMS)


pytestmark = case("C02", block="Authorization", roles=("csms", "cs"), protocols=OCPP2)

ORDERS = ("button_first", "cable_first")


async def _start_button(ocpp, evse, order):
    """The driver presses the start button at ``evse`` before or after plugging in; returns the first
    TransactionEvent carrying an idToken (a station may report the cable first, without one) and the
    mark taken before the first step."""
    start = ocpp.mark()
    steps = [("press_start_button", {"evse_id": evse}), ("plug_in", {"evse_id": evse})]
    for action, body in steps if order == "button_first" else reversed(steps):
        await ocpp.act(CS, action, **body)
    event = await ocpp.expect("TransactionEvent", sender=CS, after=start, where=lambda p: "idToken" in p,
                              rule=C02.token)
    return start, event


def _check_accepted(ocpp, event):
    """Rule 2 names the CSMS's answer, idTokenInfo.status Accepted: an answer without idTokenInfo is not it."""
    if ocpp.is_sut(CSMS):
        check_equal(C02.accepted, "TransactionEventResponse idTokenInfo.status for a NoAuthorization idToken",
                    "Accepted", dig(event.result, "idTokenInfo.status"))


@pytest.mark.parametrize("order", ORDERS)
@checks(C02.no_authorize, C02.token, C02.accepted)
async def test_start_button_starts_without_authorization(ocpp, profile, order):
    """Button and cable, in either order: a transaction with an empty NoAuthorization idToken, no
    AuthorizeRequest before it, answered Accepted."""
    start, event = await _start_button(ocpp, profile.evses[0].id, order)
    if ocpp.is_sut(CS):
        check_equal(C02.token, "TransactionEvent idToken.type", "NoAuthorization", dig(event.request, "idToken.type"))
        check_equal(C02.token, "TransactionEvent idToken.idToken", "", dig(event.request, "idToken.idToken"))
        await ocpp.expect_none("Authorize", after=start, rule=C02.no_authorize)
    _check_accepted(ocpp, event)


def _two_evses(profile):
    if len(profile.evses) < 2:
        raise NotApplicable("a second start-button transaction needs a second EVSE; the profile declares one")


@checks(C02.accepted)
@pytest.mark.sut_roles("csms")
@needs(lambda given: _two_evses(given.profile))
async def test_second_start_button_transaction_is_accepted(ocpp, profile):
    """Two start-button transactions at once: the empty NoAuthorization token identifies nobody, so the
    second is Accepted too, never ConcurrentTx."""
    await _start_button(ocpp, profile.evses[0].id, "cable_first")
    _, second = await _start_button(ocpp, profile.evses[1].id, "cable_first")
    _check_accepted(ocpp, second)
