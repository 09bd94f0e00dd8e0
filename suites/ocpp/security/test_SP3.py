"""SP3 — security profile 3: mutual TLS, in every OCPP-J version, either role.

The CSMS under test upgrades a station that presents a valid client certificate (from the authority it
trusts, CN the station's serial number, O its operator: [tls] serial_number and operator) and refuses
one that presents an expired certificate, one signed by an authority it does not trust, a self-signed
one, or none. The station under test presents its client certificate, which the harness's CSMS verifies
against [tls] sut_ca, with its serial number as CN. No Basic auth in profile 3: the certificate names
the station. (The server side of the handshake — TLS 1.2+, the server certificate checked — is SP2's, played
at profile 3 for a station set up for it alone.)

The CSMS under test also refuses a client certificate valid in every other way that names another operator in
its O, or another station's serial number in its CN; it supports the four mandatory TLS 1.2 cipher suites under
profile 3 too, and the station under test offers a mandatory pair there (docs/requirements/security.md "The TLS
under the profiles").

Sources: facts ocpp-j.md "Security profiles" (spec 001 does not show the connection's security: the 2.x
rows cite the facts file alone); 1.6 also spec 002 Authentication 1-2; the certificate's subject and the cipher
suites the OCPP 2.0.1 part 2 requirements (as tzi-OCTT and ocpplab.com restate them) and the 1.6 security white
paper.
"""

import pytest
from cryptography import x509
from cryptography.x509.oid import NameOID

from harness.arena.ocpp_sides import Registration
from harness.roles import CS, CSMS
from harness.pki import EXPIRED, OTHER_OPERATOR, OTHER_ROOT, OTHER_STATION, SELF_SIGNED
from harness.rules import RuleTable, must
from harness.suite import OCPP_ALL, TC, case, checks, needs
from harness.transport.tls import MANDATORY
from harness.usecases.tls import (
    Tls, at_security_profile, judge_rsa, judge_suites_offered, judge_version, operator_named, station_admitted,
    station_refused, suite_accepted,
)
from harness.verdict import check_equal, require

SOURCE = "facts ocpp-j.md Security profiles (3: mutual TLS); spec 002 Authentication 1-2 (1.6)"


class SP3(RuleTable):
    """Security profile 3."""
    client_accepted = must(SOURCE, "the CSMS upgrades a station presenting a valid client certificate from the "
                           "authority it trusts", by=CSMS)
    client_refused = must(SOURCE + "; a CSMS must refuse an invalid client certificate",
                          "the CSMS refuses a station presenting an expired, unknown-authority or self-signed "
                          "client certificate, or none", by=CSMS)
    client_presented = must(SOURCE, "the station presents a client certificate the CSMS verifies against the "
                            "authority that issued it", by=CS)
    serial_cn = must(SOURCE, "the station's client certificate names its serial number as CN", by=CS)
    operator_checked = must("OCPP 2.0.1 and 1.6 security white paper A00.FR.404",
                            "the CSMS refuses a client certificate whose O (organizationName) does not contain the "
                            "operator's name", by=CSMS)
    serial_checked = must("OCPP 2.0.1 A00.FR.405, A00.FR.407 (tzi-OCTT TC_A_08_CSMS); 1.6 security white paper "
                          "A00.FR.405", "the CSMS refuses a valid client certificate whose CN is not this "
                          "station's serial number (another station's certificate)", by=CSMS)
    suites_served = must("OCPP 2.0.1 A00.FR.421 (tzi-OCTT TC_A_07_CSMS); 1.6 security white paper A00.FR.421",
                         "under profile 3 the CSMS supports the four mandatory TLS 1.2 cipher suites (the ECDSA and "
                         "the static-RSA pairs of AES-128-GCM and AES-256-GCM)", by=CSMS)
    suites_offered = must("OCPP 2.0.1 A00.FR.422 (ocpplab.com TC_A_07_CS); 1.6 security white paper A00.FR.422",
                          "under profile 3 the station supports the ECDSA pair or the static-RSA pair of the "
                          "mandatory TLS 1.2 suites", by=CS)


pytestmark = case("SP3", block="Security", roles=("csms", "cs"), protocols=OCPP_ALL)
NO_CERTIFICATE = "none"
PRESENTED = {EXPIRED: "an expired client certificate", OTHER_ROOT: "a client certificate from an authority it "
             "does not trust", SELF_SIGNED: "a self-signed client certificate", NO_CERTIFICATE: "no client certificate"}


@pytest.mark.sut_roles("csms")
@checks(SP3.client_accepted, Registration.accepted,
        csms=(TC("TC_A_07_CSMS", "ocpp2.0.1"), TC("TC_087_CSMS", "ocpp1.6")))
