"""The OCPP references are compositions of blocks: each version gets exactly the messages, actions
and settings of the blocks that serve it, and a composition that does not fit is refused."""

import pytest

from harness.errors import HarnessError
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms, ReferenceCsms16, ReferenceStation, ReferenceStation16, references_for
from harness.reference.base import StationBase
from harness.reference.common import V2X, V16, Block
from harness.reference.compose import CSMS_BLOCKS, STATION_BLOCKS, blocks_for
from harness.settings import reference_profile

PROFILE = reference_profile()


def _messages(cls: type) -> set[str]:
    return {name.removeprefix("on_") for name in dir(cls) if name.startswith("on_")}


@pytest.mark.parametrize("reference, messages, actions, settings", [
    (ReferenceStation,
     {"RequestStartTransaction", "RequestStopTransaction", "Reset", "DataTransfer", "SetChargingProfile",
      "GetCompositeSchedule", "ClearChargingProfile", "GetChargingProfiles", "ClearCache", "SetVariables",
      "GetVariables", "GetLocalListVersion", "SendLocalList", "NotifyWebPaymentStarted"},
     {"present_id_token", "plug_in", "unplug", "data_transfer", "press_start_button", "plug_in_hlc",
      "set_external_limit", "release_external_limit", "ev_charging_needs", "plug_in_pnc", "card_payment",
      "cancel_payment", "fail_settlement", "raise_payment", "enter_vat_number"},
     {"local_authorization", "tx_updated_interval", "stop_tx_on_invalid_id", "tx_stop_point", "max_energy_on_invalid_id",
      "offline_tx_for_unknown_id", "local_list_version", "reconnects"}),
    (ReferenceStation16,
     {"RemoteStartTransaction", "RemoteStopTransaction", "Reset", "GetConfiguration", "ChangeConfiguration",
      "DataTransfer", "SetChargingProfile", "GetCompositeSchedule", "ClearChargingProfile", "ChangeAvailability",
      "UnlockConnector", "ClearCache", "GetLocalListVersion", "SendLocalList", "ReserveNow", "CancelReservation",
      "TriggerMessage", "UpdateFirmware", "GetDiagnostics"},
     {"present_id_tag", "start_locally_authorized", "plug_in", "unplug", "data_transfer", "fault_connector",
      "clear_fault", "break_local_list_storage", "repair_local_list_storage"},
     {"reconnects", "availability_refused", "unlock_result", "reservations_refused", "trigger_answer"}),
    (ReferenceCsms,
     {"BootNotification", "Heartbeat", "StatusNotification", "NotifyEvent", "Authorize", "TransactionEvent",
      "MeterValues", "DataTransfer", "ReportChargingProfiles", "NotifyChargingLimit", "ClearedChargingLimit",
      "NotifyEVChargingNeeds", "NotifyEVChargingSchedule", "NotifySettlement", "VatNumberValidation"},
     {"request_start_transaction", "request_start_transaction_with_profile", "request_stop_transaction",
      "data_transfer", "set_charging_profile",
      "get_composite_schedule", "get_charging_profiles", "clear_charging_profile", "clear_cache",
      "get_local_list_version", "send_local_list", "ad_hoc_payment", "scan_qr_code"},
     {"heartbeat_interval", "token_status", "id_token_info_extra", "charging_priority", "direct_payment_tariff"}),
    (ReferenceCsms16,
     {"BootNotification", "Heartbeat", "StatusNotification", "Authorize", "StartTransaction", "MeterValues",
      "StopTransaction", "DataTransfer", "DiagnosticsStatusNotification", "FirmwareStatusNotification"},
     {"set_registration", "rotate_authorization_key", "remote_start_transaction", "remote_stop_transaction",
      "get_configuration", "change_configuration", "reset", "data_transfer", "change_availability",
      "unlock_connector", "clear_cache", "get_local_list_version", "send_local_list", "reserve_now",
      "cancel_reservation", "trigger_message", "set_charging_profile", "get_composite_schedule",
      "clear_charging_profile", "update_firmware", "get_diagnostics"},
     {"heartbeat_interval", "registration", "retry_interval", "rotate_on_boot", "start_refused",
      "given_id_tag_info"}),
], ids=["station-2x", "station-16", "csms-2x", "csms-16"])
def test_a_reference_has_the_messages_actions_and_settings_of_its_blocks(reference, messages, actions, settings):
    station = issubclass(reference, StationBase)
    blocks = blocks_for(STATION_BLOCKS if station else CSMS_BLOCKS, reference.versions)
    assert [b for b in reference.__mro__ if b in blocks] == list(blocks)
    assert _messages(reference) == messages
    assert {a for b in blocks for a in b.actions()} == actions
    assert reference.configurable == frozenset(settings)
    side = reference(PROFILE, min(reference.versions)) if station else reference(PROFILE, sorted(reference.versions))
    assert side.supported_actions() == actions


def test_every_version_has_its_references():
    assert references_for(OcppVersion.V16) == (ReferenceCsms16, ReferenceStation16)
    assert references_for(OcppVersion.V201) == references_for(OcppVersion.V21) == (ReferenceCsms, ReferenceStation)


def test_a_block_whose_requirement_does_not_serve_the_version_is_refused():
    class Needy(Block):
        versions = V16
        requires = ("TransactionsStation2x",)

    with pytest.raises(HarnessError, match="Needy requires TransactionsStation2x"):
        blocks_for((*STATION_BLOCKS, Needy), V16)


def test_two_blocks_answering_one_message_are_refused():
    class AnotherReset(Block):
        versions = V2X

        def on_Reset(self, _, payload):
            return {"status": "Rejected"}

    with pytest.raises(HarnessError, match="on_Reset is defined by both ResetStation2x and AnotherReset"):
        blocks_for((*STATION_BLOCKS, AnotherReset), V2X)
