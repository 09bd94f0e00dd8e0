"""Legal variants of the references: systems that take another reading of a freedom the texts leave, and that
every suite test they play must pass (or find not applicable), never fail nor break. Each record names the
variant class, the reading it takes with the spec line that allows it, and the tests it plays, in the order
given, in one run: a variant that keeps its state (as real hardware does) sees what the tests before left
behind. ``test_legal_variants.py`` plays them. Imported as the top-level module ``legal_variants`` (this
folder is on the path, see tests/conftest.py), played with ``--embedded-sut legal_variants:<Class>``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from dataclasses import dataclass
from typing import Any


from harness import clock
from harness import smartcharging as sc
from harness.ocpp.framing import UNKNOWN_ID, Call, CallError, FrameError, parse, serialize
from harness.ocpp.rpc import RpcEndpoint
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms, ReferenceCsms16, ReferenceStation, ReferenceStation16
from harness.transport.tls import TLS12
from harness.transport.ws import CallErrorReply
from verdict_variants import StationThatKeepsItsState   # a 2.x station as real hardware is: state outlives a test

V16, V201, V21 = "ocpp1.6", "ocpp2.0.1", "ocpp2.1"


def node(path: str, test: str, role: str, protocol: str, *params: str) -> str:
    return f"suites/{path}::{test}[{'-'.join((role, protocol, *params))}]"


C25, C15 = "ocpp2/authorization/test_C25.py", "ocpp2/authorization/test_C15.py"
E04, E13 = "ocpp2/transactions/test_E04.py", "ocpp2/transactions/test_E13.py"
E14, E03 = "ocpp2/transactions/test_E14.py", "ocpp2/transactions/test_E03.py"
K06, K11 = "ocpp2/smartcharging/test_K06.py", "ocpp2/smartcharging/test_K11.py"
CACHE16 = "ocpp16/authorization/test_CACHE16.py"
AUTH16 = "ocpp16/authorization/test_AUTH16.py"
FIRMWARE16 = "ocpp16/firmware/test_FIRMWARE16.py"
SIGNEDFIRMWARE16 = "ocpp16/security/test_SIGNEDFIRMWARE16.py"
METER16, RESET16 = "ocpp16/meter/test_METER16.py", "ocpp16/reset/test_RESET16.py"
RPC, K05 = "ocpp/transport/test_RPC.py", "ocpp2/smartcharging/test_K05.py"
MALFORMED = "test_malformed_call_is_refused_with_the_code_for_its_fault"


# ---------------------------------------------------------------------- state that outlives a test
class ChargePointThatKeepsItsConnectors(ReferenceStation16):
    """A 1.6 charge point as real hardware is: its connectors stay from one test to the next, and an idTag
    authorized without a cable waits at its connector for one (Preparing) until ConnectionTimeOut, which is
    longer than a test."""

    kept: dict[str, Any] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.connectors = type(self).kept.setdefault("connectors", self.connectors)


# ---------------------------------------------------------------------- another reading of a text
class StationCappedOnlyByItsMax(ReferenceStation):
    """Reports EVSE 0's composite from its caps alone (ChargingStationMaxProfile, external limits at 0): its
    TxDefaultProfiles at EVSE 0 are the defaults of the EVSEs' transactions, not a limit of the station."""

    def on_GetCompositeSchedule(self, _: None, payload: dict) -> dict:
        return sc.answer_get_composite_schedule(self.profiles, self.smart, payload, self.engine_version,
                                                clock.utcnow(), station_defaults=False)


# ---------------------------------------------------------------------- answers late, within the bound
class CentralSystemAnsweringLate(ReferenceCsms16):
    """A 1.6 central system that takes most of the call timeout to answer each CALL (legal: an answer within
    the timeout), so the harness's charge point, one CALL at a time, sends its next ones late."""

    async def dispatch(self, session, call):
        await asyncio.sleep(0.45 * self.profile.timeouts.call)   # variance may add up to half again
        return await super().dispatch(session, call)


