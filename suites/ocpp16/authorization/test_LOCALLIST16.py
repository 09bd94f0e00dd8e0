"""LOCALLIST16 — the Local Authorization List of a 1.6 charge point (Local Auth List Management):
GetLocalListVersion, SendLocalList Full and Differential, and the list at work offline; unknown
identifiers offline (AllowOfflineTxForUnknownId) and the identifiers that must be refused (spec 002
What the service does 5; Behavior rules 5-8; Classes AuthorizationData; Enumerations UpdateStatus,
UpdateType; the "Local list" move: LocalListConflict).

A charge point that does not keep a list (LocalAuthListEnabled false) answers GetLocalListVersion -1
and SendLocalList NotSupported, or refuses either with a CALLERROR NotSupported (TC_042_1_CS,
TC_043_1_CS): both are read as the refusal. The list versions are chosen above the charge point's
current one, so a charge point under test that already has a list is not disturbed by them.
"""

import secrets

import pytest

from harness.roles import CS, CSMS
from harness.errors import NotApplicable
from harness.rules import RuleTable, must
from harness.suite import OCPP16, TC, case, checks, needs
from harness.profile import Token
from harness.usecases.core16 import (
    Core16, configure_charge_point, connectors, id_tag_status, same_tag, stop, tag16, tagged,
)
from harness.usecases.local16 import NOTICE, presented_offline
from harness.usecases.operations import ASKED16, Operations16, operate, status_of
from harness.verdict import check_equal, check_in, require


class LOCALLIST16(RuleTable):
    """The rules of LOCALLIST16."""
    version = must("spec 002 Behavior rule 7; Messages GetLocalListVersion",
                   "GetLocalListVersion gives the version of the last list update the charge point accepted", by=CS)
    full_accepted = must("spec 002 Behavior rule 7; Enumerations UpdateStatus, UpdateType",
                         "a Full update whose entries all carry an IdTagInfo is Accepted and replaces the list", by=CS)
    differential_accepted = must("spec 002 Behavior rule 7; Classes AuthorizationData; Enumerations UpdateStatus",
                                 "a Differential update with a version above the current one is Accepted", by=CS)
    differential_keeps = must("spec 002 Classes AuthorizationData (Differential: present adds or updates, absent "
                              "deletes); Enumerations UpdateType; OCPP 1.6 UpdateType Differential (the current list "
                              "must be updated, where Full replaces it)",
                              "a Differential update leaves the entries it does not name as they were", by=CS)
    version_mismatch = must("spec 002 Enumerations UpdateStatus (VersionMismatch)",
                            "a Differential update whose version is not above the current one is VersionMismatch, and "
                            "the version stays", by=CS)
    disabled = must("spec 002 Enumerations UpdateStatus (NotSupported); TC_042_1_CS; TC_043_1_CS",
                    "with LocalAuthListEnabled false GetLocalListVersion gives -1 and SendLocalList is NotSupported "
                    "(or either is refused with CALLERROR NotSupported)", by=CS)
    failed = must("spec 002 Enumerations UpdateStatus (Failed); TC_043_3_CS",
                  "a charge point that cannot store a local list answers SendLocalList Failed and keeps the list "
                  "(and its version) it had", by=CS)
    reconnects = must("spec 002 What the service does 6; Connection 2",
                      "back online the charge point connects again", by=CS)
    listed_offline = must("spec 002 What the service does 5; Behavior rules 5 and 6",
                          "offline, with LocalAuthorizeOffline true, an identifier the list holds as valid starts a "
                          "transaction, whose StartTransaction is sent once the charge point is back online", by=CS)
    not_valid_refused = must("spec 002 Behavior rule 8",
                             "offline, an identifier the list holds as Invalid, Blocked or Expired starts no "
                             "transaction, even with AllowOfflineTxForUnknownId true", by=CS)
    unknown_allowed = must("spec 002 Behavior rules 5 and 8",
                           "offline, with AllowOfflineTxForUnknownId true, an unknown identifier starts a transaction, "
                           "whose StartTransaction is sent once back online", by=CS)
    every_offline_start = must("spec 002 Behavior rule 5",
                               "back online the charge point sends a StartTransaction for every transaction it "
                               "authorized offline", by=CS)
    unknown_refused = must("spec 002 Behavior rule 8",
                           "offline, with AllowOfflineTxForUnknownId false, an unknown identifier starts no "
                           "transaction", by=CS)
    offline_answered = must("spec 002 Behavior rules 1 and 5; Classes IdTagInfo",
                            "the central system answers the StartTransaction of a transaction authorized offline with "
                            "the idTag's own status: Accepted for a valid one, Invalid for an unknown one", by=CSMS)
    never_cached = must("spec 002 Behavior rule 6",
                        "an identifier in the local list is never added to the Authorization Cache: once deleted "
                        "from the list it is unknown offline, whatever the central system answered about it", by=CS)
    conflict = must("spec 002 States and transitions (Local list: conflict with a StartTransaction.conf)",
                    "a StartTransaction.conf that contradicts the list leaves the list as it is and is reported in a "
                    "StatusNotification of connectorId 0 with errorCode LocalListConflict", by=CS)


