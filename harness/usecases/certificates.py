"""The renewal of a station's certificate, one dialogue for A02 (the CSMS asks, with TriggerMessage) and A03 (the
station starts it): the station sends its new public key as a certificate signing request (SignCertificate), the
CSMS answers and sends the signed certificate back (CertificateSigned), the station answers whether it took it.
The rows are this module's (namespace ``certificate``); docs/requirements/security.md gives their sources.

The harness's CSMS signs with the run's root (``harness.pki``); the harness's station makes a new EC P-256 key
for each request, keeps it in the run's PKI directory (never on the wire) and takes only a certificate for that
key, valid now, of the run's root. A CSMS under test signs with its own authority, which the harness cannot
know: it is judged on what the texts make checkable (PEM, the CSR's key, the type echoed).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from cryptography import x509

from harness import clock, pki
from harness.arena.ocpp import OcppArena
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must, should
from harness.transport.ws import Exchange
from harness.verdict import check_equal, require, violated

WHITEPAPER = "OCPP 1.6 security whitepaper"   # the public white paper "Improved security for OCPP 1.6-J"


class Certificates(RuleTable, namespace="certificate"):
    """What a certificate renewal asks of both sides (A02, A03)."""
    csr_sent = must(f"{WHITEPAPER} A02.FR.02-03, A03.FR.02-03", "the station that renews its certificate sends "
                    "SignCertificate with its new public key", by=CS)
    csr_pem = must("OCPP 2.0.1 SignCertificateRequest.csr (schema: SHALL, RFC 2986, PEM); "
                   f"{WHITEPAPER} A02.FR.03", "the csr is a PEM certificate signing request (RFC 2986) signed "
                   "by the key it carries", by=CS)
    csr_names_station = should(f"OCPP 2.0.1 A00.FR.405 (tzi-OCTT TC_A_08_CSMS); {WHITEPAPER} A02.FR.13",
                               "the CSR's subject CN is the station's serial number (what the CSMS checks its "
                               "certificate against), its O the operator's name where the profile gives it", by=CS)
    csms_accepts = must(f"OCPP 2.0.1 A02.FR.11 (tzi-OCTT TC_A_11_CSMS); {WHITEPAPER} A02.FR.11, A03.FR.11",
                        "a CSMS answers a well-formed signing request Accepted", by=CSMS)
    csms_rejects = must(f"{WHITEPAPER} A02.FR.12, A03.FR.12", "a CSMS answers Rejected a signing request it "
                        "cannot process: not a CSR, or one whose signature its own key does not verify", by=CSMS)
    signed_sent = must(f"{WHITEPAPER} A02, A03 remarks (the authority SHALL sign a correct CSR and the CSMS "
                       "returns it in CertificateSigned); tzi-OCTT TC_A_11_CSMS",
                       "after accepting the CSR the CSMS sends CertificateSigned", by=CSMS)
    chain_pem = must("OCPP 2.0.1 A00.FR.507 (tzi-OCTT TC_A_04_CSMS); CertificateSignedRequest.certificateChain",
                     "the certificateChain is PEM-encoded X.509, the station's certificate first", by=CSMS)
    chain_key = must(f"{WHITEPAPER} A02, A03 remarks (the CSR is what is signed)",
                     "the signed certificate carries the public key of the station's CSR", by=CSMS)
    chain_valid = should(f"{WHITEPAPER} A02.FR.06 (the station checks it, so it must be)",
                         "the signed certificate is valid now", by=CSMS)
    type_echoed = should("OCPP 2.0.1 A02.FR.14 (RECOMMENDED; tzi-OCTT TC_A_11_CSMS)",
                         "CertificateSigned names the certificateType of the signing request", by=CSMS)
    valid_taken = should(f"{WHITEPAPER} A02.FR.06, A02.FR.08 (no SHALL makes it accept)",
                         "a station takes a valid certificate for its key from its operator's authority: "
                         "CertificateSigned Accepted", by=CS)
    invalid_refused = must(f"{WHITEPAPER} A02.FR.06-07, A03.FR.06-07",
                           "a station answers Rejected a certificate that is expired, of another authority, or "
                           "not for the key of its request, and discards it", by=CS)
    invalid_reported = must(f"{WHITEPAPER} A02.FR.07, A03.FR.07 (2.x names the event "
                            "InvalidChargingStationCertificate)", "a station that discards a certificate reports "
                            "the security event InvalidChargingStationCertificate", by=CS)


def judge_csr(arena: OcppArena, sign: Exchange) -> x509.CertificateSigningRequest:
    """The station's CSR, judged when the station is the SUT; its parsed form."""
    csr = sign.request["csr"]
    problem = pki.csr_problem(csr)
    if problem is not None:
        violated(Certificates.csr_pem, "SignCertificateRequest.csr is no usable CSR", expected="a PEM CSR signed "
                 "by its own key", actual=problem)
    parsed = x509.load_pem_x509_csr(csr.encode())
    if arena.is_sut(CS):
        names = {a.oid: a.value for a in parsed.subject}
        check_equal(Certificates.csr_names_station, "CSR subject CN", arena.profile.serial_number,
                    names.get(x509.NameOID.COMMON_NAME))
        operator = arena.profile.get("tls.operator")
        if operator:
            check_equal(Certificates.csr_names_station, "CSR subject O", operator,
                        names.get(x509.NameOID.ORGANIZATION_NAME))
    return parsed