# ---------------------------------------------------------------------- several transactions per idTag
class CentralSystemAllowingConcurrentTransactions(ReferenceCsms16):
    """A 1.6 central system that lets one idTag charge at two connectors: the second StartTransaction is Accepted,
    not ConcurrentTx (found by the interop ledger: ocpp-csms, ocpp-broker and arthexis all answer so)."""

    def id_tag_info(self, session, id_tag, *, charging=False):
        return super().id_tag_info(session, id_tag)


# ---------------------------------------------------------------------- optional features refused
class StationWithoutProfileReports(ReferenceStation):
    """Sets charging profiles but does not implement GetChargingProfiles (K09): CALLERROR NotSupported."""

    def on_GetChargingProfiles(self, _: None, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "GetChargingProfiles is not supported")


class CsmsWithoutExternalLimits(ReferenceCsms):
    """Does not implement NotifyChargingLimit (K12): CALLERROR NotSupported."""

    def on_NotifyChargingLimit(self, session, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "NotifyChargingLimit is not supported")


class ChargePointWithoutSmartCharging(ReferenceStation16):
    """A 1.6 charge point without the optional Smart Charging profile: its messages are CALLERROR NotSupported."""

    def _not_supported(self, _: None, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "the Smart Charging profile is not supported")

    on_SetChargingProfile = on_GetCompositeSchedule = on_ClearChargingProfile = _not_supported


class StationWithoutWebPayment(ReferenceStation):
    """A 2.1 station without web payment: NotifyWebPaymentStarted is answered NotSupported, and a driver's
    transaction starts on the EVSE as on any other."""

    def on_NotifyWebPaymentStarted(self, _: None, payload: dict) -> dict:
        raise CallErrorReply("NotSupported", "web payment is not supported by this station")


# ---------------------------------------------------------------------- messages after a reboot
class ChargePointReportsInstalledAfterItsReboot(ReferenceStation16):
    """A 1.6 charge point that reboots into the new firmware before it reports it: Installing on the old
    connection, then the reboot, and Installed once it has booted on the new one."""

    installed_after_boot = False

    async def _notify(self, action: str, status: str) -> None:
        if status == "Installed":
            self.installed_after_boot = True
            return
        await super()._notify(action, status)

    def went_online(self) -> None:
        super().went_online()
        if self.installed_after_boot:
            self.installed_after_boot = False
            self.background.spawn(super()._notify("FirmwareStatusNotification", "Installed"))


class ChargePointWithATerseSecureUpdate(ReferenceStation16):
    """A 1.6 charge point of the security extension that reports no SignatureVerified and no Installing (its
    bootloader installs), and reports InvalidFirmwareSignature before the InvalidSignature status."""

    reported_first = False

    async def _signed_status(self, status: str, request_id: int) -> None:
        if status in ("SignatureVerified", "Installing"):
            return
        if status == "InvalidSignature":
            self.reported_first = True
            await super().security_event("InvalidFirmwareSignature", "the signature does not verify")
        await super()._signed_status(status, request_id)

    async def security_event(self, kind: str, tech_info: str | None = None) -> None:
        if kind == "InvalidFirmwareSignature" and self.reported_first:
            self.reported_first = False
            return
        await super().security_event(kind, tech_info)


# ---------------------------------------------------------------------- a CSMS reading frames its own way
class _CsmsWithItsOwnEndpoints(ReferenceCsms):
    """A CSMS whose connections' endpoints read frames its own way (``adapt``), from the first frame on."""

    def _on_connect(self, identity, version):
        handler, attach = super()._on_connect(identity, version)

        async def attach_adapted(connection) -> None:
            self.adapt(connection.endpoint, version)
            await attach(connection)

        return handler, attach_adapted

    def adapt(self, endpoint: RpcEndpoint, version: OcppVersion) -> None:
        raise NotImplementedError