@needs(at_security_profile(3))
async def test_csms_accepts_a_valid_client_certificate(ocpp_unlinked, harness_station):
    """The harness's station presents a valid client certificate (CN serial, O operator), is upgraded and
    boots."""
    arena = ocpp_unlinked
    await arena.secure(3)
    handshake = await harness_station.over_tls()
    require(handshake.connection is not None, SP3.client_accepted, "the CSMS refused a valid client certificate",
            expected="an upgraded connection", actual=handshake.tls_refused or f"HTTP {handshake.status}")
    boot = await harness_station.settled_boot()
    harness_station.boot_answered((boot.result or {}).get("status"))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("certificate", (EXPIRED, OTHER_ROOT, SELF_SIGNED, NO_CERTIFICATE))
@checks(SP3.client_refused, csms=TC("TC_A_08_CSMS", "ocpp2.0.1"))
@needs(at_security_profile(3))
async def test_csms_refuses_an_invalid_client_certificate(ocpp_unlinked, certificate):
    """A station presenting an expired, unknown-authority or self-signed client certificate, or none, is
    refused (at TLS, or by HTTP)."""
    arena = ocpp_unlinked
    await arena.secure(3)
    await station_refused(arena, SP3.client_refused, PRESENTED[certificate],
                          certificate=None if certificate == NO_CERTIFICATE else certificate)


@pytest.mark.sut_roles("cs")
@checks(SP3.client_presented, SP3.serial_cn, Tls.rsa_client, cs=TC("TC_087_CS", "ocpp1.6"))
@needs(at_security_profile(3))
async def test_station_presents_its_client_certificate(ocpp_unlinked):
    """The station connects over TLS 1.2+ presenting a client certificate the harness verifies against [tls]
    sut_ca, whose CN is its serial number; a 1.6 charge point's is RSA within 2048."""
    arena = ocpp_unlinked
    await arena.secure(3)
    connection = await station_admitted(arena, SP3.client_presented)
    judge_version(connection, SP3.client_presented)
    certificate = connection.peer_certificate()
    names = x509.load_der_x509_certificate(certificate).subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    check_equal(SP3.serial_cn, "client certificate CN", arena.profile.serial_number,
                names[0].value if names else None)
    judge_rsa(arena, certificate, Tls.rsa_client)


@pytest.mark.sut_roles("csms")
@checks(SP3.operator_checked)
@needs(at_security_profile(3), operator_named)
async def test_csms_refuses_a_client_certificate_of_another_operator(ocpp_unlinked):
    """A client certificate from the authority the CSMS trusts, in date, CN the station's serial number, whose O
    names another operator: refused (at TLS, or by HTTP)."""
    arena = ocpp_unlinked
    await arena.secure(3)
    await station_refused(arena, SP3.operator_checked, "a client certificate of another operator (O)",
                          certificate=OTHER_OPERATOR)


@pytest.mark.sut_roles("csms")
@checks(SP3.serial_checked, csms=TC("TC_A_08_CSMS", "ocpp2.0.1"))
@needs(at_security_profile(3))
async def test_csms_refuses_another_station_s_client_certificate(ocpp_unlinked):
    """A valid client certificate of the operator that names another station's serial number in its CN, presented
    for this station's identity: refused (at TLS, or by HTTP)."""
    arena = ocpp_unlinked
    await arena.secure(3)
    await station_refused(arena, SP3.serial_checked, "another station's client certificate (CN)",
                          certificate=OTHER_STATION)


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("suite", tuple(MANDATORY))
@checks(SP3.suites_served, Tls.rsa_server, csms=TC("TC_A_07_CSMS", "ocpp2.0.1"))
@needs(at_security_profile(3))
async def test_csms_supports_each_mandatory_cipher_suite(ocpp_unlinked, suite):
    """Under profile 3 the harness's station presents its valid client certificate and offers TLS 1.2 and one
    mandatory suite alone; the CSMS completes the handshake and upgrades."""
    arena = ocpp_unlinked
    await arena.secure(3)
    await suite_accepted(arena, SP3.suites_served, suite)


@pytest.mark.sut_roles("cs")
@checks(SP3.suites_offered, SP3.client_presented, cs=TC("TC_A_07_CS", "ocpp2.0.1"))
@needs(at_security_profile(3))
async def test_station_offers_a_mandatory_pair_of_cipher_suites(ocpp_unlinked):
    """Under profile 3 the harness's server reads which mandatory suites the station offered: the ECDSA pair or
    the RSA pair whole."""
    arena = ocpp_unlinked
    await arena.secure(3)
    judge_suites_offered(await station_admitted(arena, SP3.client_presented), SP3.suites_offered)

