"""The Plug and Charge dialogue (C07): an EV presents its contract certificate, the station asks the CSMS.

The contract certificates come from the run's contract PKI (``harness.contract_pki.for_run``); the
OCSP responder their responderURL names is the harness's, on loopback, started for the test that needs
it and stopped when it ends. Played from either side: the harness's station sends the AuthorizeRequest
a correct station sends (hash data, or the whole chain), a station under test is made to send its own
by the actuator action ``plug_in_pnc``.
"""

from __future__ import annotations

from harness import contract_pki
from harness.arena.ocpp import OcppArena
from harness.roles import CS
from harness.errors import HarnessError, NotApplicable
from harness.rules import Rule
from harness.transport.ocsp import OcspResponder
from harness.transport.ws import Exchange
from harness.usecases.authorization import Authorization, set_station_variable, station_variable
from harness.verdict import check_equal, check_in, dig, require

CENTRAL_VALIDATION = ("ISO15118Ctrlr", "CentralContractValidationAllowed")


async def ocsp_responder(arena: OcppArena) -> contract_pki.ContractPki:
    """The run's OCSP responder serves for this test; returns the run's contract PKI. A real SUT judges
    contracts only under a V2G root it trusts: without the profile's [plug_and_charge] there is none."""
    if not arena.embedded and not arena.profile.get("plug_and_charge"):
        raise NotApplicable("the profile names no V2G root the SUT trusts: give [plug_and_charge] root_certificate "
                            "and root_key (profiles/README.md), and the harness issues the contracts under it")
    run = contract_pki.for_run(arena.profile)
    try:
        responder = await OcspResponder(run.ocsp_response, run.port).start()
    except OSError as error:
        raise HarnessError(f"the OCSP responder cannot listen at {run.responder_url} ({error}); free the port "
                           f"or end the process holding it") from None
    arena.undo("stop the OCSP responder", responder.stop)
    return run


async def central_validation(arena: OcppArena, allowed: bool) -> None:
    """A station under test with CentralContractValidationAllowed as ``allowed`` for this test. A station
    without the variable never sends the chain (it counts as false); one that refuses true has no
    whole-chain path (not applicable)."""
    if not arena.is_sut(CS):
        return
    if allowed:
        await station_variable(arena, *CENTRAL_VALIDATION, "true")
        return
    status = await set_station_variable(arena, *CENTRAL_VALIDATION, "false")
    if status not in ("Accepted", "UnknownComponent", "UnknownVariable"):
        raise NotApplicable(f"the station answered SetVariables {'.'.join(CENTRAL_VALIDATION)}=false {status}: "
                            f"the test needs it to validate contracts through hash data")


def contract_request(contract: contract_pki.Contract, central: bool) -> dict:
    """The AuthorizeRequest of a correct station: the whole chain when it validates centrally, else
    the contract certificate's OCSP request data."""
    request = {"idToken": {"idToken": contract.emaid, "type": "eMAID"}}
    if central:
        return request | {"certificate": contract.chain_pem()}
    return request | {"iso15118CertificateHashData": [contract.hash_data()]}


async def present_contract(arena: OcppArena, contract: contract_pki.Contract, evse_id: int, *,
                           central: bool) -> Exchange:
    """The EV presents ``contract`` at ``evse_id`` (the cable in) and the station asks the CSMS."""
    return await arena.exchange(CS, "Authorize", contract_request(contract, central),
                                trigger=("plug_in_pnc", {"evse_id": evse_id, "certificate": contract.chain_pem()}),
                                rule=Authorization.sent)


def check_contract_token(request: dict, contract: contract_pki.Contract, rule: Rule) -> None:
    """The idToken of a contract's AuthorizeRequest is its eMAID (case-insensitive), of type eMAID."""
    check_equal(rule, "AuthorizeRequest idToken.idToken (the contract's eMAID, case-insensitive)",
                contract.emaid.casefold(), str(dig(request, "idToken.idToken", "")).casefold())
    check_equal(rule, "AuthorizeRequest idToken.type", "eMAID", dig(request, "idToken.type"))


def check_hash_data(request: dict, contract: contract_pki.Contract, rule: Rule) -> None:
    """iso15118CertificateHashData holds an item for the contract certificate (found by its serial) whose
    hashes are those of its issuer under the item's hashAlgorithm, and its responderURL. Items for the
    sub-CAs may come too; they are not judged."""
    items = request.get("iso15118CertificateHashData") or []
    require(items, rule, "the AuthorizeRequest for a contract carries no iso15118CertificateHashData",
            expected="the contract certificate's OCSP request data", actual=sorted(request))
    serial = contract.certificate.serial_number
    item = next((i for i in items if _serial(i) == serial), None)
    require(item is not None, rule, "no iso15118CertificateHashData item has the contract certificate's serialNumber",
            expected=f"{serial:x}", actual=[i.get("serialNumber") for i in items])
    check_in(rule, "iso15118CertificateHashData hashAlgorithm", set(contract_pki.HASHES), item.get("hashAlgorithm"))
    expected = contract.hash_data(item["hashAlgorithm"])
    for field in ("issuerNameHash", "issuerKeyHash"):
        check_equal(rule, f"iso15118CertificateHashData {field} (hex, {item['hashAlgorithm']})", expected[field],
                    str(item.get(field, "")).lower())
    check_equal(rule, "iso15118CertificateHashData responderURL", expected["responderURL"], item.get("responderURL"))


def _serial(item: dict) -> int | None:
    try:
        return int(str(item.get("serialNumber", "")), 16)
    except ValueError:
        return None


def check_chain(request: dict, contract: contract_pki.Contract, rule: Rule) -> None:
    """``certificate`` is the PEM chain: the contract certificate first, then every sub-CA of its chain."""
    try:
        sent = contract_pki.load_chain(request.get("certificate") or "")
    except ValueError:
        sent = []
    require(sent, rule, "the AuthorizeRequest carries no PEM certificate chain in certificate",
            expected="the contract certificate and its sub-CAs, PEM", actual=sorted(request))
    require(sent[0] == contract.certificate, rule, "the chain in certificate does not start with the contract "
            "certificate", expected=contract.certificate.subject.rfc4514_string(), actual=sent[0].subject.rfc4514_string())
    missing = [c.subject.rfc4514_string() for c in contract.issued.chain if c not in sent]
    require(not missing, rule, "the chain in certificate leaves out sub-CAs of the contract certificate",
            expected="every sub-CA the EV presented", actual=f"missing {missing}")
