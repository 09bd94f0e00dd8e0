"""Variants of the references for the self-checks of the verdict classes of issue #10
(``test_verdict_classes.py``): systems the harness must judge right that are not the references.

Most are NOT faults: a real system keeps its state from test to test, keeps a station it does not know
Pending, leaves out an optional field, needs a reboot to apply a value, names a fault with the code its
version's text gives it. The harness must not fail them. A few are faults whose verdict must show every
rule they break. Imported as the top-level module ``verdict_variants`` (this folder is on the path, see
conftest.py), played with ``--embedded-sut verdict_variants:<Class>``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from catalog.authorization import CsmsAcceptsBlockedToken   # importable: conftest.py puts this folder on sys.path
from catalog_ocpi import Answers403ForAnUnknownToken, ForgetsTheRequestId

from harness.ocpp.errors import OCCURRENCE
from harness.reference import ReferenceCsms, ReferenceCsms16, ReferenceStation, ReferenceStation16
from harness.reference.ocpi import OcpiPeer
from harness.reference.ocpi.sessions import SessionsSender
from harness.reference.ocpi.tokens import TokensReceiver, TokensSender
from harness.reference.tokens import token_key


# ---------------------------------------------------------------------- 2: state that outlives a test
class StationThatKeepsItsState(ReferenceStation):
    """A 2.x station as real hardware is: its EVSEs (and their transactions) and its charging profiles stay
    from one test to the next, whatever the harness's side is."""

    kept: dict[str, Any] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        kept = type(self).kept
        self.evses = kept.setdefault("evses", self.evses)
        self.profiles = kept.setdefault("profiles", self.profiles)
        self.smart = kept.setdefault("smart", self.smart)


class ChargePointThatKeepsItsConnectors(ReferenceStation16):
    """A 1.6 charge point as real hardware is: its connectors (a cable, an idTag authorized and waiting for one,
    a transaction) stay from one test to the next."""

    kept: dict[str, Any] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.connectors = type(self).kept.setdefault("connectors", self.connectors)


class CentralSystemThatRemembers(ReferenceCsms16):
    """A 1.6 central system as a real one is: the transactions it recorded and the registration status it was
    set to stay from one test to the next; its actuator can neither reset a charge point nor change its
    configuration (a test that needs that is not applicable after it started)."""

    kept: dict[str, Any] = {"sessions": {}, "registration": "Accepted"}

    def __init__(self, *args, **kwargs):
        registration = self.kept["registration"]
        super().__init__(*args, **kwargs)
        self.sessions, self.registration = self.kept["sessions"], registration

    @property
    def registration(self) -> str:
        return self.kept["registration"]

    @registration.setter
    def registration(self, status: str) -> None:
        self.kept["registration"] = status

    def supported_actions(self) -> set[str]:
        return super().supported_actions() - {"reset", "change_configuration"}


# ---------------------------------------------------------------------- 3: ConcurrentTx where a transaction starts
class CsmsAuthorizesAChargingTokenToStop(ReferenceCsms):
    """Authorize of a token already in a transaction is Accepted (a driver authorizes to stop it); a second
    TransactionEvent Started with it is ConcurrentTx."""

    def on_Authorize(self, session, payload):
        return {"idTokenInfo": self.tokens.decide(payload["idToken"], station=session.identity,
                                                  currents=self.currents(), in_transaction=False)}


class CsmsAnswersConcurrentTxOnAuthorize(ReferenceCsms):
    """The other reading: step 4 of the order of checks applies to Authorize too (ConcurrentTx there)."""

    def on_Authorize(self, session, payload):
        token = payload["idToken"]
        charging = any(not t.ended and t.id_token and token_key(t.id_token) == token_key(token)
                       for t in session.transactions.values())
        return {"idTokenInfo": self.tokens.decide(token, station=session.identity, currents=self.currents(),
                                                  in_transaction=charging)}


# ---------------------------------------------------------------------- 4: optional fields left out
class CentralSystemLeavesOutStopIdTagInfo(ReferenceCsms16):
    """StopTransaction.conf without IdTagInfo, which is optional (spec 002 Messages StopTransaction)."""

    def on_StopTransaction(self, session, payload):
        super().on_StopTransaction(session, payload)
        return {}


# ---------------------------------------------------------------------- 5: legal answers
class CsmsKeepsStationsPending(ReferenceCsms):
    """A CSMS that does not (yet) know the station: every boot is answered Pending (RegistrationStatus)."""

    def on_BootNotification(self, session, payload):
        return super().on_BootNotification(session, payload) | {"status": "Pending", "interval": 1}


class ReadsBeforeItActs:
    """A CSMS that reads the station's heartbeat interval (GetConfiguration, GetVariables) before every action its
    operator asks for: a CALL of the same action as the one asked for may come first (``ocpp.unsolicited_read``)."""

    async def perform(self, action: str, body: dict[str, Any]) -> None:
        session = self.session(body.get("station"))
        self.background.spawn(session.connection.call(*self.own_read))
        await super().perform(action, body)


