"""The OCPP 1.6 fault catalog: faulty variants of the 1.6 reference central system and charge point.

Like ``catalog`` (2.x): each fault is a small direct subclass of ``ReferenceCsms16`` or
``ReferenceStation16`` that breaks exactly ONE named rule, and a ``Fault`` record names the
suite test(s) that must catch it and the words of the failure that show why. ``test_faults16.py``
plays each selection with the faulty class as the embedded SUT (``--embedded-sut catalog16:<Class>``);
this folder is on ``PYTHONPATH`` for those runs and on ``sys.path`` here (see conftest.py).
"""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from pathlib import Path

from catalog import RPC, Fault, transport_test  # importable: conftest.py puts this folder on sys.path

from harness import pki
from harness.ocpp.errors import FORMAT
from harness.ocpp.meter16 import ENERGY
from harness.reference import ReferenceCsms16, ReferenceStation16
from harness.reference.v16.local_auth import AuthorizationCache
from harness.reference.v16.queue import Queued, TransactionQueue
from harness.transport.ws import CallErrorReply

MODULE = "catalog16"
VERSION = "ocpp1.6"


class _NewestFirst(TransactionQueue):
    """A queue that hands out the newest message first."""

    def push(self, action, payload, owner=None) -> Queued:
        item = Queued(action, payload, owner)
        self._items.insert(0, item)
        return item


class _DropsTheOldestEntry(AuthorizationCache):
    """A full cache that drops its oldest entry, valid or not."""

    def victim(self):
        return next(iter(self._entries))


class _DropsTheNewestEntry(AuthorizationCache):
    """A full cache that drops its newest entry."""

    def victim(self):
        return next(reversed(self._entries))


class _NeverExpires(AuthorizationCache):
    """A cache whose entries stay as received, expiryDate or not."""

    def lookup(self, id_tag, now):
        return self._entries.get(id_tag.casefold())


class _RetriesAtOnce(TransactionQueue):
    """A queue that retries a failed message at once, whatever TransactionMessageRetryInterval says."""

    def failed(self, now, *, attempts, retry_interval):
        return super().failed(now, attempts=attempts, retry_interval=0)


# ------------------------------------------------------------------------------ charge point faults
class ChargePointAuthorizesItsOwnStop(ReferenceStation16):
    """spec 002 What the service does 3: Authorize is sent before the starting idTag stops its transaction."""

    async def present(self, id_tag, connector_id=None):
        if any(c.transaction.id_tag.casefold() == id_tag.casefold() for c in self._running(connector_id)):
            await self.authorize(id_tag)
        await super().present(id_tag, connector_id)


class ChargePointStopsBelowItsStart(ReferenceStation16):
    """Register values grow monotonically: StopTransaction.meterStop is lower than meterStart."""

    def stop_payload(self, connector, tx, reason, id_tag):
        return super().stop_payload(connector, tx, reason, id_tag) | {"meterStop": tx.start["meterStart"] - 1}


class ChargePointNumbersConnectorsWithAGap(ReferenceStation16):
    """Connector numbering: connector 2 is reported as 3 (1, 3: a gap)."""

    def connector_status(self, connector_id, status, error_code="NoError"):
        return super().connector_status(connector_id + 1 if connector_id > 1 else connector_id, status, error_code)


class ChargePointSpellsFormatViolationThe2xWay(ReferenceStation16):
    """1.6 CALLERROR codes: a payload that is not the PDU's structure is answered FormatViolation (2.x)."""

    async def boot(self):
        endpoint = self.connection.endpoint
        endpoint.payload_error_code = lambda problems: \
            "FormatViolation" if problems[0].kind == FORMAT else type(endpoint).payload_error_code(endpoint, problems)
        return await super().boot()


def answering_with(code: str):
    """An endpoint's frame_error_reply that answers every broken frame it answers at all with ``code``."""
    return lambda error: dataclasses.replace(error.reply, code=code) if error.reply is not None else None


class ChargePointAnswersTheFrameworkErrorOf2x(ReferenceStation16):
    """1.6 CALLERROR codes: text that is not JSON is answered RpcFrameworkError, a code only 2.x has."""

    async def connected(self, connection):
        connection.endpoint.frame_error_reply = answering_with("RpcFrameworkError")
        await super().connected(connection)


class CentralSystemAnswersMessageTypeNotSupported(ReferenceCsms16):
    """1.6 CALLERROR codes: a message of a type 1.6 lacks is answered MessageTypeNotSupported, a 2.x code."""

    def _on_connect(self, identity, version):
        handler, attach = super()._on_connect(identity, version)

        async def patched(connection):
            connection.endpoint.frame_error_reply = answering_with("MessageTypeNotSupported")
            await attach(connection)

        return handler, patched


class ChargePointChangesReadonlyKeys(ReferenceStation16):
    """KeyValue.readonly: ChangeConfiguration of a readonly key is Accepted and applied."""

    def on_ChangeConfiguration(self, session, payload):
        known = self.config.get([payload["key"]])["configurationKey"]
        if known and known[0]["readonly"]:
            self.config.set(payload["key"], payload["value"])
            return {"status": "Accepted"}
        return super().on_ChangeConfiguration(session, payload)


class ChargePointReordersItsQueue(ReferenceStation16):
    """Behaviour rule 1: queued transaction messages go out newest first."""

    queue_class = _NewestFirst


class ChargePointRetriesAtOnce(ReferenceStation16):
    """Behaviour rule 2: a failed transaction message is retried without the retry interval."""

    queue_class = _RetriesAtOnce


class ChargePointKeepsItsOldKey(ReferenceStation16):
    """Authentication 4: the new AuthorizationKey is Accepted but the old one is used to reconnect."""

    def on_ChangeConfiguration(self, session, payload):
        key = self.password
        answer = super().on_ChangeConfiguration(session, payload)
        self.password = key
        return answer


class ChargePointAcceptsResetButKeepsRunning(ReferenceStation16):
    """Reset: the charge point answers Accepted and never restarts."""

    async def _restart(self, kind):
        return None


class ChargePointStaysAvailable(ReferenceStation16):
    """ChangeAvailability: Inoperative is answered Accepted, but the connector never reports Unavailable."""

    def on_ChangeAvailability(self, session, payload):
        return {"status": "Accepted"}


class ChargePointStopsForInoperative(ReferenceStation16):
    """ChangeAvailability: a charging connector made Inoperative is answered Accepted instead of Scheduled."""

    def on_ChangeAvailability(self, session, payload):
        return super().on_ChangeAvailability(session, payload) | {"status": "Accepted"}


class ChargePointUnlocksWithoutStopping(ReferenceStation16):
    """UnlockConnector: the connector is unlocked while its transaction runs on (no StopTransaction)."""

    def on_UnlockConnector(self, session, payload):
        return {"status": "Unlocked"}


class ChargePointUnlocksUnknownConnectors(ReferenceStation16):
    """UnlockStatus: a connector the charge point does not have is answered UnlockFailed, not NotSupported."""

    def on_UnlockConnector(self, session, payload):
        answer = super().on_UnlockConnector(session, payload)
        return {"status": "UnlockFailed"} if payload["connectorId"] not in self.connectors else answer


class ChargePointIgnoresStopTransactionOnInvalidId(ReferenceStation16):
    """StopTransactionOnInvalidId true: a refused StartTransaction leaves the transaction running."""

    async def start_charging(self, connector):
        self.config.set("StopTransactionOnInvalidId", "false")
        return await super().start_charging(connector)


class ChargePointKeepsItsCache(ReferenceStation16):
    """ClearCache: answered Accepted, the cache kept (a cached idTag still starts without Authorize)."""

    def on_ClearCache(self, session, payload):
        return {"status": "Accepted"}


class ChargePointTakesOldDifferentialVersions(ReferenceStation16):
    """UpdateStatus VersionMismatch: a Differential update of the list's own version is Accepted."""

    def on_SendLocalList(self, session, payload):
        if payload["updateType"] == "Differential" and payload["listVersion"] <= self.local_list.version:
            self.local_list.version = payload["listVersion"] - 1
        return super().on_SendLocalList(session, payload)