pytestmark = case("LOCALLIST16", block="Local Auth List Management (1.6)", roles=("csms", "cs"), protocols=OCPP16,
                  requires=["local_list"])


def _entry(id_tag: str, status: str | None = "Accepted") -> dict:
    """AuthorizationData: with an IdTagInfo (add or update), or without (delete, in a Differential update)."""
    return {"idTag": id_tag} | ({"idTagInfo": {"status": status}} if status else {})


async def _version(ocpp) -> int:
    return (await operate(ocpp, "GetLocalListVersion", {})).result["listVersion"]


async def _send(ocpp, update_type: str, version: int, entries: list[dict]):
    return await operate(ocpp, "SendLocalList", {"listVersion": version, "updateType": update_type,
                                                 "localAuthorizationList": entries})


async def _full(ocpp, entries: list[dict]) -> int:
    """A Full list above the current version, Accepted; its version."""
    version = max(await _version(ocpp), 0) + 1
    check_equal(LOCALLIST16.full_accepted, "SendLocalList.conf status (Full)", "Accepted",
                status_of(await _send(ocpp, "Full", version, entries)))
    return version


def _unknown_tag() -> str:
    return "UNK" + secrets.token_hex(6).upper()


@checks(*ASKED16, LOCALLIST16.version, csms=TC("TC_042_2_CSMS"))
async def test_list_version_is_reported(ocpp):
    """GetLocalListVersion gives a version: 0 or above while the list is enabled."""
    version = await _version(ocpp)
    require(isinstance(version, int) and version >= 0, LOCALLIST16.version,
            "GetLocalListVersion.conf gives no version of an enabled list", expected=">= 0", actual=version)


@checks(*ASKED16, LOCALLIST16.full_accepted, LOCALLIST16.version, csms=TC("TC_043_4_CSMS"))
@needs(tagged("Accepted"), tagged("Blocked"))
async def test_full_update_is_accepted(ocpp, profile):
    """A Full list (a valid and a blocked idTag) is Accepted, and its version is reported after."""
    valid, blocked = tag16(profile, "Accepted").id, tag16(profile, "Blocked").id
    version = await _full(ocpp, [_entry(valid), _entry(blocked, "Blocked")])
    check_equal(LOCALLIST16.version, "GetLocalListVersion.conf listVersion", version, await _version(ocpp))


@checks(*ASKED16, LOCALLIST16.full_accepted, LOCALLIST16.differential_accepted, LOCALLIST16.version,
        cs=TC("TC_043_CS"), csms=TC("TC_043_5_CSMS"))
@needs(tagged("Accepted"))
async def test_differential_update_is_accepted(ocpp, profile):
    """A Full list, then a Differential update one version above that adds an idTag and deletes another."""
    kept = tag16(profile, "Accepted").id
    gone = _unknown_tag()
    version = await _full(ocpp, [_entry(kept), _entry(gone)])
    exchange = await _send(ocpp, "Differential", version + 1, [_entry(_unknown_tag()), _entry(gone, None)])
    check_equal(LOCALLIST16.differential_accepted, "SendLocalList.conf status (Differential)", "Accepted",
                status_of(exchange))
    check_equal(LOCALLIST16.version, "GetLocalListVersion.conf listVersion", version + 1, await _version(ocpp))


@pytest.mark.sut_roles("cs")
@checks(*ASKED16, LOCALLIST16.full_accepted, LOCALLIST16.differential_accepted, LOCALLIST16.reconnects,
        LOCALLIST16.differential_keeps)
