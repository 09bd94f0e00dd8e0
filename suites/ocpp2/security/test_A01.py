"""A01 — Update the station's password for HTTP Basic authentication (security profiles 1 and 2): the operator
has the CSMS set a new SecurityCtrlr.BasicAuthPassword by SetVariables; a station that accepts it reconnects
with it, and from then on the CSMS admits the new password and refuses the old one. The 1.6 counterpart is
SECURITY16 (ChangeConfiguration AuthorizationKey). docs/requirements/security.md.

The new password is the profile's for the rest of the run (as a rotated 1.6 key is): the harness cannot set the
old one back at a CSMS under test that chose the new one. It is masked in every output from the moment it is on
the wire (harness.wire: the attributeValue of a BasicAuthPassword item), and registered as a secret once read.
"""

import secrets

import pytest

from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.suite import OCPP2, TC, case, checks, needs
from harness.usecases.transport import expect_refused
from harness.verdict import check_equal, require, violated
from harness.wire import REDACTOR

FACTS = "facts ocpp-j.md Security profiles (password 16-40 characters; errata: up to the configured maximum, 40-64)"
WHITEPAPER = "OCPP 1.6 security whitepaper"
PASSWORD = {"component": {"name": "SecurityCtrlr"}, "variable": {"name": "BasicAuthPassword"}}


class A01(RuleTable):
    """The rules of A01 (OCPP 2.0.1 part 2 A01; the same in 2.1)."""
    request = must("OCPP 2.0.1 A01.FR.02 (tzi-OCTT TC_A_09_CSMS)", "the CSMS sets the password by SetVariables "
                   "of SecurityCtrlr.BasicAuthPassword", by=CSMS)
    password_length = should(FACTS, "the new password is 16 to 64 characters", by=CSMS)
    accepted = should(f"{FACTS}; tzi-OCTT TC_A_09_CSMS step 2", "a station accepts a password of 16 to 64 "
                      "characters: attributeStatus Accepted", by=CS)
    short_refused = should(FACTS, "a station does not take a password shorter than 16 characters", by=CS)
    long_refused = should(FACTS, "a station does not take a password longer than 64 characters (above any "
                          "configured maximum)", by=CS)
    reconnects = should(f"{WHITEPAPER} A01 scenario 3-4 (the station disconnects and connects with the new "
                        "password)", "a station that accepted the password reconnects with it", by=CS)
    new_admitted = must(f"OCPP 2.0.1 A01.FR.03 (tzi-OCTT TC_A_09_CSMS step 4); {WHITEPAPER} A01.FR.03",
                        "once the station accepted, the CSMS admits the new password", by=CSMS)
    old_refused = must(f"OCPP 2.0.1 A01.FR.03 (tzi-OCTT TC_A_09_CSMS); {WHITEPAPER} A01.FR.03",
                       "once the station accepted, the CSMS no longer admits the old password", by=CSMS)


pytestmark = case("A01", block="Security", roles=("csms", "cs"), protocols=OCPP2, requires=["advanced_security"])


def _with_a_password(given):
    if not given.profile.password:
        raise NotApplicable("the profile sets no [station] password (security profiles 1 and 2)")


def _new_password(change) -> str:
    items = [item for item in change.request["setVariableData"]
             if item["component"]["name"] == "SecurityCtrlr" and item["variable"]["name"] == "BasicAuthPassword"]
    if not items:
        violated(A01.request, "the SetVariablesRequest sets no SecurityCtrlr.BasicAuthPassword",
                 expected=PASSWORD, actual=[{k: i[k] for k in ("component", "variable")}
                                            for i in change.request["setVariableData"]])
    return items[0]["attributeValue"]


async def _password_back(ocpp, profile, password: str) -> None:
    """The test leaves the CSMS under test as it found it: the operator sets the station's password before the
    rotation (the actuator's set_basic_auth_password), and the harness's station uses it again."""
    REDACTOR.register(password, identity=profile.identity)
    await ocpp.act(CSMS, "set_basic_auth_password", station=profile.identity, password=password)
    profile.rotated_password[profile.identity] = password


@checks(A01.request, A01.password_length, A01.accepted, A01.reconnects, A01.new_admitted, A01.old_refused,
        csms=TC("TC_A_09_CSMS", "ocpp2.0.1"))
@needs(_with_a_password)
async def test_password_updated(ocpp, profile):
    """SetVariables BasicAuthPassword, Accepted, the station reconnects with the new password, which the CSMS
    admits; the old one it refuses."""
    old, before, mark = profile.password, ocpp.connections(), ocpp.mark()
    await ocpp.act(CSMS, "rotate_basic_auth_password")
    if ocpp.is_sut(CSMS):
        ocpp.undo("give the station its BasicAuthPassword back", lambda: _password_back(ocpp, profile, old))
    change = await ocpp.expect("SetVariables", sender=CSMS, after=mark, rule=A01.request)
    password = _new_password(change)
    REDACTOR.register(password, identity=profile.identity)
    if ocpp.is_sut(CSMS):
        require(16 <= len(password) <= 64, A01.password_length, "the new password's length is outside the limits",
                expected="16 to 64 characters", actual=f"{len(password)} characters")
    status = change.result["setVariableResult"][0]["attributeStatus"]
    if ocpp.is_sut(CS) and status == "Accepted":
        ocpp.harness_csms.password_put_back(old)   # a station keeps it beyond the run
    if ocpp.is_sut(CS):
        check_equal(A01.accepted, "SetVariablesResult attributeStatus (BasicAuthPassword)", "Accepted", status)
    if status != "Accepted":
        return   # the station keeps its password (A01.FR.04): nothing more to see
    connection = await ocpp.reconnected(before)
    if ocpp.is_sut(CS):
        require(connection is not None, A01.reconnects, "the station did not reconnect with its new password",
                expected="a new connection", actual="none within the connect timeout")
        return
    require(connection is not None, A01.new_admitted, "the CSMS refused the new password",
            expected="an upgraded connection", actual="no connection")
    await expect_refused(ocpp, profile.identity, old, status=401, what="the old BasicAuthPassword",
                         rule=A01.old_refused)


async def not_taken(ocpp, profile, password: str, rule) -> None:
    """SetVariables BasicAuthPassword ``password``: the station does not answer Accepted. One that does has that
    password from now on: it becomes the profile's, so that the run goes on."""
    REDACTOR.register(password, identity=profile.identity)
    old = profile.password
    exchange = await ocpp.exchange(CSMS, "SetVariables", {"setVariableData": [PASSWORD | {"attributeValue": password}]})
    status = exchange.result["setVariableResult"][0]["attributeStatus"]
    if status == "Accepted":
        profile.password_rotated(password)
        ocpp.harness_csms.password_put_back(old)   # a station keeps it beyond the run
    require(status != "Accepted", rule, f"the station accepted a password of {len(password)} characters",
            expected="Rejected", actual=status)


@pytest.mark.sut_roles("cs")
@checks(A01.short_refused)
@needs(_with_a_password)
async def test_a_password_too_short_is_not_taken(ocpp, profile):
    """A password of 8 characters (below the 16 the texts name): not Accepted."""
    await not_taken(ocpp, profile, "short-pw", A01.short_refused)


@pytest.mark.sut_roles("cs")
@checks(A01.long_refused)
@needs(_with_a_password)
async def test_a_password_too_long_is_not_taken(ocpp, profile):
    """A password of 65 characters (above the 64 the errata allow at most): not Accepted."""
    await not_taken(ocpp, profile, secrets.token_urlsafe(64)[:65], A01.long_refused)
