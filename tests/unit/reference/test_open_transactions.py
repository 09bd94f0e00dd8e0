"""Facing a station under test, the harness's CSMS knows which transactions the station left running: those it
started and did not end, noted on every connection; each version's transactions block says which CALLs start
and end one, and which CALL stops one."""

import pytest

from harness.ocpp.framing import Call, CallError
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms, ReferenceCsms16
from harness.settings import reference_profile
from harness.transport.ws import Exchange

PROFILE = reference_profile()


def _start16(number: int) -> Exchange:
    return Exchange(Call(f"s{number}", "StartTransaction", {"connectorId": 1, "idTag": "A", "meterStart": 0,
                                                            "timestamp": "2026-11-28T00:00:00Z"}),
                    incoming=True, response={"transactionId": number, "idTagInfo": {"status": "Accepted"}},
                    answered=True, version=OcppVersion.V16)


def _stop16(number: int) -> Exchange:
    return Exchange(Call(f"e{number}", "StopTransaction", {"transactionId": number, "meterStop": 1,
                                                           "timestamp": "2026-11-28T00:00:00Z"}),
                    incoming=True, response={}, answered=True, version=OcppVersion.V16)


def _event(transaction_id: str, event_type: str) -> Exchange:
    return Exchange(Call(f"{event_type}{transaction_id}", "TransactionEvent",
                         {"eventType": event_type, "transactionInfo": {"transactionId": transaction_id}}),
                    incoming=True, response={}, answered=True, version=OcppVersion.V201)


def _refused(exchange: Exchange) -> Exchange:
    return Exchange(exchange.call, incoming=True, error=CallError(exchange.call.id, "FormationViolation"),
                    answered=True, version=exchange.version)


@pytest.mark.parametrize("csms, version, started, ended, stop", [
    (ReferenceCsms16, OcppVersion.V16, [_start16(1), _start16(2), _refused(_start16(3))], [_stop16(1)],
     ("RemoteStopTransaction", {"transactionId": 2})),
    (ReferenceCsms, OcppVersion.V201, [_event("t1", "Started"), _event("t2", "Updated"),
                                       _refused(_event("t3", "Started"))], [_event("t1", "Ended")],
     ("RequestStopTransaction", {"transactionId": "t2"})),
], ids=["1.6", "2.0.1"])
def test_the_transactions_left_running_are_those_started_and_not_ended(csms, version, started, ended, stop):
    """Started (or reported going on) and not ended, a refused CALL changing nothing; the one left is stopped
    with the version's remote stop."""
    central = csms(PROFILE, [version])
    central.note_transactions()
    for exchange in [*started, *ended]:
        central.server.on_answered[-1](exchange)
    [left] = central.open_transactions()
    assert central.remote_stop(left) == stop


def test_a_csms_that_replaces_another_keeps_what_it_noted():
    """Served anew (a TLS test), the harness's CSMS still stops what the station started before."""
    central = ReferenceCsms16(PROFILE, [OcppVersion.V16])
    central.note_transactions(already=[7])
    central.server.on_answered[-1](_start16(8))
    assert central.open_transactions() == [7, 8]