class ChargePointDifferentialDropsUnnamedEntries(ReferenceStation16):
    """UpdateType Differential: an accepted Differential update keeps only the entries it names."""

    def on_SendLocalList(self, session, payload):
        answer = super().on_SendLocalList(session, payload)
        if payload["updateType"] == "Differential" and answer["status"] == "Accepted":
            named = {item["idTag"].casefold() for item in payload.get("localAuthorizationList", [])}
            self.local_list._entries = {tag: info for tag, info in self.local_list._entries.items() if tag in named}
        return answer


class ChargePointAcceptsEveryoneOffline(ReferenceStation16):
    """Behaviour rule 8: offline every identifier is accepted, even one the list holds as not valid."""

    def local_decision(self, id_tag):
        return super().local_decision(id_tag) if self.online else {"status": "Accepted"}


class ChargePointHidesListConflicts(ReferenceStation16):
    """Local list conflict: a StartTransaction.conf contradicting the list is not reported (LocalListConflict)."""

    def id_tag_info_received(self, id_tag, info, action):
        if action != "StartTransaction":
            super().id_tag_info_received(id_tag, info, action)


class ChargePointLetsAnyoneUseTheReservation(ReferenceStation16):
    """Reservation: a reserved connector starts a transaction for another idTag."""

    def reservation_refuses(self, connector, id_tag, parent):
        return False


class ChargePointDropsTheReservationId(ReferenceStation16):
    """StartTransaction: the transaction that uses a reservation does not carry its reservationId."""

    def claim_reservation(self, connector, id_tag, parent):
        super().claim_reservation(connector, id_tag, parent)
        return None


class ChargePointKeepsExpiredReservations(ReferenceStation16):
    """Reservation expiry: the connector stays Reserved after the expiryDate."""

    async def _expire(self, connector, reservation):
        return None


class ChargePointCancelsAnyReservation(ReferenceStation16):
    """CancelReservationStatus: a reservationId that is not active is answered Accepted."""

    def on_CancelReservation(self, session, payload):
        super().on_CancelReservation(session, payload)
        return {"status": "Accepted"}


class ChargePointAcceptsTriggersSilently(ReferenceStation16):
    """TriggerMessage: Accepted, and the requested message never sent."""

    def on_TriggerMessage(self, session, payload):
        return {"status": "Accepted"}


class ChargePointReportsAnOldUpload(ReferenceStation16):
    """DiagnosticsStatus Idle: a triggered DiagnosticsStatusNotification says Uploaded though nothing uploads."""

    async def _send_triggered(self, message, chosen, every):
        if message == "DiagnosticsStatusNotification":
            await self.call(message, {"status": "Uploaded"})
        else:
            await super()._send_triggered(message, chosen, every)


class ChargePointTriggersUnknownConnectors(ReferenceStation16):
    """TriggerMessage: a connector the charge point does not have is answered Accepted."""

    def on_TriggerMessage(self, session, payload):
        return super().on_TriggerMessage(session, payload) | {"status": "Accepted"}


class ChargePointTakesMaxProfilesAnywhere(ReferenceStation16):
    """Smart charging rule 11: a ChargePointMaxProfile for a connector above 0 is Accepted."""

    def on_SetChargingProfile(self, session, payload):
        answer = super().on_SetChargingProfile(session, payload)
        purpose = payload["csChargingProfiles"]["chargingProfilePurpose"]
        return {"status": "Accepted"} if purpose == "ChargePointMaxProfile" else answer


class ChargePointClearsWhatIsNotThere(ReferenceStation16):
    """ClearChargingProfileStatus: clearing a profile that is no longer installed is Accepted, not Unknown."""

    def on_ClearChargingProfile(self, session, payload):
        super().on_ClearChargingProfile(session, payload)
        return {"status": "Accepted"}


class ChargePointSkipsInstalling(ReferenceStation16):
    """FirmwareStatus sequence: Installing is never reported (Downloaded, then Installed)."""

    async def _notify(self, action, status):
        if status != "Installing":
            await super()._notify(action, status)


class ChargePointClaimsItsTransfers(ReferenceStation16):
    """Diagnostics: Uploaded is reported, but nothing was sent to the location."""

    async def _transfer(self, method, url, body=b""):
        return True


# ---------------------------------------------------------------------------- central system faults
class CentralSystemAddressesTheWholeChargePoint(ReferenceCsms16):
    """ChangeAvailability: asked for one connector, the central system sends connectorId 0."""

    async def act_change_availability(self, connector_id, type, station=None):
        await super().act_change_availability(0, type, station)


class CentralSystemUnlocksTheNextConnector(ReferenceCsms16):
    """UnlockConnector: the central system sends the connector after the one it was asked to unlock."""

    async def act_unlock_connector(self, connector_id, station=None):
        await super().act_unlock_connector(connector_id + 1, station)


class ChargePointTakesAnyValue(ReferenceStation16):
    """ChangeConfiguration (OCPP 1.6 §5.3): a writable key takes a value it cannot hold (Accepted, stored)."""

    def on_ChangeConfiguration(self, session, payload):
        status = super().on_ChangeConfiguration(session, payload)
        if status["status"] == "Rejected" and payload["key"].casefold() == "metervaluesampleinterval":
            self.config.set(payload["key"], payload["value"])
            return {"status": "Accepted"}
        return status


class CentralSystemCleansValues(ReferenceCsms16):
    """ChangeConfiguration: the central system sends its own clean-up of the value it was asked to set (digits
    only, or 0), not the value itself."""

    async def act_change_configuration(self, key, value, station=None):
        await super().act_change_configuration(key, "".join(c for c in value if c.isdigit()) or "0", station)


def _refusing(handler: str, when, why: str):
    """A central-system handler that answers a CALL ``when`` selects with a CALLERROR InternalError (``why``),
    and every other as the reference does."""
    def refuse(self, session, payload):
        if when(payload):
            raise CallErrorReply("InternalError", why)
        return getattr(ReferenceCsms16, handler)(self, session, payload)
    return refuse


class CentralSystemFailsOnFaults(ReferenceCsms16):
    """StatusNotification: a fault report (status Faulted) is answered with a CALLERROR InternalError."""

    on_StatusNotification = _refusing("on_StatusNotification", lambda p: p["status"] == "Faulted",
                                       "fault reports are not handled")


class CentralSystemFailsOnAbandonedStarts(ReferenceCsms16):
    """StatusNotification: a connector going back to Available from Preparing (a start given up) is answered
    with a CALLERROR InternalError."""

    def on_StatusNotification(self, session, payload):
        last = self.__dict__.setdefault("_last_status", {})
        previous, last[payload["connectorId"]] = last.get(payload["connectorId"]), payload["status"]
        if previous == "Preparing" and payload["status"] == "Available":
            raise CallErrorReply("InternalError", "an abandoned start is not handled")
        return super().on_StatusNotification(session, payload)


class CentralSystemRemoteStartsAnywhere(ReferenceCsms16):
    """RemoteStartTransaction: the connectorId the central system was asked for is left out (any connector)."""

    async def act_remote_start_transaction(self, id_tag, connector_id=None, station=None):
        await super().act_remote_start_transaction(id_tag, None, station)


class CentralSystemFailsOnFailedInstallations(ReferenceCsms16):
    """FirmwareStatusNotification: InstallationFailed is answered with a CALLERROR InternalError."""

    on_FirmwareStatusNotification = _refusing("on_FirmwareStatusNotification", lambda p: p["status"] == "InstallationFailed",
                                               "a failed installation is not handled")


class CentralSystemDropsTheStartProfile(ReferenceCsms16):
    """RemoteStartTransaction: the charging profile the central system was asked to start with is left out."""

    async def act_remote_start_transaction_with_profile(self, id_tag, connector_id, charging_profile, station=None):
        await super().act_remote_start_transaction(id_tag, connector_id, station)


class CentralSystemPendsRebootedChargePoints(ReferenceCsms16):
    """BootNotification: a charge point that boots a second time (a power loss, a reboot) is left Pending."""

    def on_BootNotification(self, session, payload):
        answer = super().on_BootNotification(session, payload)
        booted = self.__dict__.setdefault("_booted", set())
        if session.identity in booted:
            return answer | {"status": "Pending"}
        booted.add(session.identity)
        return answer


