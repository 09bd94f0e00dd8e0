"""C08 — Authorization by external identification means while the EV talks ISO 15118 (high-level
communication).

The EV is plugged in and communicating; the driver identifies with external means (card, app) at the
station. Spec 001 Authorization rule 4: this is handled exactly as C01 — the station asks with
AuthorizeRequest, the CSMS answers by the order of checks, a transaction starts (with the token) only
for Accepted, and the CSMS answers its TransactionEvent Accepted too. The plug-in with high-level
communication is the actuator action ``plug_in_hlc``; a station without ISO 15118 (profile feature
``iso15118``) has no such case.
"""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, case, checks, needs
from harness.usecases.authorization import (Authorization, authorize, cached_start, check_presented_token,
                                            never_starts_with, starts_with, token_with)
from harness.verdict import check_equal, dig, require


class C08(RuleTable):
    """The rules of C08 (spec 001 Authorization rule 4, read with C01's)."""
    presented = must("spec 001 Authorization rule 4; Events: AuthorizeRequest",
                     "with the EV communicating over ISO 15118, the station asks about the driver's token with "
                     "AuthorizeRequest, idToken and type as presented", by=CS)
    starts = must("spec 001 Authorization rule 4; Authorization status values",
                  "the EV communicating, an accepted token starts a transaction carrying it; a refused one none",
                  by=CS)
    status = must("spec 001 Authorization rule 4; Order of checks",
                  "the CSMS answers the token as in C01: the status of the order of checks, in the AuthorizeResponse "
                  "and in the TransactionEventResponse of the transaction it starts", by=CSMS)
    event_info = must("OCPP 2.0.1 part 2 TransactionEventResponse (idTokenInfo: required when the request carried "
                      "an idToken); spec 001 Authorization rules 4, 7 (the CSMS SHALL check the token's status) and 8",
                      "the CSMS answers a TransactionEvent that carries the token with that token's idTokenInfo: an "
                      "answer without it says nothing of the token, and is not read as Accepted", by=CSMS)


pytestmark = case("C08", block="Authorization", roles=("csms", "cs"), protocols=OCPP2, requires=["iso15118"])


@pytest.mark.parametrize("status", ["Accepted", "Invalid", "Blocked"])
@checks(C08.status, C08.event_info, Authorization.sent, C08.presented, C08.starts)
@needs(lambda given: token_with(given.profile, given.params["status"]))
async def test_external_identification_with_hlc(ocpp, profile, status):
    """EV plugged in with high-level communication, then the driver's token: asked about, answered with its
    status; a transaction carrying it starts only when it is Accepted."""
    token, evse = token_with(profile, status), profile.evses[0].id
    await ocpp.act(CS, "plug_in_hlc", evse_id=evse)
    start = ocpp.mark()
    exchange = await authorize(ocpp, token, evse_id=evse)
    if ocpp.is_sut(CSMS):
        check_equal(C08.status, f"AuthorizeResponse idTokenInfo.status for the {token.name} token", status,
                    exchange.result["idTokenInfo"]["status"])
        if status == "Accepted":   # the harness's station charges on the CSMS's word
            _, event = await cached_start(ocpp, token, C08.status, evse)
            require("idTokenInfo" in event.result, C08.event_info, "the TransactionEventResponse to the Started event "
                    "that carries the token has no idTokenInfo", expected="idTokenInfo", actual=event.result)
            check_equal(C08.status, "TransactionEventResponse idTokenInfo.status", "Accepted",
                        dig(event.result, "idTokenInfo.status"))
        return
    check_presented_token(exchange, token, C08.presented)
    if status == "Accepted":
        await starts_with(ocpp, token, start, C08.starts)
    else:
        await never_starts_with(ocpp, token, start, C08.starts)
