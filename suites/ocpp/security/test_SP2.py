"""SP2 — security profile 2: TLS 1.2 or later with HTTP Basic auth, in every OCPP-J version, either role.

The CSMS under test serves wss with a certificate the station verifies (signed by [tls] sut_ca, valid,
issued for its host), refuses a station that offers only TLS 1.0 or 1.1, and refuses a wrong Basic-auth
password over TLS. The station under test connects over TLS 1.2+ with Basic auth, and refuses a server
whose certificate it cannot verify (expired, issued for another host, signed by an authority it does not
trust, self-signed) or that speaks only TLS 1.0 or 1.1: it aborts the TLS handshake (judged by the handshake,
not by the upgrade after it), whichever of profiles 2 and 3 it is set up for. The harness's CSMS serves anew
for each of those at the address it listens on: a real station is refused or refuses on its own retries.

The cipher suites (docs/requirements/security.md "The TLS under the profiles"): the CSMS under test completes a
TLS 1.2 handshake offering each of the four mandatory suites alone; the station under test offers the ECDSA pair
or the RSA pair. A station that refused a server speaking only old TLS reports InvalidTLSVersion once connected.

Sources: facts ocpp-j.md "Security profiles" (spec 001 does not show the connection's security: the 2.x
rows cite the facts file alone); 1.6 also spec 002 Authentication 1-3; the cipher suites and the security events
the OCPP 2.0.1 part 2 requirements (as tzi-OCTT and ocpplab.com restate them) and the 1.6 security white paper.
"""

import secrets

import pytest

from harness.arena.ocpp_sides import Registration
from harness.roles import CS, CSMS
from harness.ocpp.versions import OcppVersion
from harness.pki import BROKEN
from harness.rules import RuleTable, must
from harness.suite import OCPP_ALL, TC, case, checks, needs
from harness.transport.tls import MANDATORY, only
from harness.usecases.tls import (
    at_security_profile, judge_rsa_server, judge_suites_offered, judge_version, over_tls, reported_after_refusal,
    server_refused, station_admitted, station_refused, suite_accepted, Tls,
)
from harness.usecases.transport import basic_password
from harness.transport.ws import open_station
from harness.verdict import require, violated

SOURCE = "facts ocpp-j.md Security profiles (2: TLS >= 1.2 + Basic auth); spec 002 Authentication 1-3 (1.6)"


class SP2(RuleTable):
    """Security profile 2."""
    server_tls = must(SOURCE, "the CSMS serves wss over TLS 1.2 or later with a server certificate the station "
                      "verifies: signed by the authority it trusts, valid now, issued for its host", by=CSMS)
    old_tls_refused = must(SOURCE, "the CSMS refuses a connection that offers only TLS 1.0 or 1.1", by=CSMS)
    wrong_password = must(SOURCE + "; a CSMS must refuse a wrong username or password",
                          "over TLS the CSMS refuses an upgrade with a wrong Basic-auth password", by=CSMS)
    station_tls = must(SOURCE, "the station connects over wss with TLS 1.2 or later and Basic auth", by=CS)
    server_checked = must(SOURCE, "the station refuses a server certificate it cannot verify: expired, issued for "
                          "another host, signed by an authority it does not trust, self-signed", by=CS)
    old_tls_server_refused = must(SOURCE, "the station refuses a server that speaks only TLS 1.0 or 1.1", by=CS)
    refusal_reported = must("OCPP 1.6 security whitepaper A00.FR.309 (A00 of OCPP 2.0.1; 2.x names the event "
                            "InvalidCsmsCertificate); A04.FR.02 (queued until delivered)",
                            "a station that refused the server's certificate reports the security event "
                            "InvalidCsmsCertificate (1.6: InvalidCentralSystemCertificate) once connected", by=CS)
    suites_served = must("OCPP 2.0.1 A00.FR.318 (tzi-OCTT TC_A_04_CSMS); 1.6 security white paper A00.FR.317",
                         "the CSMS supports the four mandatory TLS 1.2 cipher suites: TLS_ECDHE_ECDSA_WITH_AES_128_GCM_"
                         "SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_RSA_WITH_AES_128_GCM_SHA256, "
                         "TLS_RSA_WITH_AES_256_GCM_SHA384 (an RSA and an ECDSA certificate)", by=CSMS)
    suites_offered = must("OCPP 2.0.1 A00.FR.319 (ocpplab.com TC_A_04_CS); 1.6 security white paper A00.FR.318",
                          "the station supports the ECDSA pair (AES-128-GCM and AES-256-GCM) or the static-RSA pair of "
                          "the mandatory TLS 1.2 suites", by=CS)
    old_tls_reported = must("OCPP 2.0.1 A00.FR.316, A00.FR.419 (ocpplab.com TC_A_06_CS); 1.6 security white paper "
                            "A00.FR.315, A00.FR.419; A04.FR.02 (queued until delivered)",
                            "a station that refused a server speaking only TLS older than 1.2 triggers the security "
                            "event InvalidTLSVersion, reported once connected", by=CS)