class CentralSystemFailsOnPowerLoss(ReferenceCsms16):
    """StopTransaction: a stop with reason PowerLoss is answered with a CALLERROR InternalError."""

    on_StopTransaction = _refusing("on_StopTransaction", lambda p: p.get("reason") == "PowerLoss",
                                    "power losses are not handled")


class CentralSystemSendsOnlyFullLists(ReferenceCsms16):
    """SendLocalList: asked for a Differential update, the central system sends a Full one."""

    async def act_send_local_list(self, list_version, update_type, local_authorization_list=None, station=None):
        await super().act_send_local_list(list_version, "Full", local_authorization_list, station)


class CentralSystemDropsTheReservationGroup(ReferenceCsms16):
    """ReserveNow: asked for a reservation with a parentIdTag, the central system leaves it out."""

    async def act_reserve_now(self, connector_id, expiry_date, id_tag, reservation_id, parent_id_tag=None,
                              station=None):
        await super().act_reserve_now(connector_id, expiry_date, id_tag, reservation_id, None, station)


class CentralSystemTriggersHeartbeats(ReferenceCsms16):
    """TriggerMessage: whatever it is asked to trigger, the central system asks for a Heartbeat."""

    async def act_trigger_message(self, requested_message, connector_id=None, station=None):
        await super().act_trigger_message("Heartbeat", connector_id, station)


class CentralSystemSetsProfilesForTheWholeChargePoint(ReferenceCsms16):
    """SetChargingProfile: asked for a connector, the central system sends connectorId 0."""

    async def act_set_charging_profile(self, connector_id, cs_charging_profiles, station=None):
        await super().act_set_charging_profile(0, cs_charging_profiles, station)


class CentralSystemMovesTheFirmware(ReferenceCsms16):
    """UpdateFirmware: the central system sends another location than the one it was asked for."""

    async def act_update_firmware(self, location, retrieve_date, retries=None, retry_interval=None, station=None):
        await super().act_update_firmware(location + ".old", retrieve_date, retries, retry_interval, station)


class CentralSystemAcceptsEveryStart(ReferenceCsms16):
    """IdTagInfo: every StartTransaction is Accepted, whatever the idTag's status."""

    def on_StartTransaction(self, session, payload):
        return super().on_StartTransaction(session, payload) | {"idTagInfo": {"status": "Accepted"}}


class CentralSystemNeverPending(ReferenceCsms16):
    """Registration: a central system configured to answer Pending answers Accepted."""

    def on_BootNotification(self, session, payload):
        return super().on_BootNotification(session, payload) | {"status": "Accepted"}


class CentralSystemKeepsTheOldKey(ReferenceCsms16):
    """Authentication 4: after the rotation the old AuthorizationKey still opens a connection."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.first_key = self.profile.authorization_key

    def check_password(self, identity, password):
        return super().check_password(identity, password) or password == self.first_key


class CentralSystemDropsParentIdTag(ReferenceCsms16):
    """Groups: IdTagInfo leaves out the idTag's parentIdTag."""

    def id_tag_info(self, session, id_tag, *, charging=False):
        info = super().id_tag_info(session, id_tag, charging=charging)
        info.pop("parentIdTag", None)
        return info


class CentralSystemRefusesStartedIdTags(ReferenceCsms16):
    """IdTagInfo: a valid idTag, accepted in Authorize, is answered Invalid in StartTransaction.conf (the
    harness's charge point then stops: its Rejected to a remote stop is not the SUT's)."""

    def on_StartTransaction(self, session, payload):
        return super().on_StartTransaction(session, payload) | {"idTagInfo": {"status": "Invalid"}}


class CentralSystemRejectsUnknownVendor(ReferenceCsms16):
    """DataTransfer: an unknown vendorId is answered Rejected instead of UnknownVendorId."""

    def on_DataTransfer(self, session, payload):
        answer = super().on_DataTransfer(session, payload)
        return {"status": "Rejected"} if answer["status"] == "UnknownVendorId" else answer


class CentralSystemAlwaysResetsHard(ReferenceCsms16):
    """Reset: the central system sends a Hard reset whatever it was asked for."""

    async def act_reset(self, type, station=None):
        await super().act_reset("Hard", station)


# ------------------------------------------------------------------------------ a conformant variant
class ChargePointAlreadyRegistered(ReferenceStation16):
    """NOT a fault: a charge point Accepted before this test reconnects without booting, as behaviour
    rule 4 asks. A test that needs its boot must restart it with Reset, never blame it."""

    first_connection = True

    async def connect(self, csms_url, *, boot=True, offered=None):
        if self.first_connection:
            self.first_connection, self.registration, boot = False, "Accepted", False
        return await super().connect(csms_url, boot=boot, offered=offered)


class ChargePointDropsAPhase(ReferenceStation16):
    """Every other sampled MeterValue leaves out the current of phase L3."""

    def reading(self, connector, context, measurands, wh=None, at=None):
        value = super().reading(connector, context, measurands, wh, at)
        if context == "Sample.Periodic" and connector.meter.wh % (2 * connector.meter.step):
            value["sampledValue"] = [v for v in value["sampledValue"] if v.get("phase") != "L3"]
        return value


class ChargePointSamplesOnlyEnergy(ReferenceStation16):
    """Sampled MeterValues carry the energy register whatever MeterValuesSampledData lists."""

    def reading(self, connector, context, measurands, wh=None, at=None):
        chosen = [ENERGY] if context == "Sample.Periodic" else measurands
        return super().reading(connector, context, chosen, wh, at)


class ChargePointStampsAlignedValuesPeriodic(ReferenceStation16):
    """Clock-aligned MeterValues are sent with context Sample.Periodic."""

    def reading(self, connector, context, measurands, wh=None, at=None):
        return super().reading(connector, "Sample.Periodic" if context == "Sample.Clock" else context, measurands,
                               wh, at)


class ChargePointForgetsAlignedStopData(ReferenceStation16):
    """StopTransaction's transactionData leaves out the clock-aligned values of StopTxnAlignedData."""

    def stop_payload(self, connector, tx, reason, id_tag):
        tx.aligned.clear()
        return super().stop_payload(connector, tx, reason, id_tag)


class ChargePointAlwaysSendsStopData(ReferenceStation16):
    """An empty StopTxnSampledData is read as the energy register: StopTransaction always has meter values."""

    def measurands(self, key):
        return super().measurands(key) or [ENERGY]


class CentralSystemRefusesPhaseValues(ReferenceCsms16):
    """MeterValues with a per-phase value are answered with a CALLERROR."""

    def on_MeterValues(self, session, payload):
        if any("phase" in s for v in payload["meterValue"] for s in v["sampledValue"]):
            raise CallErrorReply("InternalError", "phase values are not stored")
        return super().on_MeterValues(session, payload)


class ChargePointReservesFaultedConnectors(ReferenceStation16):
    """ReserveNow of a faulted connector is answered Occupied, not Faulted."""

    def on_ReserveNow(self, session, payload):
        answer = super().on_ReserveNow(session, payload)
        return {"status": "Occupied"} if answer["status"] == "Faulted" else answer


class ChargePointClaimsListsItCannotStore(ReferenceStation16):
    """A SendLocalList its failing storage could not apply is answered Accepted."""

    def on_SendLocalList(self, session, payload):
        answer = super().on_SendLocalList(session, payload)
        return {"status": "Accepted"} if answer["status"] == "Failed" else answer


class ChargePointGivesUpAtOnce(ReferenceStation16):
    """A firmware download that fails is not tried again, whatever UpdateFirmware.retries says."""

    async def _update(self, location, retrieve_at, retries, retry_interval):
        await super()._update(location, retrieve_at, 0, retry_interval)


class ChargePointRetriesDownloadsAtOnce(ReferenceStation16):
    """A failed firmware download is tried again at once, whatever UpdateFirmware.retryInterval says."""

    async def _update(self, location, retrieve_at, retries, retry_interval):
        await super()._update(location, retrieve_at, retries, 0)


class ChargePointSendsOneOfflineStart(ReferenceStation16):
    """Offline, a second transaction's StartTransaction is dropped while one is already queued."""

    def send_transaction_message(self, action, payload, tx):
        if action == "StartTransaction" and not self.online and any(
                item.action == "StartTransaction" for item in self.queue._items):
            dropped = asyncio.get_running_loop().create_future()
            dropped.set_result(None)
            return dropped
        return super().send_transaction_message(action, payload, tx)


