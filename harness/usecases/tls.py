"""The TLS of security profiles 2 and 3, one dialogue for every version and either role: the SP2 and
SP3 suites (suites/ocpp/security) play it.

The texts: the facts file (ocpp-j.md "Security profiles": 2 is TLS 1.2 or later with Basic auth, 3 is
mutual TLS whose client certificate names the station's serial number in its CN; a CSMS refuses a wrong
password and an invalid client certificate). Spec 001 (2.x) does not show the connection's security, so
the 2.x rows cite the facts file alone; 1.6 adds spec 002 Authentication 1-2 (wss; certificates RSA,
"not greater than 2048" — the file says bytes, the key size reads as bits: a certificate that meets
either reading passes).

Cipher suites (the 2.0.1 text A00.FR.318/421 for the CSMS, A00.FR.319/422 for the station; the 1.6 security white
paper A00.FR.317/421 and A00.FR.318/422): the CSMS supports the four mandatory TLS 1.2 suites, two ECDSA and two
static RSA, which takes an RSA and an ECDSA certificate; the station supports the ECDSA pair or the RSA pair. A CSMS
is asked one suite at a time (TLS 1.2, that suite alone offered); a station's offer is read off its ClientHello
by the harness's server, which enables all four. A suite this process's OpenSSL cannot offer is not the SUT's
fault: not applicable. In 1.6 spec 002's RSA rule meets the white paper's second, ECDSA, certificate: a central
system that presents its ECDSA certificate is asked again offering only RSA-authenticated suites, and the
certificate it then presents must be RSA (none is a failure of the rule).

A server's refusal is read at whichever level it happened: a TLS alert, a reset during the handshake, or an
HTTP refusal of the upgrade are all refusals (a correct server may refuse at either level). A station's check
of the server is read in the TLS handshake alone: it aborts it, or it took the server's certificate.
"""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import rsa

from harness.arena.ocpp import OcppArena
from harness.errors import NotApplicable
from harness.ocpp.versions import OcppVersion
from harness.roles import CS, CSMS
from harness.rules import RuleTable, must
from harness.transport.tls import MANDATORY, STATION_PAIRS, TLS12, can_offer
from harness.transport.ws import OcppConnection
from harness.verdict import check_in, require, violated

NEW_ENOUGH = ("TLSv1.2", "TLSv1.3")
RSA_LIMIT = 2048   # spec 002 Authentication 2: bytes of the certificate, or bits of its key


class Tls(RuleTable, namespace="tls"):
    """What both security profiles ask of the TLS under them."""
    rsa_server = must("spec 002 Authentication 2", "a 1.6 central system's TLS certificate is RSA and not greater "
                      "than 2048 (bytes of the certificate or bits of its key)", by=CSMS)
    rsa_client = must("spec 002 Authentication 2", "a 1.6 charge point's TLS client certificate is RSA and not "
                      "greater than 2048 (bytes of the certificate or bits of its key)", by=CS)


def at_security_profile(*numbers: int):
    """A ``needs`` condition: the profile's [tls] security_profiles lists one of ``numbers`` (the SUT is set up
    for it)."""
    def condition(given) -> None:
        if not set(numbers) & set(given.profile.get("tls.security_profiles", ())):
            named = " or ".join(map(str, numbers))
            raise NotApplicable(f"the profile's [tls] security_profiles does not list {named}: the SUT is not set "
                                f"up for security profile {named}")
    return condition


def operator_named(given) -> None:
    """A ``needs`` condition: the profile names the station's operator ([tls] operator), which a client certificate
    of another operator is judged against."""
    if not given.profile.get("tls.operator"):
        raise NotApplicable("the profile's [tls] operator is not given: the harness cannot name another operator "
                            "than the station's")


def over_tls(arena: OcppArena) -> int:
    """The security profile a test of the TLS under both profiles (the server's certificate, its TLS version)
    plays: the lowest over TLS the SUT is set up for, so that a station set up for profile 3 alone is asked
    too."""
    return min(number for number in arena.profile.get("tls.security_profiles", ()) if number >= 2)


