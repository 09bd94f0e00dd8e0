"""C14 — Authorization through the local list, online and offline (with OCPP 2.0.1 C13, offline).

A token the station's local list holds as Accepted starts a transaction at once, without an
AuthorizeRequest; online, a token the list holds with another status is asked about; offline, the
list decides and the transaction's TransactionEvents go out once the station is back, marked offline.
The CSMS checks the token of every such TransactionEvent and answers its status, offline or not
(Authorization rules 7 and 9).

The station under test gets its list from the harness (Full update, cleared when the test ends); the
harness's own station accepts the token from its own list. A station whose idTokenInfo the CSMS
refuses may end or suspend the transaction afterwards (C15): only the Started event is judged here.
"""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks, needs
from harness.usecases.local_list import asks_about, install_list, plain_token, present_offline, started_with
from harness.verdict import check_equal, dig, require


class C14(RuleTable):
    """The rules of C14 (spec 001 C14, Authorization rules 7 and 9; OCPP 2.0.1 C13, C14)."""
    listed = must("spec 001 Events: SendLocalList (the CSMS installs a list)",
                  "a station accepts a Full update of its local list", by=CS)
    started_without_authorize = must("spec 001 C14 (local list use); OCPP 2.0.1 C14.FR.02",
                                     "a token the local list holds as Accepted starts a transaction without an "
                                     "AuthorizeRequest", by=CS)
    listed_refused_asks = must("OCPP 2.0.1 C14.FR.03",
                               "online, a token the local list holds with another status than Accepted is asked "
                               "about with an AuthorizeRequest", by=CS)
    checked = must("spec 001 Authorization rule 7 (C12, C14)",
                   "the CSMS checks the token of a locally authorized start and answers its status", by=CSMS)
    offline_start = must("spec 001 C14 (local list use offline); OCPP 2.0.1 C13",
                         "offline, a token the local list holds as Accepted starts a transaction, reported once the "
                         "station is back", by=CS)
    offline_flag = must("spec 001 TransactionEventRequest (offline)",
                        "a TransactionEvent of what happened while offline carries offline true", by=CS)
    offline_checked = must("spec 001 Authorization rule 9",
                           "a TransactionEvent with offline true is validated like any other", by=CSMS)


pytestmark = case("C14", block="Authorization", roles=("csms", "cs"), protocols=OCPP2, requires=["local_list"])


async def _listed_start(ocpp, profile, token, *, offline=False):
    """``token`` is in the station's local list as Accepted; a driver presents it and plugs in (while the
    link is down when ``offline``). Returns the mark the station's messages are looked for after and the
    TransactionEvent Started carrying the token."""
    evse = profile.evses[0].id
    rule = C14.offline_start if offline else C14.started_without_authorize
    if ocpp.is_sut(CS):
        await install_list(ocpp, [(token, {"status": "Accepted"})], C14.listed)
    else:
        ocpp.configure(local_authorization=True)
    if offline:
        await present_offline(ocpp, token, evse, rule)
        start = 0   # the connection the station opened after the outage
    else:
        start = ocpp.mark()
        await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=evse)
        await ocpp.act(CS, "plug_in", evse_id=evse)
    event = await started_with(ocpp, token, start, rule)
    return start, event


@pytest.mark.parametrize("status", [
    pytest.param("Accepted", id="known", marks=checks(C14.listed, C14.started_without_authorize, C14.checked)),
    pytest.param("Invalid", id="unknown", marks=checks(C14.listed, C14.started_without_authorize, C14.checked)),
])
@needs(lambda given: plain_token(given.profile, given.params["status"]))
async def test_listed_token_starts_without_authorize(ocpp, profile, status):
    """A station starts for a listed token without asking, even for one the CSMS does not know; the CSMS
    answers the TransactionEvent with the token's own status."""
    token = plain_token(profile, status)
    start, event = await _listed_start(ocpp, profile, token)
    if ocpp.is_sut(CSMS):
        check_equal(C14.checked, f"TransactionEventResponse idTokenInfo.status for the {token.name} token", status,
                    dig(event.result, "idTokenInfo.status"))
        return
    await ocpp.expect_none("Authorize", after=start, rule=C14.started_without_authorize, within=0.01,
                           where=asks_about(token))   # it would have come before the Started event


@checks(C14.listed, C14.listed_refused_asks)
@pytest.mark.sut_roles("cs")
@needs(lambda given: plain_token(given.profile, "Accepted"))
async def test_token_listed_as_refused_is_asked_about_online(ocpp, profile):
    """A token the list holds as Blocked, presented while online, goes to the CSMS in an AuthorizeRequest."""
    token = plain_token(profile, "Accepted")
    await install_list(ocpp, [(token, {"status": "Blocked"})], C14.listed)
    start = ocpp.mark()
    await ocpp.act(CS, "present_id_token", id_token=token.wire(), evse_id=profile.evses[0].id)
    await ocpp.expect("Authorize", sender=CS, after=start, rule=C14.listed_refused_asks, where=asks_about(token))


@checks(C14.listed, C14.offline_start, C14.offline_flag, C14.offline_checked)
@needs(lambda given: plain_token(given.profile, "Accepted"))
async def test_listed_token_starts_offline(ocpp, profile):
    """Offline, a listed token starts a transaction; once back the station reports it with offline true,
    and the CSMS answers the token's status (Accepted) as for any event."""
    token = plain_token(profile, "Accepted")
    _, event = await _listed_start(ocpp, profile, token, offline=True)
    if ocpp.is_sut(CSMS):
        require(event.error is None, C14.offline_checked, "the CSMS answered the offline TransactionEvent with a "
                "CALLERROR", expected="TransactionEventResponse", actual=event.error)
        check_equal(C14.offline_checked, "TransactionEventResponse idTokenInfo.status of an offline event",
                    "Accepted", dig(event.result, "idTokenInfo.status"))
        return
    check_equal(C14.offline_flag, "TransactionEvent offline", True, event.request.get("offline", False))