class ChargePointDropsTheOldestCacheEntry(ReferenceStation16):
    """Behaviour rule 6: a full cache drops its oldest entry even while it holds a not-valid one."""

    cache_class = _DropsTheOldestEntry


class ChargePointDropsTheNewestCacheEntry(ReferenceStation16):
    """Behaviour rule 6: a full cache of valid entries drops the newest one, not the oldest."""

    cache_class = _DropsTheNewestEntry


class ChargePointIgnoresCacheExpiry(ReferenceStation16):
    """IdTagInfo expiryDate: a cached idTag stays valid after its expiryDate."""

    cache_class = _NeverExpires


class ChargePointStartsExpiredIdentifiersOffline(ReferenceStation16):
    """Behaviour rule 8: offline, an idTag the cache holds as Expired starts a transaction."""

    def local_decision(self, id_tag):
        known = self._known(id_tag)
        if not self.online and known is not None and known["status"] == "Expired":
            return known | {"status": "Accepted"}
        return super().local_decision(id_tag)


class ChargePointCachesListedIdentifiers(ReferenceStation16):
    """Behaviour rule 6: every IdTagInfo goes into the cache, also that of an identifier in the local list."""

    def id_tag_info_received(self, id_tag, info, action):
        super().id_tag_info_received(id_tag, info, action)
        if self.config.flag("AuthorizationCacheEnabled"):
            self.cache.update(id_tag, info)


class ChargePointDeliversPastMaxEnergy(ReferenceStation16):
    """MaxEnergyOnInvalidId: after a refused start (StopTransactionOnInvalidId false) energy flows on."""

    async def _energy_flowed(self, connector, tx):
        tx.energy_limit = None


class ChargePointLeavesHeartbeatsToPings(ReferenceStation16):
    """Behaviour rule 3: the WebSocket's ping/pong keeps the link alive, so no Heartbeat is ever sent (neither
    every HeartbeatInterval nor now and then under legal variance)."""

    def _schedule_heartbeat(self):
        pass

    async def _unsolicited_heartbeats(self):
        await asyncio.Event().wait()


# ------------------------------------------------------------------------------------- the records
def node(path: str, test: str, role: str, *params: str) -> str:
    return f"suites/ocpp16/{path}::{test}[{'-'.join((role, VERSION, *params))}]"


BOOT, AUTH, TX = "boot/test_BOOT16.py", "authorization/test_AUTH16.py", "transactions/test_TX16.py"
OFFLINE, CONFIG = "transactions/test_OFFLINE16.py", "configuration/test_CONFIG16.py"
SECURITY, DATA = "security/test_SECURITY16.py", "datatransfer/test_DATA16.py"
RESET, REMOTE = "reset/test_RESET16.py", "remote/test_REMOTE16.py"
AVAIL, UNLOCK = "availability/test_AVAIL16.py", "unlock/test_UNLOCK16.py"
INVALID, CACHE = "transactions/test_INVALIDID16.py", "authorization/test_CACHE16.py"
LOCALLIST, RESERVE = "authorization/test_LOCALLIST16.py", "reservation/test_RESERVE16.py"
TRIGGER, SC = "trigger/test_TRIGGER16.py", "smartcharging/test_SC16.py"
FIRMWARE = "firmware/test_FIRMWARE16.py"
HEARTBEAT = "boot/test_HEARTBEAT16.py"
METER = "meter/test_METER16.py"