RSA_AUTHENTICATED = "ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384:AES128-GCM-SHA256:AES256-GCM-SHA384"


def judge_rsa(arena: OcppArena, certificate: bytes | None, rule) -> None:
    """1.6 only (spec 002 Authentication 2): the SUT's certificate is RSA, within 2048 bytes or bits."""
    if arena.version is not OcppVersion.V16 or certificate is None:
        return
    key = x509.load_der_x509_certificate(certificate).public_key()
    if not isinstance(key, rsa.RSAPublicKey):
        violated(rule, "the TLS certificate is not RSA", expected="an RSA key", actual=type(key).__name__)
    require(len(certificate) <= RSA_LIMIT or key.key_size <= RSA_LIMIT, rule,
            "the TLS certificate is greater than 2048 in both readings", expected="<= 2048 bytes or bits",
            actual=f"{len(certificate)} bytes, a {key.key_size}-bit key")


async def judge_rsa_server(arena: OcppArena, connection: OcppConnection) -> OcppConnection:
    """SUT = 1.6 central system: its RSA certificate (``Tls.rsa_server``). One that presented an ECDSA certificate
    (the white paper's second one, A00.FR.317) is asked again over TLS 1.2 offering only RSA-authenticated suites,
    on a new connection that replaces ``connection``; returns the connection the test goes on with."""
    certificate = connection.peer_certificate()
    if arena.version is OcppVersion.V16 and certificate is not None and \
            not isinstance(x509.load_der_x509_certificate(certificate).public_key(), rsa.RSAPublicKey):
        await connection.close()
        handshake = await arena.harness_station.over_tls(versions=(TLS12, TLS12), ciphers=RSA_AUTHENTICATED)
        if handshake.connection is None:
            violated(Tls.rsa_server, "the TLS certificate is not RSA: the central system presented an ECDSA "
                     "certificate and refused a station offering only RSA-authenticated suites",
                     expected="an RSA certificate",
                     actual=handshake.tls_refused or f"HTTP {handshake.status}")
        connection = handshake.connection
        certificate = connection.peer_certificate()
    judge_rsa(arena, certificate, Tls.rsa_server)
    return connection


async def suite_accepted(arena: OcppArena, rule, suite: str) -> None:
    """SUT = CSMS: the harness's station offers TLS 1.2 and the mandatory suite ``suite`` (an IANA name) alone;
    the CSMS must complete the handshake and upgrade (in 1.6 with an RSA certificate for an RSA suite)."""
    if not can_offer(suite):
        raise NotApplicable(f"the harness's OpenSSL cannot offer {suite}: it cannot judge whether the CSMS "
                            f"supports it")
    handshake = await arena.harness_station.over_tls(versions=(TLS12, TLS12), ciphers=MANDATORY[suite])
    require(handshake.tls_refused is None, rule, f"the CSMS refused a TLS 1.2 handshake offering {suite} alone",
            expected=f"a handshake on {suite}", actual=handshake.tls_refused)
    require(handshake.connection is not None, rule, f"the CSMS refused the upgrade over {suite}",
            expected="101", actual=f"HTTP {handshake.status}")
    if "_RSA_WITH_" in suite:
        judge_rsa(arena, handshake.connection.peer_certificate(), Tls.rsa_server)
    await handshake.connection.close()


def judge_suites_offered(connection: OcppConnection, rule) -> None:
    """SUT = station: the connection's ClientHello offered one of the mandatory pairs whole (ECDSA or RSA)."""
    offered = connection.offered_suites() or frozenset()
    if not any(set(pair) <= offered for pair in STATION_PAIRS):
        violated(rule, "the station did not offer a mandatory pair of TLS 1.2 cipher suites",
                 expected=" or ".join(" and ".join(pair) for pair in STATION_PAIRS),
                 actual=", ".join(sorted(offered)) or "none of the four")


UNANSWERABLE = "NO_SHARED_CIPHER"   # the harness's server refused first, with an alert that names no version


