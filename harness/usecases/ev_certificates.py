"""The ISO 15118 certificates an EV or a station needs through OCPP (M01, M02, M06), the steps the suites share.

M01/M02: an EV asks for a contract certificate (Install) or its renewal (Update) over ISO 15118; the station
forwards the EV's EXI message, base64-encoded and never parsed, in Get15118EVCertificate, and the CSMS answers
with the EXI answer of the secondary actor (a contract certificate pool), base64-encoded. The harness's CSMS
stands in for that actor (opaque bytes); a station under test is made to forward by the actuator action
``ev_certificate``. M06: the station asks the OCSP status of a (V2G) certificate with GetCertificateStatus; the
CSMS asks the responder the request data names and relays its DER answer, base64-encoded. The certificate the
harness's station asks about is issued by the run's contract PKI, whose OCSP responder (loopback) serves the
test. docs/requirements/security.md."""

from __future__ import annotations

import base64
import binascii
import re

from cryptography.x509 import ocsp

from harness import contract_pki
from harness.arena.ocpp import OcppArena
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import Rule, RuleTable, must, should
from harness.transport.ws import Exchange
from harness.usecases.operations import status_of
from harness.usecases.plug_and_charge import ocsp_responder
from harness.verdict import check_equal, require, violated

ISO15118_2 = "urn:iso:15118:2:2013:MsgDef"
ISO15118_20 = "urn:iso:std:iso:15118:-20:CommonMessages"
# what an EV of an ISO 15118-20 session asks for besides its EXI message (2.1): how many contract certificate
# chains it takes, and which contracts (EMAIDs) first when there are more
EV_20 = {"maximumContractCertificateChains": 2, "prioritizedEMAIDs": ["NLHRXC000000014", "NLHRXC000000023"]}
SESSION_20 = ("maximumContractCertificateChains", "prioritizedEMAIDs")
STAND_IN = b"\x80\x98\x02 EXI stand-in of the harness's EV"   # opaque: nothing parses EXI here
DIGEST_HEX = {"SHA256": 64, "SHA384": 96, "SHA512": 128}


class EvCertificates(RuleTable, namespace="evcert"):
    """An EV's certificate installation (M01) and update (M02), forwarded."""
    install_forwarded = must("OCPP 2.0.1 M01.FR.01 (tzi-OCTT TC_M_26_CSMS)", "a station forwards an EV's "
                             "CertificateInstallationReq in Get15118EVCertificate with action Install", by=CS)
    update_forwarded = must("OCPP 2.0.1 M02.FR.01 (tzi-OCTT TC_M_28_CSMS)", "a station forwards an EV's "
                            "CertificateUpdateReq in Get15118EVCertificate with action Update", by=CS)
    exi_request = should("OCPP 2.0.1/2.1 Get15118EVCertificateRequest exiRequest, iso15118SchemaVersion "
                         "(schema descriptions: the raw request, base64; the schema version the CSMS parses it by)",
                         "the EV's message is base64 (non-empty) and the ISO 15118 schema version is named", by=CS)
    answered = should("tzi-OCTT TC_M_26_CSMS, TC_M_28_CSMS (tool validation: status Accepted); no SHALL for the "
                      "CSMS's answer was found in the public sources", "a CSMS whose secondary actor answers "
                      "returns Accepted", by=CSMS)
    chains_forwarded = should("OCPP 2.1 Get15118EVCertificateRequest maximumContractCertificateChains (schema "
                              "description: required during an ISO 15118-20 session) and prioritizedEMAIDs (optional "
                              "then, the EMAIDs to request first); no SHALL", "in an ISO 15118-20 session the station "
                              "forwards the EV's maximum number of contract certificate chains, and its prioritized "
                              "EMAIDs as the EV listed them", by=CS)
    absent_in_2 = should("OCPP 2.1 Get15118EVCertificateRequest maximumContractCertificateChains, prioritizedEMAIDs "
                         "(schema descriptions: absent during an ISO 15118-2 session); no SHALL", "in an ISO 15118-2 "
                         "session the station sends neither maximumContractCertificateChains nor prioritizedEMAIDs",
                         by=CS)
    exi_response = should("OCPP 2.0.1/2.1 Get15118EVCertificateResponse exiResponse (schema description: the raw "
                          "response for the EV, base64); tzi-OCTT TC_M_26_CSMS", "an Accepted answer carries the EV's "
                          "answer, base64 and non-empty", by=CSMS)