FAULTS: tuple[Fault, ...] = (
    Fault("cp-authorizes-its-own-stop", "TX16.no_authorize",
            ChargePointAuthorizesItsOwnStop, (node(TX, "test_full_transaction_stopped_by_its_own_tag", "cs"),),
            "the charge point sent Authorize before stopping with the starting idTag"),
    Fault("cp-stops-below-its-start", "TX16.monotonic",
            ChargePointStopsBelowItsStart, (node(TX, "test_full_transaction_stopped_by_its_own_tag", "cs"),),
            "a register reading of the transaction decreased"),
    Fault("cp-numbers-connectors-with-a-gap", "BOOT16.numbering",
            ChargePointNumbersConnectorsWithAGap, (node(BOOT, "test_accepted_boot_reports_every_connector", "cs"),),
            "the connector ids have a gap or do not start at 1"),
    Fault("cp-spells-format-violation-the-2x-way", "ocpp.errors.known", ChargePointSpellsFormatViolationThe2xWay,
            (transport_test(RPC, "test_malformed_call_is_refused_with_the_code_for_its_fault", "cs", VERSION, "extra"),),
            "[ocpp.errors.known] CALLERROR code 'FormatViolation' does not exist in ocpp1.6"),
    Fault("cp-changes-readonly-keys", "CONFIG16.readonly",
            ChargePointChangesReadonlyKeys, (node(CONFIG, "test_readonly_key_is_not_changed", "cs"),),
            "was changed"),
    Fault("cp-reorders-its-queue", "OFFLINE16.in_order",
            ChargePointReordersItsQueue, (node(OFFLINE, "test_queued_messages_arrive_in_order", "cs"),),
            "MeterValues of the transaction came after its StopTransaction", verdict="finding"),
    Fault("cp-retries-at-once", "OFFLINE16.retry_wait",
            ChargePointRetriesAtOnce, (node(OFFLINE, "test_failed_message_is_retried_then_discarded", "cs"),),
            "retry 1 came"),
    Fault("cp-keeps-its-old-key", "SECURITY16.reconnects_with_new_key", ChargePointKeepsItsOldKey,
            (node(SECURITY, "test_authorization_key_is_rotated", "cs"),), "no connection with the new key"),
    Fault("cp-accepts-reset-but-keeps-running", "RESET16.restarts",
            ChargePointAcceptsResetButKeepsRunning, (node(RESET, "test_reset_restarts_the_charge_point", "cs", "Hard"),),
            "no BootNotification within"),
    Fault("cs-always-resets-hard", "RESET16.type_as_asked", CentralSystemAlwaysResetsHard,
            (node(RESET, "test_reset_restarts_the_charge_point", "csms", "Soft"),), "Reset.req type is wrong"),
    Fault("cs-never-pending", "BOOT16.registration", CentralSystemNeverPending,
            (node(BOOT, "test_pending_charge_point_is_configured_then_accepted", "csms"),),
            "BootNotification.conf status is wrong"),
    Fault("cs-keeps-the-old-key", "SECURITY16.old_key_refused",
            CentralSystemKeepsTheOldKey, (node(SECURITY, "test_central_system_rotates_the_authorization_key", "csms"),),
            "the server upgraded the old AuthorizationKey"),
    Fault("cs-drops-parent-id-tag", "core16.group",
            CentralSystemDropsParentIdTag, (node(AUTH, "test_group_members_share_the_parent_tag", "csms"),),
            "lacks its group as parentIdTag"),
    Fault("cs-refuses-started-id-tags", "core16.accepted", CentralSystemRefusesStartedIdTags,
            (node(REMOTE, "test_remote_stop_of_the_running_transaction", "csms"),),
            "StartTransaction.conf idTagInfo.status is wrong"),
    Fault("cp-answers-the-framework-error-of-2x", "ocpp.errors.known", ChargePointAnswersTheFrameworkErrorOf2x,
            (transport_test(RPC, "test_text_that_is_not_json_does_not_break_the_connection", "cs", VERSION),),
            "[ocpp.errors.known] CALLERROR code 'RpcFrameworkError' does not exist in ocpp1.6"),
    Fault("cs-answers-message-type-not-supported", "ocpp.errors.known", CentralSystemAnswersMessageTypeNotSupported,
            (transport_test(RPC, "test_unknown_message_type_is_refused_with_a_code_of_the_version", "csms", VERSION),),
            "[ocpp.errors.known] CALLERROR code 'MessageTypeNotSupported' does not exist in ocpp1.6"),
    Fault("cs-rejects-unknown-vendor", "datatransfer.unknown_vendor", CentralSystemRejectsUnknownVendor,
            (node(DATA, "test_data_transfer_to_central_system", "csms", "unknown_vendor"),),
            "DataTransferResponse status is wrong"),
    Fault("cp-stays-available", "AVAIL16.unavailable", ChargePointStaysAvailable,
            (node(AVAIL, "test_connector_made_inoperative_then_operative", "cs"),), "did not send StatusNotification"),
    Fault("cp-stops-for-inoperative", "AVAIL16.scheduled", ChargePointStopsForInoperative,
            (node(AVAIL, "test_change_while_charging_is_scheduled", "cs"),), "ChangeAvailability.conf status is wrong"),
    Fault("cs-addresses-the-whole-charge-point", "ops16.sent_as_asked", CentralSystemAddressesTheWholeChargePoint,
            (node(AVAIL, "test_connector_made_inoperative_then_operative", "csms"),),
            "ChangeAvailability.req is wrong"),
    Fault("cp-unlocks-without-stopping", "UNLOCK16.stops_transaction", ChargePointUnlocksWithoutStopping,
            (node(UNLOCK, "test_unlock_stops_the_running_transaction", "cs"),), "did not send StopTransaction"),
    Fault("cp-unlocks-unknown-connectors", "UNLOCK16.unknown_connector", ChargePointUnlocksUnknownConnectors,
            (node(UNLOCK, "test_unlock_of_an_unknown_connector_is_not_supported", "cs"),),
            "UnlockConnector.conf status for connector 3 is wrong"),
    Fault("cs-unlocks-the-next-connector", "ops16.sent_as_asked", CentralSystemUnlocksTheNextConnector,
            (node(UNLOCK, "test_unlock_without_transaction", "csms"),
             node(UNLOCK, "test_unlock_of_an_unknown_connector_is_not_supported", "csms")),
            "UnlockConnector.req is wrong"),
    Fault("cs-fails-on-faults", "core16.status_answered", CentralSystemFailsOnFaults,
            (node(TX, "test_lock_failure_is_answered", "csms"),), "StatusNotification"),
    Fault("cs-fails-on-abandoned-starts", "core16.status_answered", CentralSystemFailsOnAbandonedStarts,
            (node(REMOTE, "test_remote_start_times_out_without_a_cable", "csms"),),
            "the StatusNotification Available was refused"),
    Fault("cs-remote-starts-anywhere", "REMOTE16.sent_as_asked", CentralSystemRemoteStartsAnywhere,
            (node(REMOTE, "test_remote_start_answered_rejected", "csms"),),
            "RemoteStartTransaction.req connectorId is wrong"),
    Fault("cs-fails-on-failed-installations", "FIRMWARE16.notifications_answered",
            CentralSystemFailsOnFailedInstallations, (node(FIRMWARE, "test_failed_installation_is_answered", "csms"),),
            "FirmwareStatusNotification was refused"),
    Fault("cs-drops-the-start-profile", "SC16.start_profile", CentralSystemDropsTheStartProfile,
            (node(SC, "test_remote_start_with_a_profile", "csms"),), "RemoteStartTransaction.req is wrong"),
    Fault("cs-pends-rebooted-charge-points", "registration.accepted", CentralSystemPendsRebootedChargePoints,
            (node(TX, "test_transaction_ended_by_a_power_loss", "csms"),), "the CSMS answered the boot of station"),
    Fault("cs-fails-on-power-loss", "core16.stop_answered", CentralSystemFailsOnPowerLoss,
            (node(TX, "test_transaction_ended_by_a_power_loss", "csms"),),
            "the StopTransaction (reason PowerLoss) was refused"),
    Fault("cp-takes-any-value", "CONFIG16.invalid_value", ChargePointTakesAnyValue,
            tuple(node(CONFIG, "test_invalid_value_is_rejected", "cs", value) for value in ("-60", "sixty")),
            "ChangeConfiguration.conf status for MeterValueSampleInterval"),
    Fault("cs-cleans-values", "CONFIG16.sent_as_asked", CentralSystemCleansValues,
            (node(CONFIG, "test_invalid_value_is_rejected", "csms", "-60"),),
            "ChangeConfiguration.req is wrong"),
    Fault("cp-ignores-stop-transaction-on-invalid-id", "INVALIDID16.stopped",
            ChargePointIgnoresStopTransactionOnInvalidId,
            (node(INVALID, "test_refused_start_stops_the_transaction", "cs"),), "did not send StopTransaction"),
    Fault("cs-accepts-every-start", "INVALIDID16.refused", CentralSystemAcceptsEveryStart,
            (node(INVALID, "test_start_with_a_tag_that_is_not_valid_is_refused", "csms", "Invalid"),),
            "StartTransaction.conf idTagInfo.status for the invalid idTag is wrong"),
    Fault("cp-keeps-its-cache", "CACHE16.cleared", ChargePointKeepsItsCache,
            (node(CACHE, "test_cleared_identifier_is_authorized_again", "cs"),), "did not send Authorize"),
    Fault("cp-takes-old-differential-versions", "LOCALLIST16.version_mismatch",
            ChargePointTakesOldDifferentialVersions,
            (node(LOCALLIST, "test_differential_update_of_an_old_version_is_a_mismatch", "cs"),),
            "SendLocalList.conf status (Differential, same version) is wrong"),
    Fault("cp-differential-drops-unnamed-entries", "LOCALLIST16.differential_keeps",
            ChargePointDifferentialDropsUnnamedEntries,
            (node(LOCALLIST, "test_differential_update_keeps_the_entries_it_does_not_name", "cs"),),
            "[LOCALLIST16.differential_keeps] the SUT did not send StartTransaction within"),
    Fault("cp-accepts-everyone-offline", "LOCALLIST16.not_valid_refused", ChargePointAcceptsEveryoneOffline,
            (node(LOCALLIST, "test_listed_identifier_that_is_not_valid_is_refused_offline", "cs", "Blocked"),),
            "the SUT sent StartTransaction when it must not"),
    Fault("cp-hides-list-conflicts", "LOCALLIST16.conflict", ChargePointHidesListConflicts,
            (node(LOCALLIST, "test_conflict_with_the_list_is_reported", "cs"),), "did not send StatusNotification"),
    Fault("cs-sends-only-full-lists", "ops16.sent_as_asked", CentralSystemSendsOnlyFullLists,
            (node(LOCALLIST, "test_differential_update_is_accepted", "csms"),), "SendLocalList.req is wrong"),
    Fault("cp-lets-anyone-use-the-reservation", "RESERVE16.other_refused", ChargePointLetsAnyoneUseTheReservation,
            (node(RESERVE, "test_reserved_connector_serves_only_its_id_tag", "cs"),),
            "the SUT sent StartTransaction when it must not"),
    Fault("cp-drops-the-reservation-id", "RESERVE16.reservation_used", ChargePointDropsTheReservationId,
            (node(RESERVE, "test_remote_start_uses_the_reservation", "cs"),),
            "StartTransaction.req reservationId is wrong"),
    Fault("cp-keeps-expired-reservations", "RESERVE16.expires", ChargePointKeepsExpiredReservations,
            (node(RESERVE, "test_reservation_expires", "cs"),), "did not send StatusNotification"),
    Fault("cp-cancels-any-reservation", "RESERVE16.cancel_unknown", ChargePointCancelsAnyReservation,
            (node(RESERVE, "test_cancel_of_an_unknown_reservation_is_rejected", "cs"),),
            "CancelReservation.conf status is wrong"),
    Fault("cs-drops-the-reservation-group", "ops16.sent_as_asked", CentralSystemDropsTheReservationGroup,
            (node(RESERVE, "test_group_member_uses_the_reservation", "csms"),), "ReserveNow.req is wrong"),
    Fault("cp-accepts-triggers-silently", "TRIGGER16.follows", ChargePointAcceptsTriggersSilently,
            (node(TRIGGER, "test_triggered_message_follows", "cs", "Heartbeat"),), "did not send Heartbeat"),
    Fault("cp-reports-an-old-upload", "TRIGGER16.idle", ChargePointReportsAnOldUpload,
            (node(TRIGGER, "test_triggered_message_follows", "cs", "DiagnosticsStatusNotification"),),
            "DiagnosticsStatusNotification.req status is wrong"),
    Fault("cp-triggers-unknown-connectors", "TRIGGER16.unknown_connector", ChargePointTriggersUnknownConnectors,
            (node(TRIGGER, "test_trigger_for_an_unknown_connector_is_refused", "cs"),), "was Accepted"),
    Fault("cs-triggers-heartbeats", "ops16.sent_as_asked", CentralSystemTriggersHeartbeats,
            (node(TRIGGER, "test_triggered_message_follows", "csms", "StatusNotification"),),
            "TriggerMessage.req is wrong"),
    Fault("cp-takes-max-profiles-anywhere", "SC16.max_at_zero", ChargePointTakesMaxProfilesAnywhere,
            (node(SC, "test_charge_point_max_profile_only_at_connector_0", "cs"),), "was Accepted"),
    Fault("cp-clears-what-is-not-there", "SC16.cleared", ChargePointClearsWhatIsNotThere,
            (node(SC, "test_cleared_profile_is_gone", "cs"),), "ClearChargingProfile.conf status is wrong"),
    Fault("cs-sets-profiles-for-the-whole-charge-point", "ops16.sent_as_asked",
            CentralSystemSetsProfilesForTheWholeChargePoint,
            (node(SC, "test_tx_profile_for_the_running_transaction", "csms"),), "SetChargingProfile.req is wrong"),
    Fault("cp-skips-installing", "FIRMWARE16.firmware_sequence", ChargePointSkipsInstalling,
            (node(FIRMWARE, "test_firmware_is_installed_and_the_charge_point_reboots", "cs"),),
            "FirmwareStatusNotification statuses is wrong"),
    Fault("cp-claims-its-transfers", "FIRMWARE16.diagnostics_sequence", ChargePointClaimsItsTransfers,
            (node(FIRMWARE, "test_diagnostics_are_uploaded", "cs"),), "the diagnostics file did not arrive"),
    Fault("cs-moves-the-firmware", "ops16.sent_as_asked", CentralSystemMovesTheFirmware,
            (node(FIRMWARE, "test_firmware_is_installed_and_the_charge_point_reboots", "csms"),),
            "UpdateFirmware.req is wrong"),
    Fault("cp-drops-a-phase", "METER16.every_phase", ChargePointDropsAPhase,
            (node(METER, "test_sampled_values_during_a_transaction", "cs"),),
            "without some phases or locations"),
    Fault("cp-samples-only-energy", "METER16.sampled", ChargePointSamplesOnlyEnergy,
            (node(METER, "test_sampled_values_during_a_transaction", "cs"),), "lacks configured measurands"),
    Fault("cp-stamps-aligned-values-periodic", "METER16.aligned", ChargePointStampsAlignedValuesPeriodic,
            (node(METER, "test_clock_aligned_values", "cs"),), "is not clock-aligned"),
    Fault("cp-forgets-aligned-stop-data", "METER16.stop_data", ChargePointForgetsAlignedStopData,
            (node(METER, "test_stop_transaction_carries_its_meter_data", "cs"),), "clock-aligned, Sample.Clock"),
    Fault("cp-always-sends-stop-data", "METER16.no_stop_data", ChargePointAlwaysSendsStopData,
            (node(METER, "test_empty_stop_lists_send_no_meter_values", "cs"),), "although both lists are empty"),
    Fault("cs-refuses-phase-values", "METER16.answered", CentralSystemRefusesPhaseValues,
            (node(METER, "test_sampled_values_during_a_transaction", "csms"),
             node(METER, "test_clock_aligned_values", "csms")), "MeterValues.req was refused"),
    Fault("cp-reserves-faulted-connectors", "RESERVE16.faulted", ChargePointReservesFaultedConnectors,
            (node(RESERVE, "test_faulted_connector_is_faulted", "cs"),), "ReserveNow.conf status for connector"),
    Fault("cp-claims-lists-it-cannot-store", "LOCALLIST16.failed", ChargePointClaimsListsItCannotStore,
            (node(LOCALLIST, "test_update_that_cannot_be_stored_fails", "cs"),),
            "SendLocalList.conf status (storage failing)"),
    Fault("cp-gives-up-at-once", "FIRMWARE16.retried", ChargePointGivesUpAtOnce,
            (node(FIRMWARE, "test_failing_download_is_retried", "cs"),), "the location was asked 1 times"),
    Fault("cp-retries-downloads-at-once", "FIRMWARE16.retried", ChargePointRetriesDownloadsAtOnce,
            (node(FIRMWARE, "test_failing_download_is_retried", "cs"),), "a retry came sooner than retryInterval"),
    Fault("cp-sends-one-offline-start", "LOCALLIST16.every_offline_start", ChargePointSendsOneOfflineStart,
            (node(LOCALLIST, "test_every_offline_transaction_is_started_online", "cs"),), "StartTransaction"),
    Fault("cp-drops-the-oldest-cache-entry", "CACHE16.not_valid_evicted_first", ChargePointDropsTheOldestCacheEntry,
            (node(CACHE, "test_full_cache_drops_a_not_valid_entry_first", "cs"),), "did not send StartTransaction"),
    Fault("cp-drops-the-newest-cache-entry", "CACHE16.oldest_valid_evicted", ChargePointDropsTheNewestCacheEntry,
            (node(CACHE, "test_full_cache_of_valid_entries_drops_the_oldest", "cs"),),
            "the SUT sent StartTransaction when it must not"),
    Fault("cp-ignores-cache-expiry", "CACHE16.expired_asked", ChargePointIgnoresCacheExpiry,
            (node(CACHE, "test_expired_cached_identifier_is_asked_again_online", "cs"),), "did not send Authorize"),
    Fault("cp-starts-expired-identifiers-offline", "CACHE16.expired_refused",
            ChargePointStartsExpiredIdentifiersOffline,
            (node(CACHE, "test_expired_cached_identifier_is_refused_offline", "cs"),),
            "the SUT sent StartTransaction when it must not"),
    Fault("cp-caches-listed-identifiers", "LOCALLIST16.never_cached", ChargePointCachesListedIdentifiers,
            (node(LOCALLIST, "test_listed_identifier_is_never_cached", "cs"),),
            "the SUT sent StartTransaction when it must not"),
    Fault("cp-delivers-past-max-energy", "INVALIDID16.max_energy", ChargePointDeliversPastMaxEnergy,
            (node(INVALID, "test_refused_start_delivers_at_most_max_energy", "cs"),),
            "the register grew by"),
    Fault("cp-leaves-heartbeats-to-pings", "HEARTBEAT16.daily", ChargePointLeavesHeartbeatsToPings,
            (node(HEARTBEAT, "test_heartbeat_comes_at_least_once_a_day", "cs"),), "did not send Heartbeat within 86405 s"),
)