pytestmark = case("SP2", block="Security", roles=("csms", "cs"), protocols=OCPP_ALL)
OLD_VERSIONS = ("TLSv1.0", "TLSv1.1")


@pytest.mark.sut_roles("csms")
@checks(SP2.server_tls, Tls.rsa_server, Registration.accepted,
        csms=(TC("TC_A_04_CSMS", "ocpp2.0.1"), TC("TC_086_CSMS", "ocpp1.6")))
@needs(at_security_profile(2))
async def test_csms_serves_tls_with_a_valid_certificate(ocpp_unlinked, harness_station):
    """The harness's station verifies the CSMS's certificate against [tls] sut_ca and its host, connects over
    TLS 1.2+ with Basic auth and boots; a 1.6 central system's certificate is RSA within 2048."""
    arena = ocpp_unlinked
    await arena.secure(2)
    handshake = await harness_station.over_tls()
    require(handshake.tls_refused is None, SP2.server_tls, "the station could not verify the CSMS's TLS server",
            expected="a certificate from [tls] sut_ca, valid, for the URL's host", actual=handshake.tls_refused)
    require(handshake.connection is not None, SP2.server_tls, "the CSMS refused the upgrade over TLS",
            expected="101", actual=f"HTTP {handshake.status}")
    judge_version(handshake.connection, SP2.server_tls)
    await judge_rsa_server(arena, handshake.connection)
    boot = await harness_station.settled_boot()
    harness_station.boot_answered((boot.result or {}).get("status"))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("old", OLD_VERSIONS)
@checks(SP2.old_tls_refused, csms=TC("TC_A_06_CSMS", "ocpp2.0.1"))
@needs(at_security_profile(2))
async def test_csms_refuses_a_station_offering_only_old_tls(ocpp_unlinked, old):
    """A station offering only TLS 1.0 (or 1.1) is refused (at TLS, or by HTTP: either refusal opens nothing)."""
    arena = ocpp_unlinked
    await arena.secure(2)
    await station_refused(arena, SP2.old_tls_refused, f"only {old}", versions=only(old))


@pytest.mark.sut_roles("csms")
@checks(SP2.wrong_password, SP2.server_tls)
@needs(at_security_profile(2))
async def test_csms_refuses_a_wrong_password_over_tls(ocpp_unlinked):
    """Over TLS, the configured identity with a wrong Basic-auth password is refused."""
    arena = ocpp_unlinked
    await arena.secure(2)
    wrong = secrets.token_bytes(20) if arena.version is OcppVersion.V16 else "wrong-" + secrets.token_hex(10)
    handshake = await open_station(arena.sut_url, arena.profile.identity, password=wrong, versions=[arena.version],
                                   handler=None, wirelog=arena.wirelog, tls=arena.link_tls())
    require(handshake.tls_refused is None, SP2.server_tls, "the station could not verify the CSMS's TLS server",
            expected="a valid certificate", actual=handshake.tls_refused)
    if handshake.connection is not None:
        await handshake.connection.close()
        violated(SP2.wrong_password, "the CSMS upgraded a wrong password over TLS", expected="HTTP 401",
                 actual="101 Switching Protocols")


