"""The reference CSMS's side of direct payment (2.1, spec 001 Transaction event rule 1; Direct payment and
settlement rules 1-2; VatNumberValidation), worked out by hand: no socket, the handlers called directly."""

import pytest

from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms
from harness.reference.base import StationSession
from harness.settings import reference_profile

PAID = {"idToken": "PSP-0001", "type": "DirectPayment"}


def _csms():
    return ReferenceCsms(reference_profile(), [OcppVersion.V21]), StationSession("CS001", OcppVersion.V21)


def _event(event_type, trigger, wh=None):
    payload = {"eventType": event_type, "timestamp": "2026-01-01T00:00:00Z", "triggerReason": trigger, "seqNo": 0,
               "transactionInfo": {"transactionId": "TX-1"}, "idToken": PAID}
    if wh is not None:
        payload["meterValue"] = [{"timestamp": "2026-01-01T00:00:00Z", "sampledValue": [
            {"value": wh, "measurand": "Energy.Active.Import.Register"}]}]
    return payload


@pytest.mark.parametrize("trigger, energy, total_cost", [
    ("StopAuthorized", (), 0.0),                  # cancelled, nothing charged: rule 1
    ("EVConnectTimeout", (1000, 1000), 0.0),      # the register never moved
    ("StopAuthorized", (1000, 1500), None),       # energy flowed: a real end, not a cancellation
    ("EVCommunicationLost", (), None),            # not a cancellation
])
def test_cancelled_transaction_without_energy_costs_nothing(trigger, energy, total_cost):
    csms, session = _csms()
    csms.transaction_answer(session, _event("Started", "Authorized", *energy[:1]))
    answer = csms.transaction_answer(session, _event("Ended", trigger, *energy[1:]))
    assert answer.get("totalCost") == total_cost
    assert answer["idTokenInfo"]["status"] == "Accepted"


def test_settled_payment_gets_a_receipt_when_the_csms_makes_them():
    csms, session = _csms()
    settled = {"pspRef": "PSP-0001", "status": "Settled", "settlementAmount": 12.5, "settlementTime": "x"}
    assert csms.on_NotifySettlement(session, settled)["receiptUrl"].endswith("PSP-0001")
    assert csms.on_NotifySettlement(session, settled | {"status": "Failed"}) == {}


def test_vat_number_is_accepted_with_its_company_only_when_known():
    csms, session = _csms()
    known = csms.on_VatNumberValidation(session, {"vatNumber": "nl001234567b01", "evseId": 1})
    assert known["status"] == "Accepted" and known["company"]["name"] == "Reference Fleet B.V." and known["evseId"] == 1
    assert csms.on_VatNumberValidation(session, {"vatNumber": "NL000000000B00"}) == \
        {"vatNumber": "NL000000000B00", "status": "Rejected"}


def test_direct_payment_tariff_only_for_direct_payment_tokens_in_2_1():
    csms, session = _csms()
    csms.configure(direct_payment_tariff={"tariffId": "T", "currency": "EUR"})
    assert csms.on_Authorize(session, {"idToken": PAID})["tariff"] == {"tariffId": "T", "currency": "EUR"}
    assert "tariff" not in csms.on_Authorize(session, {"idToken": {"idToken": "AA00000001", "type": "ISO14443"}})
    old = StationSession("CS001", OcppVersion.V201)
    assert "tariff" not in csms.on_Authorize(old, {"idToken": PAID})
