"""The 2.x references' Plug and Charge (C07) without an OCPP connection: the station's AuthorizeRequest for a
presented chain, the CSMS's decision matrix against the run's OCSP responder on loopback."""

from types import SimpleNamespace

import pytest

from harness import contract_pki
from harness.ocpp.versions import OcppVersion
from harness.reference import ReferenceCsms, ReferenceStation
from harness.settings import reference_profile
from harness.transport.ocsp import OcspResponder

PROFILE = reference_profile()
ACCEPTED, BLOCKED = PROFILE.token("emaid").id, PROFILE.token("emaid_blocked").id


@pytest.fixture
async def csms():
    run = contract_pki.for_run(PROFILE)
    responder = await OcspResponder(run.ocsp_response, run.port).start()
    yield ReferenceCsms(PROFILE, [OcppVersion.V201]), run, SimpleNamespace(identity=PROFILE.identity, transactions={})
    await responder.stop()


@pytest.mark.parametrize("emaid, kind, central, answer", [
    (ACCEPTED, "valid", False, ("Accepted", "Accepted")),
    (BLOCKED, "valid", True, ("ContractCancelled", "Blocked")),
    (ACCEPTED, "revoked", False, ("CertificateRevoked", "Invalid")),
    (ACCEPTED, "expired", True, ("CertificateExpired", "Expired")),
    (ACCEPTED, "unverifiable", True, ("CertChainError", "Invalid")),
])
async def test_the_csms_answers_the_matrix(csms, emaid, kind, central, answer):
    reference, run, session = csms
    contract = run.contract(emaid, kind)
    request = {"idToken": {"idToken": emaid, "type": "eMAID"}} | (
        {"certificate": contract.chain_pem()} if central else {"iso15118CertificateHashData": [contract.hash_data()]})
    response = await reference.on_Authorize(session, request)
    assert (response["certificateStatus"], response["idTokenInfo"]["status"]) == answer


async def test_a_responder_outside_the_run_is_never_asked(csms):
    reference, run, session = csms
    item = run.contract(ACCEPTED).hash_data() | {"responderURL": "http://ocsp.example.com/"}
    response = await reference.on_Authorize(session, {"idToken": {"idToken": ACCEPTED, "type": "eMAID"},
                                                      "iso15118CertificateHashData": [item]})
    assert response["certificateStatus"] == "CertChainError"


@pytest.mark.parametrize("central", [False, True])
def test_the_station_asks_with_hash_data_or_the_chain(central):
    station = ReferenceStation(PROFILE, OcppVersion.V201)
    station.variables[("ISO15118Ctrlr", "CentralContractValidationAllowed")] = "true" if central else "false"
    contract = contract_pki.for_run(PROFILE).contract(ACCEPTED)
    request = station.contract_request(contract.chain_pem())
    assert request["idToken"] == {"idToken": ACCEPTED, "type": "eMAID"}
    if central:
        assert request["certificate"] == contract.chain_pem() and "iso15118CertificateHashData" not in request
    else:
        assert request["iso15118CertificateHashData"] == [contract.hash_data()] and "certificate" not in request
