"""ocpp-csms (PyPI, an asyncio OCPP 1.6-J central system for local control of chargers) under test, with the
thinnest HTTP actuator: each action is one of its own ``ChargePoint.async_*`` methods, or its documented
``async_call(request)`` for a 1.6 CALL it has no method for. Its three hooks carry the profile's provisioning:
``authenticate`` (the charge point's AuthorizationKey), ``registration`` (the status ``set_registration`` chose)
and ``authorize`` (the profile's [tokens]).

    python interop/ocpp_csms_sut.py csms --port 9000 --actuator-port 9100 --profile profiles/interop-ocpp-csms.toml

What it cannot do: rotate_authorization_key (it never changes a key; answered 501). Left out of its profile: a
DataTransfer vendor of its own (it answers UnknownVendorId to every vendor unless the integrator writes a handler:
we write none), groups (its authorize hook returns a status, no parentIdTag), TLS (not set up).
"""

from __future__ import annotations

import asyncio

from common import Tasks, run, token_statuses
from ocpp.v16 import call
from ocpp_csms import AuthorizationStatus, AvailabilityType, CentralSystem, MessageTrigger, RegistrationStatus
from ocpp_csms.const import ResetType


class OcppCsms:
    ACTIONS = ("set_registration", "remote_start_transaction", "remote_stop_transaction", "get_configuration",
               "change_configuration", "reset", "data_transfer", "change_availability", "unlock_connector",
               "clear_cache", "get_local_list_version", "send_local_list", "reserve_now", "cancel_reservation",
               "trigger_message", "update_firmware", "get_diagnostics", "set_charging_profile",
               "get_composite_schedule", "clear_charging_profile")

    def __init__(self, profile: dict):
        self.identity = profile["station"]["identity"]
        self.key = bytes.fromhex(profile["station"]["authorization_key"]).decode()
        self.tokens = token_statuses(profile)
        self.registration_status = RegistrationStatus.ACCEPTED
        self.tasks = Tasks("ocpp-csms adapter")
        self.central: CentralSystem | None = None

    async def run(self, port: int, stop: asyncio.Event) -> None:
        async def authenticate(charge_point_id: str, password: str | None) -> bool:
            return charge_point_id == self.identity and password == self.key

        async def registration(charge_point, info) -> RegistrationStatus:
            return self.registration_status

        async def authorize(charge_point, id_tag: str) -> AuthorizationStatus:
            return AuthorizationStatus(self.tokens.get(id_tag.upper(), "Invalid"))

        async with CentralSystem(host="127.0.0.1", port=port, authenticate=authenticate,
                                 registration=registration, authorize=authorize) as central:
            self.central = central
            print(f"CSMS listening on ws://127.0.0.1:{port}/ocpp", flush=True)
            await stop.wait()

    def station(self, station: str | None = None):
        charge_point = self.central.charge_points.get(station or self.identity) if self.central else None
        if charge_point is None or not charge_point.connected:
            raise LookupError(f"charge point {station or self.identity} is not connected")
        return charge_point

    def send(self, request, station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_call(request))

    # ---- actuator actions: each starts one CALL and returns
    async def set_registration(self, status: str) -> None:
        self.registration_status = RegistrationStatus(status)

    async def remote_start_transaction(self, id_tag: str, connector_id: int | None = None,
                                       station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_remote_start_transaction(id_tag, connector_id))

    async def remote_stop_transaction(self, transaction_id: int, station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_remote_stop_transaction(transaction_id))

    async def get_configuration(self, keys: list[str] | None = None, station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_get_configuration(keys))

    async def change_configuration(self, key: str, value: str, station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_change_configuration(key, value))

    async def reset(self, type: str, station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_reset(ResetType(type)))

    async def data_transfer(self, vendor_id: str, message_id: str | None = None, data=None,
                            station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_data_transfer(vendor_id, message_id, data))

    async def change_availability(self, connector_id: int, type: str, station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_change_availability(connector_id, AvailabilityType(type)))

    async def unlock_connector(self, connector_id: int, station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_unlock_connector(connector_id))

    async def trigger_message(self, requested_message: str, connector_id: int | None = None,
                              station: str | None = None) -> None:
        self.tasks.spawn(self.station(station).async_trigger_message(MessageTrigger(requested_message), connector_id))

    # what it has no method for goes through its documented async_call(request)
    async def clear_cache(self, station: str | None = None) -> None:
        self.send(call.ClearCache(), station)

    async def get_local_list_version(self, station: str | None = None) -> None:
        self.send(call.GetLocalListVersion(), station)

    async def send_local_list(self, list_version: int, update_type: str, local_authorization_list=None,
                              station: str | None = None) -> None:
        self.send(call.SendLocalList(list_version=list_version, update_type=update_type,
                                     local_authorization_list=local_authorization_list), station)

    async def reserve_now(self, connector_id: int, expiry_date: str, id_tag: str, reservation_id: int,
                          parent_id_tag: str | None = None, station: str | None = None) -> None:
        self.send(call.ReserveNow(connector_id=connector_id, expiry_date=expiry_date, id_tag=id_tag,
                                  reservation_id=reservation_id, parent_id_tag=parent_id_tag), station)

    async def cancel_reservation(self, reservation_id: int, station: str | None = None) -> None:
        self.send(call.CancelReservation(reservation_id=reservation_id), station)

    async def update_firmware(self, location: str, retrieve_date: str, retries: int | None = None,
                              retry_interval: int | None = None, station: str | None = None) -> None:
        self.send(call.UpdateFirmware(location=location, retrieve_date=retrieve_date, retries=retries,
                                      retry_interval=retry_interval), station)

    async def get_diagnostics(self, location: str, retries: int | None = None, retry_interval: int | None = None,
                              start_time: str | None = None, stop_time: str | None = None,
                              station: str | None = None) -> None:
        self.send(call.GetDiagnostics(location=location, retries=retries, retry_interval=retry_interval,
                                      start_time=start_time, stop_time=stop_time), station)

    async def set_charging_profile(self, connector_id: int, cs_charging_profiles: dict,
                                   station: str | None = None) -> None:
        self.send(call.SetChargingProfile(connector_id=connector_id, cs_charging_profiles=cs_charging_profiles),
                  station)

    async def get_composite_schedule(self, connector_id: int, duration: int, charging_rate_unit: str | None = None,
                                     station: str | None = None) -> None:
        self.send(call.GetCompositeSchedule(connector_id=connector_id, duration=duration,
                                            charging_rate_unit=charging_rate_unit), station)

    async def clear_charging_profile(self, id: int | None = None, connector_id: int | None = None,
                                     charging_profile_purpose: str | None = None, stack_level: int | None = None,
                                     station: str | None = None) -> None:
        self.send(call.ClearChargingProfile(id=id, connector_id=connector_id,
                                            charging_profile_purpose=charging_profile_purpose,
                                            stack_level=stack_level), station)


if __name__ == "__main__":
    run(OcppCsms, __doc__)