@pytest.mark.sut_roles("cs")
@checks(SP2.station_tls, cs=TC("TC_086_CS", "ocpp1.6"))
@needs(at_security_profile(2))
async def test_station_connects_over_tls_with_basic_auth(ocpp_unlinked, harness_csms):
    """Served a valid certificate, the station connects over TLS 1.2+ with its Basic-auth credentials."""
    arena = ocpp_unlinked
    await arena.secure(2)
    connection = await station_admitted(arena, SP2.station_tls)
    judge_version(connection, SP2.station_tls)
    seen = harness_csms.handshakes()[-1]
    require(basic_password(arena) is None or seen.password_ok, SP2.station_tls,
            "the station's upgrade did not carry its Basic-auth credentials", expected="the configured password",
            actual="none" if seen.username is None else "a wrong one")


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("certificate", BROKEN)
@checks(SP2.server_checked)
@needs(at_security_profile(2, 3))
async def test_station_refuses_a_server_certificate_it_cannot_verify(ocpp_unlinked, certificate):
    """Served a certificate that is expired, for another host, from another root or self-signed, the station
    aborts the TLS handshake (a station set up for profile 3 alone is asked at profile 3)."""
    arena = ocpp_unlinked
    await arena.secure(over_tls(arena))
    await server_refused(arena, SP2.server_checked, f"a {certificate.replace('_', ' ')} certificate",
                         certificate=certificate)


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("old", OLD_VERSIONS)
@checks(SP2.old_tls_server_refused)
@needs(at_security_profile(2, 3))
async def test_station_refuses_a_server_speaking_only_old_tls(ocpp_unlinked, old):
    """A server that speaks only TLS 1.0 (or 1.1) gets no TLS handshake from the station (at profile 3 for a
    station set up for it alone)."""
    arena = ocpp_unlinked
    await arena.secure(over_tls(arena))
    await server_refused(arena, SP2.old_tls_server_refused, f"only {old}", versions=only(old))


@pytest.mark.sut_roles("cs")
@pytest.mark.parametrize("certificate", BROKEN)
@checks(SP2.server_checked, SP2.station_tls, SP2.refusal_reported)
@needs(at_security_profile(2, 3))
async def test_station_reports_the_server_certificate_it_refused(ocpp_unlinked, certificate):
    """Served a certificate that is expired, for another host, from another root or self-signed the station
    refuses; served a valid one it connects, boots and reports the refusal: SecurityEventNotification
    InvalidCsmsCertificate (1.6: InvalidCentralSystemCertificate)."""
    arena = ocpp_unlinked
    await arena.secure(over_tls(arena))
    event = "InvalidCentralSystemCertificate" if arena.version is OcppVersion.V16 else "InvalidCsmsCertificate"
    await reported_after_refusal(arena, (SP2.server_checked, SP2.station_tls, SP2.refusal_reported), event,
                                 f"a {certificate.replace('_', ' ')} certificate", certificate=certificate)


@pytest.mark.sut_roles("cs")
@checks(SP2.old_tls_server_refused, SP2.station_tls, SP2.old_tls_reported, cs=TC("TC_A_06_CS", "ocpp2.0.1"))
@needs(at_security_profile(2, 3))
async def test_station_reports_the_old_tls_it_refused(ocpp_unlinked):
    """Served by a server speaking only TLS 1.0 the station refuses; served TLS 1.2+ it connects, boots and
    reports the refusal: SecurityEventNotification InvalidTLSVersion (every version)."""
    arena = ocpp_unlinked
    await arena.secure(over_tls(arena))
    await reported_after_refusal(arena, (SP2.old_tls_server_refused, SP2.station_tls, SP2.old_tls_reported),
                                 "InvalidTLSVersion", "only TLSv1.0", versions=only("TLSv1.0"))


@pytest.mark.sut_roles("csms")
@pytest.mark.parametrize("suite", tuple(MANDATORY))
@checks(SP2.suites_served, Tls.rsa_server, csms=TC("TC_A_04_CSMS", "ocpp2.0.1"))
@needs(at_security_profile(2))
async def test_csms_supports_each_mandatory_cipher_suite(ocpp_unlinked, suite):
    """The harness's station offers TLS 1.2 and one mandatory suite alone; the CSMS completes the handshake and
    upgrades (a 1.6 central system with an RSA certificate for an RSA suite)."""
    arena = ocpp_unlinked
    await arena.secure(2)
    await suite_accepted(arena, SP2.suites_served, suite)


@pytest.mark.sut_roles("cs")
@checks(SP2.suites_offered, SP2.station_tls, cs=TC("TC_A_04_CS", "ocpp2.0.1"))
@needs(at_security_profile(2, 3))
async def test_station_offers_a_mandatory_pair_of_cipher_suites(ocpp_unlinked):
    """The harness's server enables all four mandatory suites and reads which of them the station offered: the
    ECDSA pair or the RSA pair whole."""
    arena = ocpp_unlinked
    await arena.secure(over_tls(arena))
    judge_suites_offered(await station_admitted(arena, SP2.station_tls), SP2.suites_offered)