# the rows an ISO 15118-20 session's request and its answer are judged by (2.1), besides the action's own
SESSION_20_ROWS = (EvCertificates.chains_forwarded, EvCertificates.exi_request, EvCertificates.answered,
                   EvCertificates.exi_response)


def is_base64(text: object) -> bool:
    if not isinstance(text, str) or not text:
        return False
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


async def ev_certificate(arena: OcppArena, action: str, forwarded: Rule, *, schema: str = ISO15118_2) -> Exchange:
    """The EV asks for a certificate (``action`` Install or Update) in an ISO 15118 session of ``schema`` (2.1:
    one of ISO 15118-20 asks for up to ``EV_20`` chains, these EMAIDs first); the station forwards it, the CSMS
    answers; each judged on the SUT's side."""
    asked = EV_20 if schema == ISO15118_20 else {}
    payload = {"iso15118SchemaVersion": schema, "action": action,
               "exiRequest": base64.b64encode(STAND_IN).decode()} | asked
    exchange = await arena.exchange(CS, "Get15118EVCertificate", payload, rule=forwarded, trigger=(
        "ev_certificate", {"certificate_action": action, "iso15118_schema_version": schema}
        | {"maximum_contract_certificate_chains": asked[SESSION_20[0]], "prioritized_emaids": asked[SESSION_20[1]]}
        if asked else {"certificate_action": action}))
    if arena.is_sut(CS):
        check_equal(forwarded, "Get15118EVCertificateRequest action", action, exchange.request.get("action"))
        if asked:
            check_equal(EvCertificates.chains_forwarded, "Get15118EVCertificateRequest of an ISO 15118-20 session "
                        "(its schema version, the EV's maximum chains, its EMAIDs in its order)",
                        {"iso15118SchemaVersion": schema} | asked,
                        {k: exchange.request.get(k) for k in ("iso15118SchemaVersion", *SESSION_20)})
        elif arena.version is OcppVersion.V21:
            sent = {k: exchange.request[k] for k in SESSION_20 if k in exchange.request}
            require(not sent, EvCertificates.absent_in_2, "the station sent ISO 15118-20 fields in an ISO 15118-2 "
                    "session", expected="neither field", actual=sent)
        require(is_base64(exchange.request.get("exiRequest")), EvCertificates.exi_request,
                "exiRequest is not base64", expected="the EV's EXI message, base64", actual=exchange.request.get(
                    "exiRequest", "")[:40])
        require(bool(exchange.request.get("iso15118SchemaVersion")), EvCertificates.exi_request,
                "no iso15118SchemaVersion", expected="the schema version of the EV's session", actual="''")
        return exchange
    check_equal(EvCertificates.answered, "Get15118EVCertificateResponse status", "Accepted", status_of(exchange))
    if status_of(exchange) == "Accepted":
        require(is_base64((exchange.result or {}).get("exiResponse")), EvCertificates.exi_response,
                "exiResponse is not a non-empty base64 text", expected="the EV's EXI answer, base64",
                actual=str((exchange.result or {}).get("exiResponse"))[:40])
    return exchange


class CertificateStatus(RuleTable, namespace="certstatus"):
    """M06: the OCSP status of a (V2G) certificate, asked through the CSMS."""
    request_data = must("OCPP 2.0.1/2.1 OCSPRequestDataType (schema: all five fields required; 2.1 descriptions: "
                        "the hashes over the issuer's DER name and public key, the serial in hex without 0x and "
                        "leading zeros); RFC 6960 CertID", "the station's ocspRequestData is a CertID in hex: "
                        "hashes of the algorithm's length, a hex serial, a responder URL", by=CS)
    answered = must("OCPP 2.0.1 M06.FR.01, M06.FR.02 (tzi-OCTT TC_M_24_CSMS)", "a CSMS that got the certificate's "
                    "status from the responder answers Accepted with the OCSP response in ocspResult", by=CSMS)
    der = must("OCPP 2.0.1 M06.FR.08, M06.FR.09 (tzi-OCTT TC_M_24_CSMS); GetCertificateStatusResponse.ocspResult",
               "ocspResult is an RFC 6960 OCSPResponse, DER, base64", by=CSMS)
    relayed = must("OCPP 2.0.1 M06.FR.02 (the responder's data, included)", "the OCSP response is the responder's "
                   "answer about the certificate asked (signed by its authority; its status as given)", by=CSMS)
    failed = should("OCPP 2.0.1/2.1 GetCertificateStatusResponse.ocspResult (schema: may be omitted only when the "
                    "status is not Accepted); no SHALL names the status", "a CSMS that got no answer from the "
                    "responder answers Failed", by=CSMS)


