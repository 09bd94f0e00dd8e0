"""The TLS of security profiles 2 and 3, one dialogue for every version and either role: the SP2 and
SP3 suites (suites/ocpp/security) play it.

The texts: the facts file (ocpp-j.md "Security profiles": 2 is TLS 1.2 or later with Basic auth, 3 is
mutual TLS whose client certificate names the station's serial number in its CN; a CSMS refuses a wrong
password and an invalid client certificate). Spec 001 (2.x) does not show the connection's security, so
the 2.x rows cite the facts file alone; 1.6 adds spec 002 Authentication 1-2 (wss; certificates RSA,
"not greater than 2048" — the file says bytes, the key size reads as bits: a certificate that meets
either reading passes).

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


def over_tls(arena: OcppArena) -> int:
    """The security profile a test of the TLS under both profiles (the server's certificate, its TLS version)
    plays: the lowest over TLS the SUT is set up for, so that a station set up for profile 3 alone is asked
    too."""
    return min(number for number in arena.profile.get("tls.security_profiles", ()) if number >= 2)


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

