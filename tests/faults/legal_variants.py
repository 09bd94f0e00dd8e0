"""Legal variants of the references (issue #32, "every legal reading passes"): systems that take a reading of the
texts other than the references' own, or leave out what the texts leave optional. None of them is a fault; the
harness must pass them (or find a test not applicable). Imported as the top-level module ``legal_variants`` (this
folder is on the path, see tests/conftest.py), played with ``--embedded-sut legal_variants:<Class>`` by
``test_legal_variants.py``.
"""

from __future__ import annotations

from harness.ocpp.framing import Call, CallError, FrameError, parse, serialize
from harness.reference import ReferenceCsms


class CsmsWithoutDataTransfer(ReferenceCsms):
    """A 2.x CSMS that leaves out the optional DataTransfer: it answers every DataTransfer NotImplemented before it
    reads the payload, and its actuator cannot send one."""

    def _on_connect(self, identity, version):
        handler, attach = super()._on_connect(identity, version)

        async def attach_without_data_transfer(connection) -> None:
            endpoint, receive = connection.endpoint, connection.endpoint.receive

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
            await attach(connection)

        return handler, attach_without_data_transfer

    def supported_actions(self) -> set[str]:
        return super().supported_actions() - {"data_transfer"}