async def test_differential_update_keeps_the_entries_it_does_not_name(ocpp, profile):
    """A Full list of two idTags the central system never saw, then a Differential update that deletes one:
    the other, presented offline (LocalAuthorizeOffline true, AllowOfflineTxForUnknownId false: only the
    list can accept it), still starts a transaction."""
    kept, gone, connector = _unknown_tag(), _unknown_tag(), connectors(profile)[0]
    await configure_charge_point(ocpp, {"LocalAuthorizeOffline": "true", "AllowOfflineTxForUnknownId": "false"})
    version = await _full(ocpp, [_entry(kept), _entry(gone)])
    check_equal(LOCALLIST16.differential_accepted, "SendLocalList.conf status (Differential)", "Accepted",
                status_of(await _send(ocpp, "Differential", version + 1, [_entry(gone, None)])))
    await presented_offline(ocpp, kept, connector, reconnects=LOCALLIST16.reconnects)
    await ocpp.expect("StartTransaction", sender=CS, after=0, rule=LOCALLIST16.differential_keeps,
                      where=lambda p: same_tag(p.get("idTag"), kept), why="for the idTag the Differential update "
                      "did not name")


@checks(*ASKED16, LOCALLIST16.full_accepted, LOCALLIST16.version_mismatch, cs=TC("TC_043_2_CS"))
@needs(tagged("Accepted"))
async def test_differential_update_of_an_old_version_is_a_mismatch(ocpp, profile):
    """A Differential update with the list's own version: VersionMismatch, and the version stays."""
    version = await _full(ocpp, [_entry(tag16(profile, "Accepted").id)])
    exchange = await _send(ocpp, "Differential", version, [_entry(_unknown_tag())])
    check_equal(LOCALLIST16.version_mismatch, "SendLocalList.conf status (Differential, same version)",
                "VersionMismatch", status_of(exchange))
    check_equal(LOCALLIST16.version_mismatch, "GetLocalListVersion.conf listVersion", version, await _version(ocpp))


@checks(*ASKED16, LOCALLIST16.failed, LOCALLIST16.version, cs=TC("TC_043_3_CS"), csms=TC("TC_043_3_CSMS"))
@needs(tagged("Accepted"))
async def test_update_that_cannot_be_stored_fails(ocpp, profile):
    """The charge point's list storage fails (``break_local_list_storage``, undone by
    ``repair_local_list_storage``): a Full list is answered Failed, an answer the central system takes
    like any other, and the list version stays as it was."""
    version = await _version(ocpp)
    await ocpp.act(CS, "break_local_list_storage")
    exchange = await _send(ocpp, "Full", max(version, 0) + 1, [_entry(tag16(profile, "Accepted").id)])
    check_equal(LOCALLIST16.failed, "SendLocalList.conf status (storage failing)", "Failed", status_of(exchange))
    check_equal(LOCALLIST16.failed, "GetLocalListVersion.conf listVersion", version, await _version(ocpp))


@pytest.mark.sut_roles("cs")
@checks(Operations16.sent_as_asked, LOCALLIST16.disabled, cs=TC("TC_042_1_CS"))
async def test_disabled_list_has_no_version(ocpp):
    """LocalAuthListEnabled false: GetLocalListVersion gives -1 (or is refused with NotSupported)."""
    await configure_charge_point(ocpp, {"LocalAuthListEnabled": "false"})
    exchange = await ocpp.exchange(CSMS, "GetLocalListVersion", {}, rule=Operations16.sent_as_asked)
    if exchange.error is not None:
        check_equal(LOCALLIST16.disabled, "CALLERROR code", "NotSupported", exchange.error.code)
    else:
        check_equal(LOCALLIST16.disabled, "GetLocalListVersion.conf listVersion", -1, exchange.result["listVersion"])


@pytest.mark.sut_roles("cs")
@checks(Operations16.sent_as_asked, LOCALLIST16.disabled, cs=TC("TC_043_1_CS"))
@needs(tagged("Accepted"))
async def test_disabled_list_is_not_updated(ocpp, profile):
    """LocalAuthListEnabled false: SendLocalList is NotSupported (or refused with NotSupported)."""
    await configure_charge_point(ocpp, {"LocalAuthListEnabled": "false"})
    exchange = await ocpp.exchange(CSMS, "SendLocalList", {
        "listVersion": 1, "updateType": "Full", "localAuthorizationList": [_entry(tag16(profile, "Accepted").id)]},
        rule=Operations16.sent_as_asked)
    if exchange.error is not None:
        check_equal(LOCALLIST16.disabled, "CALLERROR code", "NotSupported", exchange.error.code)
    else:
        check_equal(LOCALLIST16.disabled, "SendLocalList.conf status", "NotSupported", status_of(exchange))