def judge_chain(sign: Exchange, signed: Exchange, csr: x509.CertificateSigningRequest) -> None:
    """A CSMS under test's CertificateSigned: PEM, for the CSR's key, valid now, its type echoed."""
    try:
        leaf = pki.load_chain(signed.request["certificateChain"])[0]
    except ValueError as error:
        violated(Certificates.chain_pem, "CertificateSignedRequest.certificateChain is not PEM X.509",
                 expected="PEM certificates, leaf first", actual=str(error))
    require(pki.same_public_key(leaf.public_key(), csr.public_key()), Certificates.chain_key,
            "the signed certificate is for another key", expected="the CSR's public key",
            actual=f"a certificate of {leaf.subject.rfc4514_string()}")
    now = clock.utcnow()
    require(leaf.not_valid_before_utc <= now <= leaf.not_valid_after_utc, Certificates.chain_valid,
            "the signed certificate is not valid now", expected=f"valid at {now:%Y-%m-%dT%H:%M}Z",
            actual=f"{leaf.not_valid_before_utc:%Y-%m-%dT%H:%M}Z to {leaf.not_valid_after_utc:%Y-%m-%dT%H:%M}Z")
    if "certificateType" in sign.request:
        check_equal(Certificates.type_echoed, "CertificateSignedRequest certificateType",
                    sign.request["certificateType"], signed.request.get("certificateType"))


async def renewal(arena: OcppArena, start: Callable[[], Awaitable[object]]) -> tuple[Exchange, Exchange]:
    """``start`` makes the station request a certificate; the SignCertificate and CertificateSigned exchanges
    that follow, each judged on the SUT's side (the CSR of a station under test; the answer and the chain of a
    CSMS under test). What a station answers to CertificateSigned the caller judges."""
    mark = arena.mark()
    await start()
    sign = await arena.expect("SignCertificate", sender=CS, after=mark, rule=Certificates.csr_sent)
    csr = judge_csr(arena, sign) if arena.is_sut(CS) else x509.load_pem_x509_csr(sign.request["csr"].encode())
    if arena.is_sut(CSMS):
        check_equal(Certificates.csms_accepts, "SignCertificateResponse status", "Accepted",
                    (sign.result or {}).get("status"))
    signed = await arena.expect("CertificateSigned", sender=CSMS, after=arena.mark_after(sign),
                                rule=Certificates.signed_sent)
    if arena.is_sut(CSMS):
        judge_chain(sign, signed, csr)
    return sign, signed