async def reported_after_refusal(arena: OcppArena, rules: tuple, event: str, what: str, **setup) -> None:
    """SUT = station: served ``setup`` it refuses the handshake (``rules[0]``); served a valid certificate it
    connects (``rules[1]``), boots and reports the security event ``event`` (``rules[2]``), queued until
    delivered. A station whose ClientHello the harness's old-TLS server could not answer with its version (no
    suite of the old version offered: a handshake_failure alert, which names no version) had nothing to detect:
    not applicable."""
    refused, admitted, reported = rules
    await server_refused(arena, refused, what, **setup)
    if "versions" in setup and UNANSWERABLE in arena.harness_csms.tls_refusals():
        raise NotApplicable(f"the harness's server speaking {what} shares no cipher suite with the station's "
                            f"ClientHello: it refused with handshake_failure, which names no TLS version, so the "
                            f"station had no old version to detect (A00.FR.316)")
    await station_admitted(arena, admitted)
    await arena.expect("SecurityEventNotification", sender=CS, after=0, rule=reported,
                       where=lambda payload: payload.get("type") == event)


def judge_version(connection: OcppConnection, rule) -> None:
    check_in(rule, "TLS version of the connection", NEW_ENOUGH, connection.tls_version)


async def station_refused(arena: OcppArena, rule, what: str, **setup) -> None:
    """SUT = CSMS: the harness's station connecting with ``setup`` (``station_over_tls``) must be refused."""
    handshake = await arena.harness_station.over_tls(**setup)
    if handshake.connection is not None:   # refused at TLS or by HTTP: either way no connection
        await handshake.connection.close()
        violated(rule, f"the CSMS opened the connection of a station with {what}", expected="a refusal (TLS alert "
                 "or HTTP 4xx)", actual=f"upgraded, {handshake.connection.tls_version}")


async def server_refused(arena: OcppArena, rule, what: str, **setup) -> None:
    """SUT = station: served ``setup`` (``serve_station``), the station must abort the TLS handshake. Judged by
    the handshake's outcome, not by the upgrade after it: a station set up for another security profile than the
    one played may be refused by HTTP once it took the certificate (no Basic auth: 401), which is no check of its
    own."""
    connection = await arena.harness_csms.serve_over_tls(**setup)
    if connection is not None:
        violated(rule, f"the station connected to a server with {what}", expected="no connection (the station "
                 "refuses the TLS handshake)", actual=f"a connection over {connection.tls_version}")
    if arena.harness_csms.tls_completed():
        refused = arena.harness_csms.refused()
        violated(rule, f"the station completed the TLS handshake with a server with {what}",
                 expected="the station aborts the TLS handshake",
                 actual="a completed TLS handshake" + (f", then the upgrade refused with HTTP {refused[-1][1]}"
                                                       if refused else ""))


async def station_admitted(arena: OcppArena, rule) -> OcppConnection:
    """SUT = station: served a valid certificate, the station connects (over TLS 1.2 or later, presenting a
    client certificate the harness verifies in profile 3); the connection, else ``rule`` is broken with why
    the harness refused its handshakes."""
    connection = await arena.harness_csms.serve_over_tls()
    if connection is None:
        refusals = arena.harness_csms.tls_refusals()
        reason = {"UNSUPPORTED_PROTOCOL": "offered only TLS versions older than 1.2",
                  "PEER_DID_NOT_RETURN_A_CERTIFICATE": "presented no client certificate",
                  "CERTIFICATE_VERIFY_FAILED": "presented a client certificate the harness could not verify "
                                               "against [tls] sut_ca"}
        violated(rule, "the station opened no connection to the harness's wss server"
                 + (f": its TLS handshake {', then '.join(reason.get(r, r) for r in dict.fromkeys(refusals))}"
                    if refusals else f" within {arena.timeouts.connect:g} s"),
                 expected="a TLS 1.2+ connection", actual=refusals[-1] if refusals else "no handshake")
    return connection