# ------------------------------------------------------------------ TLS (spec 002 Authentication 2)
def _ec_certificate(**usage) -> tuple:
    """An EC certificate from the run's own root (a chain the peer verifies): what 1.6 does not allow."""
    issued = pki.harness_pki(None).root.issue("REF-SERIAL-0001", "Reference CPO", kind=pki.EC, **usage)
    return issued.write(Path(tempfile.mkdtemp(prefix="fault-pki-")), "ec")


class CentralSystemServesAnEcCertificate(ReferenceCsms16):
    """Authentication 2: the central system's TLS certificate is EC, not RSA."""

    def csms_tls(self, end):
        certificate, key = _ec_certificate(server_names=("127.0.0.1", "localhost"))
        return dataclasses.replace(end, certificate=certificate, key=key)


class ChargePointPresentsAnEcCertificate(ReferenceStation16):
    """Authentication 2: the charge point's TLS client certificate is EC, not RSA."""

    def station_tls(self, end):
        certificate, key = _ec_certificate(client=True)
        return dataclasses.replace(end, certificate=certificate, key=key)


class ChargePointDoesNotCheckTheServerCertificate(ReferenceStation16):
    """SP2: the charge point verifies nothing of the central system's certificate."""

    def station_tls(self, end):
        return dataclasses.replace(end, trust=None)


class CentralSystemWithoutTheStaticRsaSuites(ReferenceCsms16):
    """White paper A00.FR.317: the central system enables the forward-secret suites alone, not the mandatory
    TLS_RSA_WITH_AES_*_GCM pair."""

    def csms_tls(self, end):
        return dataclasses.replace(end, ciphers="ECDHE+AESGCM:ECDHE+CHACHA20")


