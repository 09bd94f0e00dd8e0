"""A02 — Update the station's certificate by request of the CSMS: the CSMS sends TriggerMessage
SignChargingStationCertificate, the station answers and requests a certificate for a new key (SignCertificate),
the CSMS accepts a well-formed request and returns the signed certificate (CertificateSigned), which the station
takes if it is valid and refuses, reporting InvalidChargingStationCertificate, if not. The renewal's rows are the
shared dialogue's (harness.usecases.certificates); the requirements, in our words: docs/requirements/security.md.

A station under test that takes the harness's certificate keeps it (the harness cannot undo a renewal): play
it with a station whose client certificate may be replaced, and whose operator's authority the profile's
[tls] harness PKI root is, or read valid_taken as the finding it is."""

import base64

import pytest

from harness import pki
from harness.errors import NotApplicable
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.certificates import Certificates, renewal
from harness.usecases.operations import operate, status_of
from harness.verdict import check_equal

TRIGGER = {"requestedMessage": "SignChargingStationCertificate"}


class A02(RuleTable):
    """The rules of A02 beyond the renewal's own (OCPP 2.0.1 part 2 A02 and F06; the same in 2.1)."""
    trigger = must("OCPP 2.0.1 F06.FR.01 (tzi-OCTT TC_A_11_CSMS)", "the CSMS asks for the renewal with "
                   "TriggerMessage requestedMessage SignChargingStationCertificate", by=CSMS)


pytestmark = case("A02", block="Security", roles=("csms", "cs"), protocols=OCPP2)


async def _asked(ocpp) -> None:
    """The CSMS's TriggerMessage; a station that does not renew on request (Rejected, NotImplemented) makes the
    test not applicable."""
    exchange = await operate(ocpp, "TriggerMessage", TRIGGER, A02.trigger)
    if status_of(exchange) != "Accepted":
        raise NotApplicable(f"the station answered TriggerMessage SignChargingStationCertificate "
                            f"{status_of(exchange)!r}: it does not renew its certificate on request")


@checks(A02.trigger, Certificates.csr_sent, Certificates.csr_pem, Certificates.csr_names_station,
        Certificates.csms_accepts, Certificates.signed_sent, Certificates.chain_pem, Certificates.chain_key,
        Certificates.chain_valid, Certificates.type_echoed, Certificates.valid_taken, csms=TC("TC_A_11_CSMS", "ocpp2.0.1"))
async def test_certificate_renewed_on_request(ocpp):
    """Trigger, CSR, Accepted, the signed certificate for the CSR's key, taken by the station."""
    _, signed = await renewal(ocpp, lambda: _asked(ocpp))
    if ocpp.is_sut(CS):
        check_equal(Certificates.valid_taken, "CertificateSignedResponse status", "Accepted", status_of(signed))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("broken", ["expired", "other_root", "other_key"])
@checks(A02.trigger, Certificates.csr_sent, Certificates.invalid_refused, Certificates.invalid_reported)
async def test_an_invalid_certificate_is_refused_and_reported(ocpp, broken):
    """The harness's CSMS answers the CSR with a certificate that ended a day ago, one of an authority the station
    does not know, or one for another key: Rejected, and SecurityEventNotification InvalidChargingStationCertificate."""
    ocpp.configure(signed_certificate=broken)
    _, signed = await renewal(ocpp, lambda: _asked(ocpp))
    check_equal(Certificates.invalid_refused, f"CertificateSignedResponse status ({broken} certificate)", "Rejected",
                status_of(signed))
    await ocpp.expect("SecurityEventNotification", sender=CS, after=ocpp.mark_after(signed),
                      rule=Certificates.invalid_reported,
                      where=lambda payload: payload.get("type") == "InvalidChargingStationCertificate")


def _unusable_csr(kind: str) -> str:
    """A CSR the CSMS cannot process: PEM armour around bytes that are no CSR, or a CSR whose signature was
    altered (its key does not verify it)."""
    if kind == "not_a_csr":
        return "-----BEGIN CERTIFICATE REQUEST-----\n" + base64.b64encode(b"no request" * 8).decode() + \
               "\n-----END CERTIFICATE REQUEST-----\n"
    der = bytearray(base64.b64decode("".join(pki.make_csr(pki.new_key(), "CS-A02-FORGED").splitlines()[1:-1])))
    der[-1] ^= 0x01   # the signature's last byte
    body = base64.b64encode(bytes(der)).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    return f"-----BEGIN CERTIFICATE REQUEST-----\n{lines}\n-----END CERTIFICATE REQUEST-----\n"


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("unusable", ["not_a_csr", "bad_signature"])
@checks(Certificates.csms_rejects)
async def test_an_unusable_signing_request_is_rejected(ocpp, unusable):
    """The harness's station sends a SignCertificateRequest whose csr is no request, or whose signature does not
    verify: Rejected."""
    exchange = await ocpp.exchange(CS, "SignCertificate", {"csr": _unusable_csr(unusable),
                                                           "certificateType": "ChargingStationCertificate"})
    check_equal(Certificates.csms_rejects, f"SignCertificateResponse status ({unusable})", "Rejected",
                status_of(exchange))
