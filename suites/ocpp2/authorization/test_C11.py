"""C11 — Clear the authorization cache.

The operator clears a station's authorization cache: the CSMS sends ClearCacheRequest (an empty
object); a station whose cache is on answers Accepted and forgets every entry (a token it held is
asked about again), one whose cache is off (AuthCacheCtrlr.Enabled false; spec 001 calls it
AuthCacheEnabled) answers Rejected (spec 001 Authorization rule 12). The harness sets the variable at a
station under test for the test (SetVariables, put back afterwards); a station that refuses to is
not applicable.
"""

import pytest

from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.operations import operate
from harness.usecases.authorization import (Authorization, carries, charge_once, present_again, station_cache_on,
                                            station_variable, token_with)
from harness.verdict import check_equal


class C11(RuleTable):
    """The rules of C11 (spec 001 Authorization rule 12; ClearCacheRequest, ClearCacheResponse)."""
    sent = must("spec 001 Other authorization messages: ClearCacheRequest; Endpoints: messages sent by the CSMS",
                "the CSMS sends ClearCacheRequest when the operator clears a station's cache", by=CSMS)
    status = must("spec 001 Authorization rule 12; ClearCacheResponse",
                  "a station answers ClearCache Accepted with its cache on, Rejected with it off", by=CS)
    emptied = must("spec 001 Authorization rule 12; OCPP 2.0.1 C11.FR.03",
                   "after an accepted ClearCache the station holds no entry: a token it had cached is asked about "
                   "again", by=CS)


pytestmark = case("C11", block="Authorization", roles=("csms", "cs"), protocols=OCPP2,
                  requires=["authorization_cache"])


async def clear_cache(ocpp):
    """The operator clears the cache: ClearCache, sent by the harness or triggered at the CSMS under test."""
    return await operate(ocpp, "ClearCache", {}, C11.sent)


@pytest.mark.parametrize("enabled, answer", [
    pytest.param(True, "Accepted", id="enabled",
                 marks=checks(C11.sent, C11.status, csms=TC("TC_C_37_CSMS", "ocpp2.0.1"))),
    pytest.param(False, "Rejected", id="disabled",
                 marks=checks(C11.sent, C11.status, csms=TC("TC_C_38_CSMS", "ocpp2.0.1"),
                              cs=TC("TC_C_38_CS", "ocpp2.0.1"))),
])
async def test_clear_cache(ocpp, profile, enabled, answer):
    """ClearCache reaches the station, which answers Accepted with its cache on and Rejected with it off
    (a CSMS is judged on sending it, whatever the answer)."""
    await station_variable(ocpp, "AuthCacheCtrlr", "Enabled", "true" if enabled else "false")
    exchange = await clear_cache(ocpp)
    check_equal(C11.status, "ClearCacheResponse status", answer, exchange.result["status"])


@checks(Authorization.sent, C11.status, C11.emptied, cs=TC("TC_C_37_CS", "ocpp2.0.1"))
@pytest.mark.sut_roles("cs")
@needs(lambda given: token_with(given.profile, "Accepted"))
async def test_cleared_cache_asks_again(ocpp, profile):
    """A token charged once (so cached as Accepted) is asked about again after an accepted ClearCache."""
    token, evse = token_with(profile, "Accepted"), profile.evses[0].id
    await station_cache_on(ocpp)
    await charge_once(ocpp, token, evse, C11.emptied)
    exchange = await clear_cache(ocpp)
    check_equal(C11.status, "ClearCacheResponse status", "Accepted", exchange.result["status"])
    start = await present_again(ocpp, token, evse)
    await ocpp.expect("Authorize", sender=CS, after=start, rule=C11.emptied, where=carries(token))