def security(path: str, test: str, role: str, *params: str) -> str:
    return f"suites/ocpp/security/{path}::{test}[{'-'.join((role, VERSION, *params))}]"


FAULTS += (
    Fault("cs-serves-an-ec-certificate", "tls.rsa_server", CentralSystemServesAnEcCertificate,
            (security("test_SP2.py", "test_csms_serves_tls_with_a_valid_certificate", "csms"),),
            "the TLS certificate is not RSA"),
    Fault("cs-without-the-static-rsa-suites", "SP2.suites_served", CentralSystemWithoutTheStaticRsaSuites,
            (security("test_SP2.py", "test_csms_supports_each_mandatory_cipher_suite", "csms",
                      "TLS_RSA_WITH_AES_256_GCM_SHA384"),),
            "the CSMS refused a TLS 1.2 handshake offering TLS_RSA_WITH_AES_256_GCM_SHA384 alone"),
    Fault("cp-presents-an-ec-certificate", "tls.rsa_client", ChargePointPresentsAnEcCertificate,
            (security("test_SP3.py", "test_station_presents_its_client_certificate", "cs"),),
            "the TLS certificate is not RSA"),
    Fault("cp-does-not-check-the-server-certificate", "SP2.server_checked",
            ChargePointDoesNotCheckTheServerCertificate,
            (security("test_SP2.py", "test_station_refuses_a_server_certificate_it_cannot_verify", "cs", "expired"),
             security("test_SP2.py", "test_station_refuses_a_server_certificate_it_cannot_verify", "cs",
                      "self_signed")),
            "the station connected to a server with a"),
)


# ------------------------------------------------------------------------------------- the security extension
from catalog import certificates as cert  # noqa: E402  (the 2.x security faults: their behaviour, in 1.6)


def _in_16(behaviour: type, name: str) -> type:
    base = ReferenceCsms16 if name.startswith("CentralSystem") else ReferenceStation16
    return cert.fault_class(behaviour, base, name, __name__)


ChargePointSendsADerCsr = _in_16(cert.SendsADerCsr, "ChargePointSendsADerCsr")
ChargePointTakesAnyCertificate = _in_16(cert.TakesAnyCertificate, "ChargePointTakesAnyCertificate")
ChargePointReportsAnotherEvent = _in_16(cert.ReportsAnotherEvent, "ChargePointReportsAnotherEvent")
ChargePointInstallsAnything = _in_16(cert.InstallsAnything, "ChargePointInstallsAnything")
ChargePointListsNothing = _in_16(cert.ListsNothing, "ChargePointListsNothing")
ChargePointDeletesNothing = _in_16(cert.DeletesNothing, "ChargePointDeletesNothing")
CentralSystemRejectsEveryCsr = _in_16(cert.RejectsEveryCsr, "CentralSystemRejectsEveryCsr")
CentralSystemSignsAnotherKey = _in_16(cert.SignsAnotherKey, "CentralSystemSignsAnotherKey")
CentralSystemRefusesSecurityEvents = _in_16(cert.RefusesSecurityEvents, "CentralSystemRefusesSecurityEvents")
CentralSystemDeletesByAnotherAlgorithm = _in_16(cert.DeletesByAnotherAlgorithm, "CentralSystemDeletesByAnotherAlgorithm")


RENEWAL16, EVENTS16, CERTS16 = ("security/test_RENEWAL16.py", "security/test_EVENTS16.py",
                                "security/test_CERTS16.py")
RENEWED = ("test_certificate_renewed_on_request", "test_charge_point_renews_its_certificate")

FAULTS += (
    Fault("cp-sends-a-der-csr", "certificate.csr_pem", ChargePointSendsADerCsr,
          tuple(node(RENEWAL16, test, "cs") for test in RENEWED), "not a PEM certificate signing request"),
    Fault("cp-takes-any-certificate", "certificate.invalid_refused", ChargePointTakesAnyCertificate,
          tuple(node(RENEWAL16, "test_an_invalid_certificate_is_refused_and_reported", "cs", broken)
                for broken in ("expired", "other_root", "other_key")), "CertificateSigned answer status"),
    Fault("cs-rejects-every-csr", "certificate.csms_accepts", CentralSystemRejectsEveryCsr,
          tuple(node(RENEWAL16, test, "csms") for test in RENEWED), "SignCertificateResponse status"),
    Fault("cs-signs-another-key", "certificate.chain_key", CentralSystemSignsAnotherKey,
          tuple(node(RENEWAL16, test, "csms") for test in RENEWED), "the signed certificate is for another key"),
    Fault("cp-reports-another-event", "secevent.reported", ChargePointReportsAnotherEvent,
          (node(EVENTS16, "test_security_event_reported_and_confirmed", "cs"),), "SecurityEventNotification type"),
    Fault("cs-refuses-security-events", "secevent.confirmed", CentralSystemRefusesSecurityEvents,
          (node(EVENTS16, "test_security_event_reported_and_confirmed", "csms"),), "InternalError"),
    Fault("cp-installs-anything", "cacert.invalid_rejected", ChargePointInstallsAnything,
          tuple(node(CERTS16, "test_invalid_certificate_rejected", "cs", kind)
                for kind in ("not_a_certificate", "not_a_ca", "expired")), "InstallCertificate answer status"),
    Fault("cp-lists-nothing", "CERTS16.listed", ChargePointListsNothing,
          (node(CERTS16, "test_installed_certificate_is_listed", "cs"),), "GetInstalledCertificateIds answer status"),
    Fault("cp-deletes-nothing", "CERTS16.deleted", ChargePointDeletesNothing,
          (node(CERTS16, "test_installed_certificate_is_deleted", "cs"),), "still listed"),
    Fault("cs-deletes-by-another-algorithm", "ops16.sent_as_asked", CentralSystemDeletesByAnotherAlgorithm,
          (node(CERTS16, "test_installed_certificate_is_deleted", "csms"),), "DeleteCertificate.req"),
)


class ChargePointDropsTheRequestId(ReferenceStation16):
    """LOG16: the LogStatusNotifications carry no requestId."""

    async def call(self, action, payload):
        if action == "LogStatusNotification":
            payload = {k: v for k, v in payload.items() if k != "requestId"}
        return await super().call(action, payload)


class ChargePointClaimsEveryUpload(ReferenceStation16):
    """LOG16: an upload the location refused is reported Uploaded."""

    async def call(self, action, payload):
        if action == "LogStatusNotification" and payload["status"] == "UploadFailure":
            payload = payload | {"status": "Uploaded"}
        return await super().call(action, payload)


class CentralSystemRefusesLogStatus(ReferenceCsms16):
    """LOG16: LogStatusNotification is answered with a CALLERROR InternalError (a SHOULD: a finding)."""

    def on_LogStatusNotification(self, session, payload):
        raise CallErrorReply("InternalError", "log status not kept")


LOG16 = "security/test_LOG16.py"
FAULTS += (
    Fault("cp-drops-the-log-request-id", "LOG16.request_id", ChargePointDropsTheRequestId,
          (node(LOG16, "test_log_is_uploaded", "cs", "SecurityLog"),), "LogStatusNotification requestIds"),
    Fault("cp-claims-every-log-upload", "LOG16.upload_failed", ChargePointClaimsEveryUpload,
          (node(LOG16, "test_log_upload_that_is_refused_fails", "cs"),), "the last LogStatusNotification status"),
    Fault("cs-refuses-log-status", "LOG16.answered", CentralSystemRefusesLogStatus,
          (node(LOG16, "test_log_is_uploaded", "csms", "DiagnosticsLog"),), "LogStatusNotification was refused",
          verdict="finding"),
)


# ------------------------------------------------------------------ the security extension: signed firmware (L01)
class ChargePointInstallsUnverifiedFirmware(ReferenceStation16):
    """SIGNEDFIRMWARE16: the signature is never checked: a firmware signed over another file is installed."""

    def firmware_signature_problem(self, pem, firmware, signature):
        return None


class ChargePointTrustsAnySigningCertificate(ReferenceStation16):
    """SIGNEDFIRMWARE16: any signing certificate is taken, of whatever authority, expired or not."""

    def firmware_certificate_problem(self, pem):
        return None