@checks(*ASKED16, LOCALLIST16.full_accepted, LOCALLIST16.reconnects, LOCALLIST16.listed_offline,
        LOCALLIST16.offline_answered, csms=TC("TC_037_1_CSMS"), cs=TC("TC_037_1_CS"))
@needs(tagged("Accepted"))
async def test_listed_identifier_starts_offline(ocpp, profile):
    """A valid idTag on the list, presented while offline with LocalAuthorizeOffline true: the transaction
    starts, and its StartTransaction, sent once back online, is answered Accepted."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await configure_charge_point(ocpp, {"LocalAuthorizeOffline": "true"})
    await _full(ocpp, [_entry(token.id)])
    await presented_offline(ocpp, token.id, connector, reconnects=LOCALLIST16.reconnects)
    started = await ocpp.expect("StartTransaction", sender=CS, after=0, rule=LOCALLIST16.listed_offline,
                                where=lambda p: same_tag(p.get("idTag"), token.id))
    if ocpp.is_sut(CSMS):
        check_equal(LOCALLIST16.offline_answered, "StartTransaction.conf idTagInfo.status", "Accepted",
                    id_tag_status(started))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("status", ["Invalid", "Blocked", "Expired"])
@checks(*ASKED16, LOCALLIST16.full_accepted, LOCALLIST16.reconnects, LOCALLIST16.not_valid_refused)
@needs(lambda given: tag16(given.profile, given.params["status"]))
async def test_listed_identifier_that_is_not_valid_is_refused_offline(ocpp, profile, status):
    """An idTag the list holds as not valid, presented offline (AllowOfflineTxForUnknownId true, which is
    about unknown identifiers only): no transaction."""
    token, connector = tag16(profile, status), connectors(profile)[0]
    await configure_charge_point(ocpp, {"LocalAuthorizeOffline": "true", "AllowOfflineTxForUnknownId": "true"})
    await _full(ocpp, [_entry(token.id, status)])
    await presented_offline(ocpp, token.id, connector, reconnects=LOCALLIST16.reconnects)
    await ocpp.expect_none("StartTransaction", after=0, rule=LOCALLIST16.not_valid_refused,
                           where=lambda p: same_tag(p.get("idTag"), token.id), within=ocpp.timeouts.quiet + NOTICE)


@checks(LOCALLIST16.reconnects, LOCALLIST16.unknown_allowed, LOCALLIST16.offline_answered,
        csms=TC("TC_037_3_CSMS"))
async def test_unknown_identifier_starts_offline_when_allowed(ocpp, profile):
    """AllowOfflineTxForUnknownId true: an unknown idTag starts offline; back online its StartTransaction
    comes, and the central system answers it Invalid (the charge point then stops it)."""
    unknown, connector = _unknown_tag(), connectors(profile)[0]
    await configure_charge_point(ocpp, {"AllowOfflineTxForUnknownId": "true"})
    await presented_offline(ocpp, unknown, connector, reconnects=LOCALLIST16.reconnects)
    started = await ocpp.expect("StartTransaction", sender=CS, after=0, rule=LOCALLIST16.unknown_allowed,
                                where=lambda p: same_tag(p.get("idTag"), unknown))
    if ocpp.is_sut(CSMS):
        check_equal(LOCALLIST16.offline_answered, "StartTransaction.conf idTagInfo.status for an unknown idTag",
                    "Invalid", id_tag_status(started))


def _two_connectors(given) -> None:
    if len(connectors(given.profile)) < 2:
        raise NotApplicable("the profile declares one connector: two transactions at once need two")


@checks(LOCALLIST16.reconnects, LOCALLIST16.unknown_allowed, LOCALLIST16.every_offline_start)
@needs(_two_connectors)
async def test_every_offline_transaction_is_started_online(ocpp, profile):
    """AllowOfflineTxForUnknownId true: two unknown idTags start at two connectors while offline; back online
    a StartTransaction comes for each of them."""
    (first, second), tags = connectors(profile)[:2], (_unknown_tag(), _unknown_tag())
    await configure_charge_point(ocpp, {"AllowOfflineTxForUnknownId": "true"})
    await presented_offline(ocpp, tags[0], first, reconnects=LOCALLIST16.reconnects, also=((tags[1], second),))
    for tag in tags:
        await ocpp.expect("StartTransaction", sender=CS, after=0, rule=LOCALLIST16.every_offline_start,
                          where=lambda p, tag=tag: same_tag(p.get("idTag"), tag))


@pytest.mark.sut_roles("cs")
@checks(LOCALLIST16.reconnects, LOCALLIST16.unknown_refused)
async def test_unknown_identifier_is_refused_offline_when_not_allowed(ocpp, profile):
    """AllowOfflineTxForUnknownId false: an unknown idTag presented offline starts nothing."""
    unknown, connector = _unknown_tag(), connectors(profile)[0]
    await configure_charge_point(ocpp, {"AllowOfflineTxForUnknownId": "false"})
    await presented_offline(ocpp, unknown, connector, reconnects=LOCALLIST16.reconnects)
    await ocpp.expect_none("StartTransaction", after=0, rule=LOCALLIST16.unknown_refused,
                           where=lambda p: same_tag(p.get("idTag"), unknown), within=ocpp.timeouts.quiet + NOTICE)


@pytest.mark.sut_roles("cs")
@checks(*ASKED16, LOCALLIST16.full_accepted, Core16.start, LOCALLIST16.conflict)
@needs(tagged("Accepted"))
async def test_conflict_with_the_list_is_reported(ocpp, profile):
    """The list accepts an idTag, LocalPreAuthorize true, the central system refuses it at StartTransaction:
    StatusNotification of connector 0 with errorCode LocalListConflict."""
    token, connector = tag16(profile, "Accepted"), connectors(profile)[0]
    await configure_charge_point(ocpp, {"LocalPreAuthorize": "true"})
    await _full(ocpp, [_entry(token.id)])
    ocpp.configure(start_refused="Invalid")
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=token.id, connector_id=connector)
    await ocpp.act(CS, "plug_in", connector_id=connector)
    started = await ocpp.expect("StartTransaction", sender=CS, after=mark, rule=Core16.start,
                                where=lambda p: same_tag(p.get("idTag"), token.id))
    report = await ocpp.expect("StatusNotification", sender=CS, after=ocpp.mark_after(started),
                               rule=LOCALLIST16.conflict, where=lambda p: p.get("errorCode") == "LocalListConflict")
    check_in(LOCALLIST16.conflict, "StatusNotification.req connectorId of the LocalListConflict", {0},
             report.request["connectorId"])



@pytest.mark.sut_roles("cs")
@pytest.mark.requires("authorization_cache")
@checks(*ASKED16, LOCALLIST16.full_accepted, LOCALLIST16.differential_accepted, Core16.start, Core16.stops,
        LOCALLIST16.reconnects, LOCALLIST16.never_cached)
async def test_listed_identifier_is_never_cached(ocpp, profile):
    """An idTag on the list starts and stops a transaction (the central system answers it Accepted in
    StartTransaction and StopTransaction, and in Authorize if asked), then is deleted from the list: offline,
    with AllowOfflineTxForUnknownId false, it starts nothing, as nothing about it may be in the cache."""
    listed, connector = Token("listed", _unknown_tag(), "ISO14443", "Accepted"), connectors(profile)[0]
    ocpp.configure(given_id_tag_info={listed.id: {"status": "Accepted"}})
    await configure_charge_point(ocpp, {"AuthorizationCacheEnabled": "true", "LocalAuthorizeOffline": "true",
                                        "AllowOfflineTxForUnknownId": "false"})
    version = await _full(ocpp, [_entry(listed.id)])
    mark = ocpp.mark()
    await ocpp.act(CS, "present_id_tag", id_tag=listed.id, connector_id=connector)
    await ocpp.act(CS, "plug_in", connector_id=connector)
    await ocpp.expect("StartTransaction", sender=CS, after=mark, rule=Core16.start,
                      where=lambda p: same_tag(p.get("idTag"), listed.id))
    await stop(ocpp, listed, connector)
    await ocpp.act(CS, "unplug", connector_id=connector)
    check_equal(LOCALLIST16.differential_accepted, "SendLocalList.conf status (Differential, deleting the idTag)",
                "Accepted", status_of(await _send(ocpp, "Differential", version + 1, [_entry(listed.id, None)])))
    await presented_offline(ocpp, listed.id, connector, reconnects=LOCALLIST16.reconnects)
    await ocpp.expect_none("StartTransaction", after=0, rule=LOCALLIST16.never_cached,
                           where=lambda p: same_tag(p.get("idTag"), listed.id), within=ocpp.timeouts.quiet + NOTICE)
