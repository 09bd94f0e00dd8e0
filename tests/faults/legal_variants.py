"""Legal variants of the references (issue #32, "every legal reading passes"): systems that take a reading of the
texts other than the references' own, or leave out what the texts leave optional. None of them is a fault; the
harness must pass them (or find a test not applicable). Imported as the top-level module ``legal_variants`` (this
folder is on the path, see tests/conftest.py), played with ``--embedded-sut legal_variants:<Class>`` by
``test_legal_variants.py``.
"""

from __future__ import annotations

import dataclasses

from harness.ocpp.framing import UNKNOWN_ID, Call, CallError, FrameError, parse, serialize
from harness.ocpp.rpc import RpcEndpoint
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms


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
