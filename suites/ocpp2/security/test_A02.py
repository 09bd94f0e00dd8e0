"""A02 — Update the station's certificate by request of the CSMS: the CSMS sends TriggerMessage
SignChargingStationCertificate, the station answers and requests a certificate for a new key (SignCertificate),
the CSMS accepts a well-formed request and returns the signed certificate (CertificateSigned), which the station
takes if it is valid and refuses, reporting InvalidChargingStationCertificate, if not. The renewal's rows are the
shared dialogue's (harness.usecases.certificates); the requirements, in our words: docs/requirements/security.md.

A station under test that takes the harness's certificate keeps it (the harness cannot undo a renewal): play
it with a station whose client certificate may be replaced, and whose operator's authority the profile's
[tls] harness PKI root is, or read valid_taken as the finding it is."""

import pytest

from harness.rules import RuleTable, must
from harness.roles import CSMS
from harness.suite import OCPP2, TC, case, checks
from harness.usecases.certificates import (SIGN_TRIGGERS, Certificates, ask_renewal, invalid_refused, renewed,
                                           unusable_rejected)


class A02(RuleTable):
    """The rules of A02 beyond the renewal's own (OCPP 2.0.1 part 2 A02 and F06; the same in 2.1)."""
    trigger = must("OCPP 2.0.1 F06.FR.01 (tzi-OCTT TC_A_11_CSMS)", "the CSMS asks for the renewal with "
                   "TriggerMessage requestedMessage SignChargingStationCertificate", by=CSMS)


pytestmark = case("A02", block="Security", roles=("csms", "cs"), protocols=OCPP2)


@pytest.mark.parametrize("requested", SIGN_TRIGGERS)
@checks(A02.trigger, Certificates.csr_sent, Certificates.csr_pem, Certificates.csr_names_station,
        Certificates.csms_accepts, Certificates.signed_sent, Certificates.chain_pem, Certificates.chain_key,
        Certificates.chain_valid, Certificates.type_echoed, Certificates.valid_taken,
        csms=(TC("TC_A_11_CSMS", "ocpp2.0.1", when="SignChargingStationCertificate"),
              TC("TC_A_12_CSMS", "ocpp2.0.1", when="SignV2GCertificate"),
              TC("TC_A_13_CSMS", "ocpp2.0.1", when="SignCombinedCertificate")))
async def test_certificate_renewed_on_request(ocpp, requested):
    """Trigger for the station's certificate, its V2G certificate, or one for both (a station that has no such
    certificate answers Rejected or NotImplemented: not applicable); CSR, Accepted, the signed certificate for the
    CSR's key, taken by the station."""
    await renewed(ocpp, lambda: ask_renewal(ocpp, A02.trigger, requested))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("broken", ["expired", "other_root", "other_key"])
@checks(A02.trigger, Certificates.csr_sent, Certificates.invalid_refused, Certificates.invalid_reported)
async def test_an_invalid_certificate_is_refused_and_reported(ocpp, broken):
    """The harness's CSMS answers the CSR with a certificate that ended a day ago, one of an authority the station
    does not know, or one for another key: Rejected, and SecurityEventNotification InvalidChargingStationCertificate."""
    await invalid_refused(ocpp, broken, A02.trigger)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("unusable", ["not_a_csr", "bad_signature"])
@checks(Certificates.csms_rejects)
async def test_an_unusable_signing_request_is_rejected(ocpp, unusable):
    """The harness's station sends a SignCertificateRequest whose csr is no request, or whose signature does not
    verify: Rejected."""
    await unusable_rejected(ocpp, unusable)