class CsmsWithoutDataTransfer(_CsmsWithItsOwnEndpoints):
    """A 2.x CSMS that leaves out the optional DataTransfer: it answers every DataTransfer NotImplemented before it
    reads the payload, and its actuator cannot send one."""

    def adapt(self, endpoint: RpcEndpoint, version: OcppVersion) -> None:
        receive = endpoint.receive

        def receive_refusing_data_transfer(text, now):
            try:
                frame = parse(text, version)
            except FrameError:
                return receive(text, now)
            if isinstance(frame, Call) and frame.action == "DataTransfer":
                endpoint.send_raw(serialize(CallError(frame.id, "NotImplemented", "no DataTransfer here")), now)
                return []
            return receive(text, now)

        endpoint.receive = receive_refusing_data_transfer

    def supported_actions(self) -> set[str]:
        return super().supported_actions() - {"data_transfer"}


class CsmsAnsweringEveryUnreadableFrameMinusOne(_CsmsWithItsOwnEndpoints):
    """A 2.x CSMS that answers every frame it cannot take as a CALL, an unknown message type included, with the
    framework error's message id "-1" (it does not read the id of a frame it does not understand)."""

    def adapt(self, endpoint: RpcEndpoint, version: OcppVersion) -> None:
        reply = endpoint.frame_error_reply
        endpoint.frame_error_reply = lambda error: (None if reply(error) is None
                                                    else dataclasses.replace(reply(error), id=UNKNOWN_ID))


class CsmsWithAnActuatorFromBeforeK05(ReferenceCsms):
    """A 2.x CSMS whose actuator adapter was written before K05: its request_start_transaction knows no charging
    profile and drops the keys it does not know; it has no action for a remote start with a profile."""

    async def act_request_start_transaction(self, evse_id=None, id_token=None, remote_start_id=None, station=None,
                                            **unknown_keys):
        await super().act_request_start_transaction(evse_id=evse_id, id_token=id_token,
                                                    remote_start_id=remote_start_id, station=station)

    def supported_actions(self) -> set[str]:
        return super().supported_actions() - {"request_start_transaction_with_profile"}


class _PendingFirst:
    """The first boot on each connection answered Pending (unless its operator set how boots are answered), the
    next Accepted."""
    operator_set = False

    async def act_set_registration(self, status, station=None):
        self.operator_set = True
        await super().act_set_registration(status, station)

    def boot_status(self, session, status):
        status = super().boot_status(session, status)
        if status == "Accepted" and not self.operator_set and not getattr(session, "pended", False):
            session.pended = True
            return "Pending"
        return status


class CsmsPendingFirst(_PendingFirst, ReferenceCsms):
    pass


class CentralSystemPendingFirst(_PendingFirst, ReferenceCsms16):
    pass


class StationReportingTheCableAfterItsEvent(ReferenceStation):
    """A cable plugged in: the TransactionEvent it causes first, the StatusNotification Occupied after it."""

    async def act_plug_in(self, evse_id=1, connector_id=None):
        state = self.evses[evse_id]

        async def plug():
            state.plugged = True
            if state.transaction is None and self.starts_now(state):
                await self.start_transaction(state, "CablePluggedIn", state.authorized)
            elif state.transaction is not None and state.transaction.id_token is not None:
                await self.call("TransactionEvent", self._event(state, "Updated", "CablePluggedIn",
                                                                chargingState="Charging"))
            await self.send_and_go_on("StatusNotification", self.status_payload(
                evse_id, connector_id or state.evse.connectors[0], "Occupied"))

        self.background.spawn(plug())


class StationSamplingItsTransactions(ReferenceStation):
    """SampledDataCtrlr.TxUpdatedInterval 7 s out of the box: every running transaction sends a TransactionEvent
    Updated (MeterValuePeriodic) with the energy register every 7 s, between the test's steps."""
    tx_updated_interval = 7