class CentralSystemReadsBeforeItActs(ReadsBeforeItActs, ReferenceCsms16):
    """1.6: GetConfiguration of HeartbeatInterval first."""


class CsmsReadsBeforeItActs(ReadsBeforeItActs, ReferenceCsms):
    """2.x: GetVariables of OCPPCommCtrlr.HeartbeatInterval first."""


class ChargePointNeedsARebootForIntervals(ReferenceStation16):
    """MeterValueSampleInterval is changed but applied only after a reboot: RebootRequired (ConfigurationStatus)."""

    def on_ChangeConfiguration(self, session, payload):
        answer = super().on_ChangeConfiguration(session, payload)
        return {"status": "RebootRequired"} if payload["key"] == "MeterValueSampleInterval" else answer


# ---------------------------------------------------------------------- 6: severity from the version's text
class ChargePointSaysProtocolErrorForAMissingField(ReferenceStation16):
    """A missing required field is answered ProtocolError, 1.6's code for a payload that is incomplete."""

    async def connected(self, connection):
        endpoint = connection.endpoint
        endpoint.payload_error_code = lambda problems: "ProtocolError" if problems[0].kind == OCCURRENCE else \
            type(endpoint).payload_error_code(endpoint, problems)
        await super().connected(connection)


# ---------------------------------------------------------------------- 8: every violation, the test's own first
class CsmsAcceptsBlockedTokensAndSendsAStrayAnswer(CsmsAcceptsBlockedToken):
    """A blocked token is answered Accepted (C01.status), and with its boot answer the CSMS sends a
    CALLRESULT that answers no CALL (rpc.matches): a background violation on the connection. (Sent
    at once, not some time later: in the embedded run the test's exchanges take no time on the clock.)"""

    def on_BootNotification(self, session, payload):
        async def stray() -> None:
            await asyncio.sleep(0)
            await session.connection.send_raw('[3,"no-such-call",{}]')

        self.background.spawn(stray())
        return super().on_BootNotification(session, payload)


class CsmsProcessingWithoutASchedule(ReferenceCsms):
    """Every EV's needs are answered Processing and no TxProfile follows (chargingprofile.needs_schedule, rule
    13): the first negotiation K17 takes as its prerequisite, judged by K15."""

    def on_NotifyEVChargingNeeds(self, session, payload):
        return {"status": "Processing"}


class Answers403AndForgetsTheRequestId(Answers403ForAnUnknownToken, ForgetsTheRequestId):
    """An unknown token gets HTTP 403 (ocpi.auth.header), and no answer repeats the request's X-Request-ID
    (ocpi.headers.echo_ids, a background violation of every exchange)."""


class ForgetsTheRequestIdOfCredentials(ForgetsTheRequestId):
    """Only its credentials answers leave out the request's X-Request-ID (ocpi.headers.echo_ids): the
    registration every OCPI test starts with breaks a rule that only the registration's tests judge."""

    def _answer_headers(self, request, module):
        return super()._answer_headers(request, module) if module == "credentials" else \
            super(ForgetsTheRequestId, self)._answer_headers(request, module)


class _BusySessions(SessionsSender):
    async def act_start_session(self, *args, **kwargs):
        await self.act_reserve()   # another driver reserves first
        return await super().act_start_session(*args, **kwargs)

    async def act_update_session(self, session_id, kwh=None, status=None, authorization_reference=None):
        other = (await self.act_start_session()).request_json()["id"]
        await super().act_update_session(other, kwh=1.0)
        return await super().act_update_session(session_id, kwh=kwh, status=status,
                                                authorization_reference=authorization_reference)


class _BusyTokens(TokensReceiver):
    async def act_present_token(self, uid, type="RFID", location_id=None, evse_uid=None):
        await super().act_present_token("OTHER-DRIVER-01", type, location_id, evse_uid)
        return await super().act_present_token(uid, type, location_id, evse_uid)


class BusyCpo(OcpiPeer):
    """Whenever a Session of the test changes, another driver's Session starts and changes too, and another driver
    presents a Token it does not know before the test's Token (a platform sends what happens as it happens): a rule
    about one object is judged on that object's requests alone."""

    modules = OcpiPeer.modules.with_handler(_BusySessions).with_handler(_BusyTokens)


class _BusyTokenIssuer(TokensSender):
    async def _another_driver(self) -> None:
        other = (await super().act_push_token(type="APP_USER")).request_json()
        await super().act_update_token(other["uid"], "APP_USER", valid=False)

    async def act_push_token(self, uid=None, type="RFID", whitelist=None, valid=True):
        await self._another_driver()
        return await super().act_push_token(uid, type, whitelist, valid)

    async def act_update_token(self, uid, type="RFID", valid=None, whitelist=None, language=None):
        await self._another_driver()
        return await super().act_update_token(uid, type, valid, whitelist, language)


class BusyEmsp(OcpiPeer):
    """Before every Token it is asked to push or change, another driver's app Token is pushed and changed (new
    customers sign up as they like): the Token asked for is the one judged."""

    modules = OcpiPeer.modules.with_handler(_BusyTokenIssuer)