def check_request_data(data: dict) -> None:
    """The station's OCSPRequestDataType, judged on its form."""
    rule = CertificateStatus.request_data
    length = DIGEST_HEX.get(data.get("hashAlgorithm", ""))
    for field in ("issuerNameHash", "issuerKeyHash"):
        value = str(data.get(field, ""))
        require(length is not None and re.fullmatch(f"[0-9a-fA-F]{{{length}}}", value) is not None, rule,
                f"ocspRequestData.{field} is not a {data.get('hashAlgorithm')} digest in hex",
                expected=f"{length} hex digits", actual=value[:140])
    serial = str(data.get("serialNumber", ""))
    require(re.fullmatch(r"[1-9a-fA-F][0-9a-fA-F]*|0", serial) is not None, rule,
            "ocspRequestData.serialNumber is not hex without prefix and leading zeros", expected="e.g. 1a2b",
            actual=serial)
    require(str(data.get("responderURL", "")).lower().startswith(("http://", "https://")), rule,
            "ocspRequestData.responderURL is no responder's URL", expected="http(s)://…",
            actual=data.get("responderURL"))


def ocsp_result(exchange: Exchange) -> bytes | None:
    """The ocspResult of an answer, DER (a missing or broken one breaks ``der``: None)."""
    text = (exchange.result or {}).get("ocspResult")
    if not require(is_base64(text), CertificateStatus.der, "ocspResult is missing or not base64",
                   expected="a base64 DER OCSPResponse", actual=str(text)[:40]):
        return None
    der = base64.b64decode(text)
    try:
        ocsp.load_der_ocsp_response(der)
    except ValueError as error:
        violated(CertificateStatus.der, "ocspResult is not a DER OCSPResponse", expected="RFC 6960 OCSPResponse, DER",
                 actual=str(error))
        return None
    return der


async def certificate_status(arena: OcppArena, kind: str = "valid") -> Exchange:
    """The station asks the status of a certificate of ``kind`` (the run's contract PKI's valid or revoked one);
    a station under test asks about its own (actuator ``certificate_status``). Judged on the SUT's side: the
    request's form; the CSMS's Accepted answer, its DER, and that it is the responder's about that certificate
    with the status the responder gives."""
    run = await ocsp_responder(arena)
    data = run.contract("V2G-STATUS-CERT", kind).hash_data()
    exchange = await arena.exchange(CS, "GetCertificateStatus", {"ocspRequestData": data},
                                    trigger=("certificate_status", {}), rule=CertificateStatus.request_data)
    if arena.is_sut(CS):
        check_request_data(exchange.request.get("ocspRequestData") or {})
        return exchange
    check_equal(CertificateStatus.answered, "GetCertificateStatusResponse status", "Accepted", status_of(exchange))
    der = ocsp_result(exchange)
    if der is None:
        return exchange
    status = contract_pki.ocsp_status(der, data, [a.certificate for a in run.authorities])
    expected = "revoked" if kind == "revoked" else "good"
    check_equal(CertificateStatus.relayed, "the relayed OCSP response's status about the certificate asked",
                expected, status)
    return exchange


async def status_without_responder(arena: OcppArena) -> None:
    """The harness's station asks about a certificate whose responder nobody serves: Failed (an Accepted answer
    carries an OCSP response, which it cannot have)."""
    run = contract_pki.for_run(arena.profile)
    data = run.contract("V2G-STATUS-CERT", "valid").hash_data()   # the run's responder is not started here
    exchange = await arena.exchange(CS, "GetCertificateStatus", {"ocspRequestData": data})
    if status_of(exchange) == "Accepted":
        ocsp_result(exchange)
    check_equal(CertificateStatus.failed, "GetCertificateStatusResponse status (the responder unreachable)",
                "Failed", status_of(exchange))