class ChargePointDropsTheFirmwareRequestId(ReferenceStation16):
    """SIGNEDFIRMWARE16: the SignedFirmwareStatusNotifications of an update carry no requestId."""

    async def call(self, action, payload):
        if action == "SignedFirmwareStatusNotification":
            payload = {k: v for k, v in payload.items() if k != "requestId"}
        return await super().call(action, payload)


class ChargePointHidesAnInvalidSignature(ReferenceStation16):
    """SIGNEDFIRMWARE16: a firmware it refused for its signature is not reported as a security event."""

    async def security_event(self, kind, tech_info=None):
        if kind != "InvalidFirmwareSignature":
            await super().security_event(kind, tech_info)


class ChargePointForgetsItsFirmwareStatus(ReferenceStation16):
    """SIGNEDFIRMWARE16: a triggered SignedFirmwareStatusNotification is Idle, whatever the last status sent."""

    def triggered(self, message, payload):
        if message == "FirmwareStatusNotification":
            self.signed_firmware_sent = None
        return super().triggered(message, payload)


class ChargePointTriggersTheLegacyFirmwareStatus(ReferenceStation16):
    """EXTTRIGGER16: ExtendedTriggerMessage FirmwareStatusNotification brings 1.6's FirmwareStatusNotification, not
    the secure update's SignedFirmwareStatusNotification."""

    def triggered(self, message, payload):
        if message == "FirmwareStatusNotification":
            return False   # on to TriggerMessage's: FirmwareStatusNotification Idle
        return super().triggered(message, payload)


class ChargePointTriggersForAnyConnector(ReferenceStation16):
    """EXTTRIGGER16: ExtendedTriggerMessage for a connector it does not have is Accepted (nothing sent)."""

    def on_ExtendedTriggerMessage(self, _, payload):
        if payload.get("connectorId", 0) > len(self.connectors):
            return {"status": "Accepted"}
        return super().on_ExtendedTriggerMessage(_, payload)


class ChargePointTriggersABusyLogStatus(ReferenceStation16):
    """EXTTRIGGER16: a triggered LogStatusNotification while nothing uploads says Uploaded (a SHOULD: a finding)."""

    async def call(self, action, payload):
        if action == "LogStatusNotification" and payload.get("status") == "Idle":
            payload = {"status": "Uploaded"}
        return await super().call(action, payload)


class ChargePointInstallsAtOnce(ReferenceStation16):
    """SIGNEDFIRMWARE16: installDateTime is ignored: the firmware is installed as soon as it is verified."""

    async def _signed_update(self, payload):
        firmware = {k: v for k, v in payload["firmware"].items() if k != "installDateTime"}
        await super()._signed_update(payload | {"firmware": firmware})


class ChargePointKeepsUpdatesQuiet(ReferenceStation16):
    """SIGNEDFIRMWARE16: an installed firmware is not reported as the security event FirmwareUpdated."""

    async def security_event(self, kind, tech_info=None):
        if kind != "FirmwareUpdated":
            await super().security_event(kind, tech_info)


class CentralSystemRefusesSignedFirmwareStatus(ReferenceCsms16):
    """SIGNEDFIRMWARE16: SignedFirmwareStatusNotification is answered with a CALLERROR InternalError (a SHOULD: a
    finding)."""

    def on_SignedFirmwareStatusNotification(self, session, payload):
        raise CallErrorReply("InternalError", "firmware status not kept")


class CentralSystemSignsAnotherFile(ReferenceCsms16):
    """SIGNEDFIRMWARE16: SignedUpdateFirmware carries a signature of its own, not the one its operator gave."""

    async def act_signed_update_firmware(self, firmware, **fields):
        forged = pki.sign_firmware(pki.new_key(pki.RSA), b"another file")
        await super().act_signed_update_firmware(firmware | {"signature": forged}, **fields)


class CentralSystemRefusesTriggeredHeartbeats(ReferenceCsms16):
    """EXTTRIGGER16: the Heartbeat it asked for with ExtendedTriggerMessage is answered with a CALLERROR."""

    def on_Heartbeat(self, session, payload):
        raise CallErrorReply("InternalError", "heartbeat not kept")


SIGNEDFW, EXTTRIGGER = "security/test_SIGNEDFIRMWARE16.py", "security/test_EXTTRIGGER16.py"
FAULTS += (
    Fault("cp-installs-unverified-firmware", "SIGNEDFIRMWARE16.signature_refused", ChargePointInstallsUnverifiedFirmware,
          (node(SIGNEDFW, "test_invalid_signature_is_reported_and_not_installed", "cs"),),
          "was not reported InvalidSignature"),
    Fault("cp-trusts-any-signing-certificate", "SIGNEDFIRMWARE16.certificate_refused",
          ChargePointTrustsAnySigningCertificate,
          tuple(node(SIGNEDFW, "test_invalid_signing_certificate_is_refused", "cs", kind)
                for kind in ("other_root", "expired")), "SignedUpdateFirmware.conf status"),
    Fault("cp-drops-the-firmware-request-id", "SIGNEDFIRMWARE16.request_id", ChargePointDropsTheFirmwareRequestId,
          (node(SIGNEDFW, "test_signed_firmware_is_installed", "cs"),), "SignedFirmwareStatusNotification requestIds"),
    Fault("cp-hides-an-invalid-signature", "SIGNEDFIRMWARE16.signature_reported", ChargePointHidesAnInvalidSignature,
          (node(SIGNEDFW, "test_invalid_signature_is_reported_and_not_installed", "cs"),),
          "SecurityEventNotification"),
    Fault("cp-forgets-its-firmware-status", "SIGNEDFIRMWARE16.last_status", ChargePointForgetsItsFirmwareStatus,
          (node(SIGNEDFW, "test_trigger_after_invalid_signature_reports_it", "cs"),),
          "the triggered SignedFirmwareStatusNotification"),
    Fault("cp-triggers-the-legacy-firmware-status", "EXTTRIGGER16.follows", ChargePointTriggersTheLegacyFirmwareStatus,
          (node(EXTTRIGGER, "test_triggered_message_follows", "cs", "FirmwareStatusNotification"),),
          "SignedFirmwareStatusNotification"),
    Fault("cp-triggers-for-any-connector", "EXTTRIGGER16.unknown_connector", ChargePointTriggersForAnyConnector,
          (node(EXTTRIGGER, "test_trigger_for_an_unknown_connector_is_refused", "cs"),), "was Accepted"),
    Fault("cp-triggers-a-busy-log-status", "EXTTRIGGER16.log_idle", ChargePointTriggersABusyLogStatus,
          (node(EXTTRIGGER, "test_triggered_message_follows", "cs", "LogStatusNotification"),),
          "LogStatusNotification.req status", verdict="finding"),
    Fault("cp-installs-at-once", "SIGNEDFIRMWARE16.scheduled", ChargePointInstallsAtOnce,
          (node(SIGNEDFW, "test_installation_waits_for_install_date_time", "cs"),), "InstallScheduled"),
    Fault("cp-keeps-updates-quiet", "SIGNEDFIRMWARE16.updated_reported", ChargePointKeepsUpdatesQuiet,
          (node(SIGNEDFW, "test_installed_firmware_is_reported_as_a_security_event", "cs"),),
          "SecurityEventNotification"),
    Fault("cs-refuses-signed-firmware-status", "SIGNEDFIRMWARE16.answered", CentralSystemRefusesSignedFirmwareStatus,
          (node(SIGNEDFW, "test_signed_firmware_is_installed", "csms"),), "SignedFirmwareStatusNotification was refused",
          verdict="finding"),
    Fault("cs-signs-another-file", "ops16.sent_as_asked", CentralSystemSignsAnotherFile,
          (node(SIGNEDFW, "test_signed_firmware_is_installed", "csms"),), "SignedUpdateFirmware.req"),
    Fault("cs-refuses-triggered-heartbeats", "EXTTRIGGER16.answered", CentralSystemRefusesTriggeredHeartbeats,
          (node(EXTTRIGGER, "test_triggered_message_follows", "csms", "Heartbeat"),), "the triggered Heartbeat was refused"),
)