class StationStartingAtTheCable(ReferenceStation):
    """TxStartPoint EVConnected: the cable starts a transaction (triggerReason CablePluggedIn, no idToken yet);
    a remote start for that EVSE is Accepted with the running transaction's transactionId, and the transaction
    goes on: TransactionEvent Updated, triggerReason RemoteStart, with the remoteStartId and the idToken."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.variables[("TxCtrlr", "TxStartPoint")] = "EVConnected"

    def on_RequestStartTransaction(self, session: Any, payload: dict) -> dict:
        state = self.evses.get(payload.get("evseId"))
        tx = state.transaction if state is not None else None
        if tx is None or tx.id_token is not None:
            return super().on_RequestStartTransaction(session, payload)
        tx.id_token = payload["idToken"]
        event = self._event(state, "Updated", "RemoteStart", chargingState="Charging",
                            remoteStartId=payload["remoteStartId"]) | {"idToken": payload["idToken"]}
        self.background.spawn(self.call("TransactionEvent", event))
        return {"status": "Accepted", "transactionId": tx.id}


class StationSuspendingAtTheTimeLimit(ReferenceStation):
    """F07 (2.1): at its maxTime the transaction is suspended (Updated, triggerReason TimeLimitReached, chargingState
    SuspendedEVSE) and left to the driver or the CSMS to end, rather than ended by the station."""

    async def _time_limited(self, state, tx, max_time):
        await asyncio.sleep(max_time)
        if state.transaction is tx:
            await self.suspend(state, "TimeLimitReached")


class StationResettingWithoutNotice(ReferenceStation):
    """B13 (2.1): a transaction kept through an ImmediateAndResume reset gets no Updated event before the restart;
    only its resumption (TxResumed) is reported."""

    async def call(self, action, payload):
        if action == "TransactionEvent" and payload.get("triggerReason") == "ResetCommand" \
                and payload.get("eventType") == "Updated":
            return {}
        return await super().call(action, payload)


# ---------------------------------------------------------------------- TLS: the other mandatory pair, TLS 1.2 alone
class StationOfferingOnlyTheRsaPair(ReferenceStation):
    """Speaks TLS 1.2 alone and offers the static-RSA pair of mandatory suites, nothing else."""

    def station_tls(self, end):
        return dataclasses.replace(end, versions=(TLS12, TLS12), ciphers="AES128-GCM-SHA256:AES256-GCM-SHA384")


class StationOnTls12WithOpenSslDefaults(ReferenceStation):
    """Speaks TLS 1.2 at most and offers OpenSSL's default suites (the mandatory ones among them, and suites a TLS
    1.0 server can use): a server speaking only TLS 1.0 answers it with a TLS 1.0 ServerHello, which it refuses."""

    def station_tls(self, end):
        return dataclasses.replace(end, versions=(TLS12, TLS12), ciphers="DEFAULT")


class CsmsOnTls12Only(ReferenceCsms):
    """Serves TLS 1.2 and not 1.3."""

    def csms_tls(self, end):
        return dataclasses.replace(end, versions=(TLS12, TLS12))


@dataclass(frozen=True)
class LegalVariant:
    name: str
    cls: type                 # a subclass of a reference, importable as legal_variants:<name>
    reading: str              # the legal reading it takes, with the spec line that allows it
    plays: tuple[str, ...]    # node ids, played in this order in one run: each must pass or be not applicable

    @property
    def embedded_sut(self) -> str:
        return f"{__name__}:{self.cls.__name__}"


def _k(file: str, test: str, role: str, *params: str) -> str:
    return node(f"ocpp2/smartcharging/test_{file}.py", test, role, V201, *params)


CRITERIA = ("every-evse", "station-level", "one-evse", "purpose", "stack-level", "ids", "source-cso",
            "purpose-at-station-level")
CLEARED = ("by-id", "station-level", "one-evse", "purpose-everywhere", "stack-level", "station-max")
SOURCES = ("EMS", "SO", "Other")
SP2, SP3 = "ocpp/security/test_SP2.py", "ocpp/security/test_SP3.py"
SUITES = ("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
          "TLS_RSA_WITH_AES_128_GCM_SHA256", "TLS_RSA_WITH_AES_256_GCM_SHA384")
REFUSED = ("spec 002 Errors (NotSupported: recognised, not supported); OCPP 2.0.1 part 4 §4.3; smart charging is "
           "an optional profile (spec 002 What the service does 2; OCPP 2.0.1 part 0 Certification profiles)")

VARIANTS: tuple[LegalVariant, ...] = (
    LegalVariant("station-suspending-at-the-time-limit", StationSuspendingAtTheTimeLimit,
                 "F07: the transaction whose maxTime has passed is suspended with triggerReason TimeLimitReached "
                 "instead of ended (TriggerReasonEnumType TimeLimitReached serves an Updated event as well; the F07 "
                 "texts could not be checked)",
                 (node("ocpp2/remotecontrol/test_F07.py", "test_remote_start_with_a_time_limit", "cs", V21),)),
    LegalVariant("station-resetting-without-notice", StationResettingWithoutNotice,
                 "B13: no TransactionEvent before the ImmediateAndResume restart; the kept transaction is reported "
                 "once resumed (TxResumed) (the B13 texts could not be checked: which events precede the restart is "
                 "left open)",
                 (node("ocpp2/provisioning/test_B13.py", "test_reset_and_resume_keeps_the_transaction", "cs", V21),)),
    LegalVariant("station-starting-at-the-cable", StationStartingAtTheCable,
                 "TxStartPoint EVConnected: the transaction starts when the cable comes in, and a remote start names "
                 "it in RequestStartTransactionResponse.transactionId (its schema description: the transaction the "
                 "station had started before the request) and goes on with an Updated event; a token presented "
                 "after the cable (offline too) comes in an Updated event, and the Authorized Updated event follows "
                 "the Started one at once (the harness holds only the event its test refuses)",
                 (node("ocpp2/remotecontrol/test_F01.py", "test_remote_start_after_the_cable", "cs", V201),
                  node("ocpp2/remotecontrol/test_F01.py", "test_remote_start_after_the_cable", "cs", V21),
                  node(E13, "test_refused_event_is_sent_again", "cs", V201),
                  node(E13, "test_event_discarded_after_the_last_attempt", "cs", V201),
                  node(E14, "test_status_of_an_ended_transaction_with_its_event_queued", "cs", V201),
                  node(E04, "test_transaction_started_offline", "cs", V201),
                  node(E04, "test_transaction_started_and_ended_offline", "cs", V201),
                  node("ocpp2/authorization/test_C14.py", "test_listed_token_starts_offline", "cs", V201),
                  node(C15, "test_unknown_token_offline", "cs", V201),
                  node(C15, "test_refused_offline_transaction_moves_as_configured", "cs", V201),
                  node(C15, "test_refused_offline_start_from_the_cache_moves_as_configured", "cs", V201,
                       "StopTxOnInvalidId"),
                  node("ocpp2/smartcharging/test_K07.py", "test_default_applies_to_a_transaction_started_offline",
                       "cs", V201))),
    LegalVariant("csms-pending-first", CsmsPendingFirst,
                 "every station's first boot on a connection answered Pending, the next one (after the interval) "
                 "Accepted: a CSMS may answer Pending and prepare the station first, a registered one too (OCPP "
                 "2.0.1 B02; RegistrationStatusEnumType); the harness's station sends nothing else until accepted, "
                 "a transaction it resumes after a power loss neither (E17)",
                 (node("ocpp/transport/test_CONN.py", "test_boot_is_accepted", "csms", V201),
                  node(SP2, "test_csms_serves_tls_with_a_valid_certificate", "csms", V201),
                  node("ocpp2/authorization/test_C01.py", "test_presented_token_gets_its_status", "csms", V201,
                       "Accepted"),
                  node("ocpp2/smartcharging/test_K01.py", "test_several_profiles_during_a_transaction", "csms",
                       V201),
                  node("ocpp2/transactions/test_E17.py", "test_power_loss_within_the_timeout_resumes", "csms", V21,
                       "energy"))),
    LegalVariant("central-system-pending-first", CentralSystemPendingFirst,
                 "every charge point's first boot on a connection answered Pending, the next one Accepted (spec 002 "
                 "Enumerations RegistrationStatus: Pending, the central system not yet ready)",
                 (node("ocpp16/boot/test_BOOT16.py", "test_boot_is_accepted", "csms", V16),
                  node(AUTH16, "test_presented_tag_gets_its_status", "csms", V16, "Accepted"))),
    LegalVariant("station-reporting-the-cable-after-its-event", StationReportingTheCableAfterItsEvent,
                 "the TransactionEvent a cable causes before the StatusNotification Occupied (the texts order neither "
                 "report; spec 001 Events, OCPP 2.0.1 G01 and E01); the harness plugs in after the station took "
                 "the token, as a driver does",
                 (node(E03, "test_authorization_first_then_cable", "cs", V21),
                  node(E03, "test_authorization_first_then_cable", "cs", V201))),
    LegalVariant("station-sampling-its-transactions", StationSamplingItsTransactions,
                 "TransactionEvent Updated (MeterValuePeriodic) every SampledDataCtrlr.TxUpdatedInterval seconds of a "
                 "transaction, 7 s here (spec 001 J02; the interval is the station's setting): a test that refuses one "
                 "event holds that event alone",
                 (node(E14, "test_status_of_an_ongoing_transaction_with_an_event_queued", "cs", V201),
                  node(E13, "test_refused_event_is_sent_again", "cs", V201),
                  node(E04, "test_transaction_started_and_ended_offline", "cs", V201))),
    LegalVariant("station-keeps-its-transactions-through-an-outage", StationThatKeepsItsState,
                 "a transaction started before an outage runs on after it until it is stopped (spec 001 Moves: "
                 "TxProfile, the station goes offline during a transaction), and a remote start on an occupied "
                 "EVSE is Rejected (RequestStartTransactionResponse status)",
                 (node(K06, "test_tx_profile_holds_through_an_outage", "cs", V201, "lasting"),
                  node(K06, "test_tx_profile_holds_through_an_outage", "cs", V201, "expiring"),
                  node(K11, "test_external_limit_changes_the_rate_of_a_transaction", "cs", V201, "evse"),
                  node(K11, "test_external_limit_changes_the_rate_of_a_transaction", "cs", V201, "station"))),
    LegalVariant("charge-point-keeps-a-pending-authorization", ChargePointThatKeepsItsConnectors,
                 "an idTag presented without a cable stays authorized at its connector until ConnectionTimeOut "
                 "(spec 002 ChargePointStatus Preparing: tag presented, no transaction yet), so a cable plugged "
                 "in there later starts a transaction on it",
                 (node(CACHE16, "test_expired_cached_identifier_is_asked_again_online", "cs", V16),
                  node(CACHE16, "test_expired_cached_identifier_is_refused_offline", "cs", V16))),
    LegalVariant("charge-point-reports-installed-after-its-reboot", ChargePointReportsInstalledAfterItsReboot,
                 "FirmwareStatusNotification Installed sent after the reboot, on the new connection (spec 002 What "
                 "the service does 4 orders the statuses, not the connection they come on)",
                 (node(FIRMWARE16, "test_firmware_is_installed_and_the_charge_point_reboots", "cs", V16),)),
    LegalVariant("charge-point-with-a-terse-secure-update", ChargePointWithATerseSecureUpdate,
                 "no SignatureVerified and no Installing reported (the white paper's L01 scenario goes from Downloaded "
                 "to Installing; L01.FR.22 lets a bootloader omit Installing), and InvalidFirmwareSignature reported "
                 "before the InvalidSignature status (TC_081_CS: steps 7-10 in any order)",
                 tuple(node(SIGNEDFIRMWARE16, test, "cs", V16) for test in (
                     "test_signed_firmware_is_installed", "test_invalid_signature_is_reported_and_not_installed",
                     "test_trigger_after_invalid_signature_reports_it", "test_trigger_after_installation_reports_idle"))),
    LegalVariant("station-without-web-payment", StationWithoutWebPayment,
                 "NotifyWebPaymentStarted refused with CALLERROR NotSupported: the CSMS 'may' send it (spec 001 "
                 "QR-code payment rule 5), a station need not implement it",
                 (node(C25, "test_web_payment_holds_the_evse", "cs", V21),)),
    LegalVariant("station-without-profile-reports", StationWithoutProfileReports,
                 f"GetChargingProfiles refused with CALLERROR NotSupported: {REFUSED}", (
                _k("K01", "test_profile_with_an_installed_id_replaces_it", "cs"),
                _k("K01", "test_external_profile_cannot_be_replaced_by_id", "cs"),
                _k("K02", "test_tx_profile_is_deleted_when_its_transaction_ends", "cs"),
                _k("K05", "test_remote_start_applies_its_profile", "cs"),
                *(_k("K09", "test_reports_are_what_the_criteria_select", "cs", c) for c in CRITERIA),
                _k("K09", "test_nothing_selected_is_no_profiles", "cs"),
                *(_k("K10", "test_clear_removes_what_it_selects", "cs", c) for c in CLEARED),
                _k("K10", "test_clear_of_only_external_constraints_is_unknown", "cs"),
                *(_k("K12", "test_external_limit_is_reported_under_its_source", "cs", s) for s in SOURCES))),
    LegalVariant("csms-without-external-limits", CsmsWithoutExternalLimits,
                 f"NotifyChargingLimit refused with CALLERROR NotSupported: {REFUSED}", (
                *(_k("K11", "test_external_limit_notifications_are_answered", "csms", s)
                  for s in ("evse", "station")),
                *(_k("K12", "test_external_limit_is_notified", "csms", s) for s in SOURCES))),
    LegalVariant("station-capped-only-by-its-max", StationCappedOnlyByItsMax,
                 "EVSE 0's composite bounded by its caps alone, not by a TxDefaultProfile at EVSE 0: spec 001 K08 "
            "(GetCompositeSchedule) and K01 (TxDefaultProfile at evseId 0, the default of every EVSE) leave it open",
            tuple(_k("K08", "test_composite_is_the_installed_profiles_combined", "cs", name) for name in (
                "station-level", "stack-levels", "minimum-across-purposes", "valid-to", "recurring-daily"))),
    LegalVariant("charge-point-without-smart-charging", ChargePointWithoutSmartCharging,
                 f"SetChargingProfile, GetCompositeSchedule, ClearChargingProfile refused with CALLERROR NotSupported: "
            f"{REFUSED}", tuple(node("ocpp16/smartcharging/test_SC16.py", test, "cs", V16) for test in (
                "test_tx_default_profile_is_installed", "test_charge_point_max_profile_only_at_connector_0",
                "test_tx_profile_without_transaction_is_refused", "test_tx_profile_for_the_running_transaction",
                "test_composite_schedule_is_the_engines", "test_cleared_profile_is_gone"))),
    LegalVariant("csms-without-data-transfer", CsmsWithoutDataTransfer,
                 "a 2.x CSMS without the optional DataTransfer answers it NotImplemented (OCPP 2.0.1 part 4 §4.2.3): "
                 "the malformed CALLs ride on an action every CSMS must take",
                 tuple(node(RPC, MALFORMED, "csms", V201, fault)
                       for fault in ("missing", "type", "property", "extra", "formation", "unknown"))),
    LegalVariant("csms-answering-minus-one", CsmsAnsweringEveryUnreadableFrameMinusOne,
                 "a frame its receiver cannot read is answered with the framework error's id \"-1\" (facts ocpp-j.md; "
                 "OCPP 2.0.1 part 4 §4.2.3)",
                 (node(RPC, "test_unknown_message_type_is_refused_with_a_code_of_the_version", "csms", V201),)),
    LegalVariant("csms-actuator-from-before-k05", CsmsWithAnActuatorFromBeforeK05,
                 "an actuator adapter written before K05 knows no remote start with a profile (design.md Actuators: "
                 "an action's meaning never changes; the new one is request_start_transaction_with_profile): K05 "
                 "does not apply",
                 (node(K05, "test_csms_starts_with_the_profile_it_was_asked_for", "csms", V201),)),
    LegalVariant("central-system-answering-late", CentralSystemAnsweringLate,
                 "every CALL answered within the call timeout but late (spec 002 Framing 4: an answer before the "
                 "CALL times out), so the harness's own messages queue behind the answers they wait for",
                 (node(METER16, "test_sampled_values_during_a_transaction", "csms", V16),
                  node(METER16, "test_empty_stop_lists_send_no_meter_values", "csms", V16),
                  node(METER16, "test_stop_transaction_carries_its_meter_data", "csms", V16),
                  node(RESET16, "test_reset_stops_the_running_transaction", "csms", V16, "Hard"))),
    LegalVariant("central-system-allowing-concurrent-transactions", CentralSystemAllowingConcurrentTransactions,
                 "a second StartTransaction with an idTag already charging is Accepted: ConcurrentTx is for an idTag "
                 "in another transaction when multiple transactions are not allowed (spec 002 Enumerations "
                 "AuthorizationStatus; OCPP 1.6 §7.2), which the central system decides (a SHOULD finding)",
                 (node(AUTH16, "test_charging_tag_is_concurrent_at_start_transaction", "csms", V16),)),
    LegalVariant("station-offering-only-the-rsa-pair", StationOfferingOnlyTheRsaPair,
                 "a station supports the ECDSA pair or the static-RSA pair of the mandatory suites (OCPP 2.0.1 "
                 "A00.FR.319/422; 1.6 white paper A00.FR.318/422) over TLS 1.2 or above (A00.FR.313): the RSA pair "
                 "over TLS 1.2 alone; a TLS 1.0 server shares no suite with it, so it has no old version to report",
                 (node(SP2, "test_station_connects_over_tls_with_basic_auth", "cs", V201),
                  node(SP2, "test_station_offers_a_mandatory_pair_of_cipher_suites", "cs", V201),
                  node(SP2, "test_station_refuses_a_server_speaking_only_old_tls", "cs", V201, "TLSv1.0"),
                  node(SP2, "test_station_reports_the_old_tls_it_refused", "cs", V201),
                  node(SP3, "test_station_presents_its_client_certificate", "cs", V201),
                  node(SP3, "test_station_offers_a_mandatory_pair_of_cipher_suites", "cs", V201))),
    LegalVariant("station-on-tls-1.2-with-openssl-defaults", StationOnTls12WithOpenSslDefaults,
                 "a station speaks TLS 1.2 or above (OCPP 2.0.1 A00.FR.313) and may offer more suites than the "
                 "mandatory ones (A00.FR.319): it finds a TLS 1.0 server by the version of its ServerHello rather "
                 "than by an alert, refuses it and reports InvalidTLSVersion (A00.FR.316)",
                 (node(SP2, "test_station_offers_a_mandatory_pair_of_cipher_suites", "cs", V201),
                  node(SP2, "test_station_refuses_a_server_speaking_only_old_tls", "cs", V201, "TLSv1.0"),
                  node(SP2, "test_station_refuses_a_server_speaking_only_old_tls", "cs", V201, "TLSv1.1"),
                  node(SP2, "test_station_reports_the_old_tls_it_refused", "cs", V201),
                  node(SP3, "test_station_offers_a_mandatory_pair_of_cipher_suites", "cs", V201))),
    LegalVariant("csms-on-tls-1.2-only", CsmsOnTls12Only,
                 "a CSMS speaks TLS 1.2 or above (OCPP 2.0.1 A00.FR.313): TLS 1.2 alone, every mandatory suite "
                 "(A00.FR.318/421) and the client certificate's subject checked",
                 (node(SP2, "test_csms_serves_tls_with_a_valid_certificate", "csms", V201),
                  *(node(SP2, "test_csms_supports_each_mandatory_cipher_suite", "csms", V201, suite) for suite in SUITES),
                  node(SP3, "test_csms_accepts_a_valid_client_certificate", "csms", V201),
                  *(node(SP3, "test_csms_supports_each_mandatory_cipher_suite", "csms", V201, suite) for suite in SUITES),
                  node(SP3, "test_csms_refuses_a_client_certificate_of_another_operator", "csms", V201),
                  node(SP3, "test_csms_refuses_another_station_s_client_certificate", "csms", V201))),
)
